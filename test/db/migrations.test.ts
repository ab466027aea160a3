import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { LATEST_MIGRATION, migrateToLatest } from '../../src/db/migrate.js';
import * as typingIndicators from '../../src/db/migrations/046_typing_indicators.js';
import { createTestDatabase } from '../helpers/db.js';

// Features built side by side land in any order, so a database can have the newest migration and
// still miss an earlier one (a branch's migration applied first, as on a shared benchmark database).
// Starting the platform applies every pending migration, not only those after the last applied.

describe('migrations', () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Kysely<unknown>;
  let pool: pg.Pool;

  before(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  });
  after(async () => {
    await db?.destroy();
    await database?.drop();
  });

  it('applies an earlier migration still pending when the latest is already applied', async () => {
    await migrateToLatest(db);
    await typingIndicators.down(db);
    await pool.query("DELETE FROM kysely_migration WHERE name = '046_typing_indicators'");
    const applied = async () =>
      (await pool.query<{ name: string }>('SELECT name FROM kysely_migration ORDER BY name')).rows.map(
        (r) => r.name,
      );
    assert.ok(!(await applied()).includes('046_typing_indicators'));
    assert.ok((await applied()).includes(LATEST_MIGRATION));

    await migrateToLatest(db);
    assert.ok((await applied()).includes('046_typing_indicators'), 'the pending earlier migration ran');
  });
});
