import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { LATEST_MIGRATION, migrateToLatest, migrationsApplied } from '../../src/db/migrate.js';
import { BUILT_IN_ROLES } from '../../src/access/permissions.js';
import type { Db } from '../../src/db/index.js';
import { AccountsRepo, AccountsService } from '../../src/modules/accounts/index.js';
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

  // A rolling upgrade: a newer release's node migrated the database; a node of this release
  // (re)starting on it finds executed migrations it does not know. Kysely calls that "corrupted";
  // the node must warn and start, still applying what it has pending.
  it('starts on a database a newer release migrated, still applying its own pending migrations', async () => {
    await migrateToLatest(db);
    const newer = ['999_from_a_newer_release', '999_from_a_newer_release_too'];
    for (const name of newer) {
      await pool.query('INSERT INTO kysely_migration (name, timestamp) VALUES ($1, $2)', [
        name,
        new Date().toISOString(),
      ]);
    }
    await typingIndicators.down(db);
    await pool.query("DELETE FROM kysely_migration WHERE name = '046_typing_indicators'");

    const warnings: Array<{ details: Record<string, unknown>; message: string }> = [];
    const logger = {
      info: () => undefined,
      warn: (details: Record<string, unknown>, message: string) => void warnings.push({ details, message }),
    };
    await migrateToLatest(db, { logger });

    const names = (await pool.query<{ name: string }>('SELECT name FROM kysely_migration')).rows.map(
      (r) => r.name,
    );
    assert.ok(names.includes('046_typing_indicators'), 'its own pending migration ran');
    for (const name of newer) assert.ok(names.includes(name), `${name} is left as it is`);
    assert.equal(warnings.length, 1, 'one warning');
    assert.deepEqual(warnings[0]!.details.unknownMigrations, newer);
    assert.deepEqual(warnings[0]!.details.applied, ['046_typing_indicators']);
    assert.equal(await migrationsApplied(db), true, 'ready: every migration it knows is applied');

    // Started again with nothing pending: still a warning, nothing applied, no error.
    await migrateToLatest(db, { logger });
    assert.equal(warnings.length, 2);
    assert.deepEqual(warnings[1]!.details.applied, []);
    await pool.query('DELETE FROM kysely_migration WHERE name = ANY($1)', [newer]);
  });

  // A permission a release introduces is granted by its migration (061: audit:read), but during a
  // roll a node of the previous release can still create an account with the roles it knows. Every
  // start, and housekeeping, adds what the built-in roles miss; nothing is removed or doubled.
  it('gives built-in roles the permissions they miss, once', async () => {
    await migrateToLatest(db);
    const accounts = new AccountsService(db as unknown as Db, new AccountsRepo());
    const { accountId } = await accounts.createWithAdmin({
      accountName: 'Older',
      adminName: 'Admin',
      email: 'older@example.com',
      password: 'a-long-enough-password',
    });
    // As the previous release created it: no audit:read; plus one of the account's own order kept.
    await pool.query(
      "UPDATE roles SET permissions = array_remove(permissions, 'audit:read') WHERE account_id = $1",
      [accountId],
    );
    await pool.query(
      "UPDATE roles SET permissions = array_remove(permissions, 'chats:transfer') WHERE account_id = $1 AND name = 'agent'",
      [accountId],
    );
    const roles = async () =>
      Object.fromEntries(
        (
          await pool.query<{ name: string; permissions: string[] }>(
            'SELECT name, permissions FROM roles WHERE account_id = $1',
            [accountId],
          )
        ).rows.map((r) => [r.name, r.permissions]),
      );

    assert.equal(await accounts.grantBuiltInPermissions(), 2, 'the admin and the agent role changed');
    const after = await roles();
    for (const [name, wanted] of Object.entries(BUILT_IN_ROLES)) {
      assert.deepEqual(
        [...after[name]!].sort(),
        [...wanted].sort(),
        `${name}: every built-in permission once`,
      );
    }
    assert.equal(await accounts.grantBuiltInPermissions(), 0, 'nothing left to add');
  });
});
