import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { pino } from 'pino';
import { createDb } from '../../src/db/index.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { JobQueue } from '../../src/jobs/queue.js';

/** The server under test: DATABASE_URL (npm test provides one, embedded when the machine has none). */
export function serverUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set; run the tests with `npm test`');
  return url;
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * What the schema of a migrated database is made of: the migrations (src/db), the job queues and the
 * installed pg-boss (src/jobs) — their TypeScript sources, not the SQL snapshot beside them. The template's name carries their hash, so a change to any of them
 * builds a new template instead of cloning a stale one, and branches sharing a server never mix.
 */
function schemaHash(): string {
  const hash = createHash('sha256');
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory()) visit(p);
      else if (entry.name.endsWith('.ts')) hash.update(`${path.relative(ROOT, p)}\0`).update(readFileSync(p));
    }
  };
  visit(path.join(ROOT, 'src', 'db'));
  visit(path.join(ROOT, 'src', 'jobs'));
  hash.update(readFileSync(path.join(ROOT, 'node_modules', 'pg-boss', 'package.json')));
  return hash.digest('hex').slice(0, 16);
}

/** Serializes the template's build among the test processes of every run sharing the server. */
const TEMPLATE_LOCK = 7_402_911_583;

let template: Promise<string> | null = null;

/**
 * The name of a database migrated to the latest version with the job queue installed, built once per
 * schema on the server (by whichever test process asks first) and cloned for each migrated test
 * database: a clone is a file copy, where migrating each database ran every migration again.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = `atende_tpl_${schemaHash()}`;
    const admin = new pg.Client({ connectionString: serverUrl() });
    await admin.connect();
    try {
      await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
      const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (rowCount === 0) {
        // Built under another name and renamed when complete: a run stopped halfway leaves no template.
        const building = `${name}_building`;
        await admin.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
        await admin.query(`CREATE DATABASE ${building}`);
        const url = new URL(serverUrl());
        url.pathname = `/${building}`;
        const { db } = createDb(url.toString(), 2);
        try {
          await migrateToLatest(db);
        } finally {
          await db.destroy();
        }
        const jobs = new JobQueue({
          connectionString: url.toString(),
          supervise: false,
          logger: pino({ level: 'silent' }),
        });
        await jobs.start();
        await jobs.stop();
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      }
    } finally {
      await admin.end();
    }
    return name;
  })();
  return template;
}

/**
 * A fresh database on the test server, dropped by the returned function: empty, or with `migrated`
 * already at the latest schema with the job queue installed (what a server's start would make of it).
 */
export async function createTestDatabase(
  opts: { migrated?: boolean } = {},
): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = new URL(serverUrl());
  const name = `atende_test_${randomBytes(6).toString('hex')}`;
  const from = opts.migrated ? ` TEMPLATE ${await migratedTemplate()}` : '';
  const admin = new pg.Client({ connectionString: base.toString() });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}${from}`);
  await admin.end();
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: base.toString() });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
