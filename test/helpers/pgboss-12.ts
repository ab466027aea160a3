import { readFileSync } from 'node:fs';
import pg from 'pg';

/**
 * Installs the job layer's schema as the previous version left it (pg-boss 12 in schema `pgboss`, see
 * test/fixtures/pgboss-12.sql), on a connection of its own: the dump sets the session's search path.
 */
export async function installPgBoss12(url: string): Promise<void> {
  const dump = readFileSync(new URL('../fixtures/pgboss-12.sql', import.meta.url), 'utf8');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(dump);
  } finally {
    await client.end();
  }
}
