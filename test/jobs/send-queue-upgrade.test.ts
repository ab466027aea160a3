import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { createTestDatabase } from '../helpers/db.js';
import { installPgBoss12 } from '../helpers/pgboss-12.js';

// Upgrading from a version that queued sends on pg-boss (FIFO per key): the sends it had not finished
// move to the send queue in their order, each key becoming a lane, so nothing accepted is lost.

describe('send queue upgrade from pg-boss', () => {
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

  it('moves unfinished send-message jobs to lanes, in order, and leaves none in pg-boss', async () => {
    await migrateTo(db, '006_webhooks');
    await installPgBoss12(database.url);
    await pool.query(`SELECT pgboss.create_queue('send-message', '{"policy":"key_strict_fifo"}')`);
    const sends: Array<[{ kind: string; requestId?: string; messageId?: string }, string]> = [
      [{ kind: 'api_request', requestId: 'r1' }, 'ch1:5511987650001'],
      [{ kind: 'api_request', requestId: 'r2' }, 'ch1:5511987650001'],
      [{ kind: 'api_request', requestId: 'r3' }, 'ch1:5511987650002'],
      [{ kind: 'agent_message', messageId: 'm1' }, 'ch1:5511987650002'],
    ];
    for (const [data, singletonKey] of sends)
      await pool.query(
        `INSERT INTO pgboss.job (name, data, singleton_key, policy, created_on)
         VALUES ('send-message', $1, $2, 'key_strict_fifo', clock_timestamp())`,
        [data, singletonKey],
      );

    await migrateToLatest(db);
    const jobs = await pool.query('SELECT lane, kind, ref_id, attempts FROM send_jobs ORDER BY id');
    assert.deepEqual(jobs.rows, [
      { lane: 'ch1:5511987650001', kind: 'api_request', ref_id: 'r1', attempts: 0 },
      { lane: 'ch1:5511987650001', kind: 'api_request', ref_id: 'r2', attempts: 0 },
      { lane: 'ch1:5511987650002', kind: 'api_request', ref_id: 'r3', attempts: 0 },
      { lane: 'ch1:5511987650002', kind: 'agent_message', ref_id: 'm1', attempts: 0 },
    ]);
    const lanes = await pool.query('SELECT lane, pending, leased_until FROM send_lanes ORDER BY lane');
    assert.deepEqual(lanes.rows, [
      { lane: 'ch1:5511987650001', pending: 2, leased_until: null },
      { lane: 'ch1:5511987650002', pending: 2, leased_until: null },
    ]);
    // The pg-boss schema itself goes with the job layer's move to pg-boss 10 (migration 016).
    const left = await pool.query(`SELECT to_regclass('pgboss.job') IS NULL AS gone`);
    assert.equal(left.rows[0].gone, true);
  });

  it('installs on a database pg-boss never used', async () => {
    const fresh = await createTestDatabase();
    const p = new pg.Pool({ connectionString: fresh.url, max: 1 });
    const k = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: p }) });
    try {
      await migrateToLatest(k);
      const n = await p.query('SELECT count(*)::int AS n FROM send_jobs');
      assert.equal(n.rows[0].n, 0);
    } finally {
      await k.destroy();
      await fresh.drop();
    }
  });
});
