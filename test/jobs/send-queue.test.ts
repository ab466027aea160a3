import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect, sql } from 'kysely';
import type pg from 'pg';
import { createDb, inTransaction, type Db } from '../../src/db/index.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { SendQueue, type QueuedSend } from '../../src/jobs/send-queue.js';
import { createTestDatabase } from '../helpers/db.js';

// The send queue's lanes on a real database: a lane is due exactly while it has jobs, a backoff holds
// even when more jobs queue behind it, and counting a job behind a lane's work is a heap-only update.

const send = (lane: string, requestId: string): QueuedSend => ({
  lane,
  job: { kind: 'api_request', requestId },
});

describe('send queue lanes', () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Db;
  let pool: pg.Pool;
  let queue: SendQueue;

  before(async () => {
    database = await createTestDatabase();
    ({ db, pool } = createDb(database.url, 4));
    await migrateToLatest(db);
    queue = new SendQueue(db);
  });
  after(async () => {
    await db?.destroy();
    await database?.drop();
  });

  const laneRow = async (lane: string) =>
    (await pool.query('SELECT pending, ready_at FROM send_lanes WHERE lane = $1', [lane])).rows[0] as
      { pending: number; ready_at: Date | null } | undefined;

  it('is due while it has jobs, one at a time in order, and idle once its last job finished', async () => {
    await inTransaction(db, (tx) => queue.enqueue(tx, [send('a', 'r1'), send('a', 'r2')]));
    const first = await queue.lease('w1', 10, 15_000);
    assert.deepEqual(
      first.map((j) => j.job),
      [{ kind: 'api_request', requestId: 'r1' }],
    );
    assert.deepEqual(await queue.lease('w2', 10, 15_000), [], 'a leased lane is not leased again');
    await queue.complete(first.map((j) => j.id));
    const second = await queue.lease('w1', 10, 15_000);
    assert.deepEqual(
      second.map((j) => j.job),
      [{ kind: 'api_request', requestId: 'r2' }],
    );
    await queue.complete(second.map((j) => j.id));
    assert.deepEqual(await laneRow('a'), { pending: 0, ready_at: null });
    assert.deepEqual(await queue.lease('w1', 10, 15_000), []);

    await inTransaction(db, (tx) => queue.enqueue(tx, [send('a', 'r3')]));
    const third = await queue.lease('w1', 10, 15_000);
    assert.deepEqual(
      third.map((j) => j.job),
      [{ kind: 'api_request', requestId: 'r3' }],
    );
    await queue.complete(third.map((j) => j.id));
  });

  it('keeps a backoff when more jobs queue behind it', async () => {
    await inTransaction(db, (tx) => queue.enqueue(tx, [send('b', 'r4')]));
    const [job] = await queue.lease('w1', 10, 15_000);
    assert.ok(job);
    await queue.retryLater(job, 60_000);
    await inTransaction(db, (tx) => queue.enqueue(tx, [send('b', 'r5')]));
    assert.deepEqual(await queue.lease('w1', 10, 15_000), [], 'the lane waits out its backoff');
    const row = await laneRow('b');
    assert.equal(row?.pending, 2);
    assert.ok(row?.ready_at && row.ready_at.getTime() > Date.now() + 50_000);
  });

  it('counts a job queued behind a lane with work without a new index entry (heap-only update)', async () => {
    const hot = await inTransaction(db, async (tx) => {
      // This session's update counters as they stand in the transaction (not yet reported).
      const counters = async () =>
        (
          await sql<{ upd: number; hot: number }>`
            SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot
            FROM pg_stat_xact_user_tables WHERE relname = 'send_lanes'`.execute(tx)
        ).rows[0] ?? { upd: 0, hot: 0 };
      await queue.enqueue(tx, [send('c', 'r6')]);
      const start = await counters();
      await queue.enqueue(tx, [send('c', 'r7')]);
      await queue.enqueue(tx, [send('c', 'r8')]);
      const end = await counters();
      return { upd: end.upd - start.upd, hot: end.hot - start.hot };
    });
    assert.deepEqual(hot, { upd: 2, hot: 2 });
  });
});

describe('send queue lanes upgrade', () => {
  it('leaves lanes with jobs due and empty lanes idle', async () => {
    const database = await createTestDatabase();
    const { db, pool } = createDb(database.url, 2);
    const raw = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
    try {
      await migrateTo(raw, '007_send_queue');
      await pool.query(`
        INSERT INTO send_jobs (lane, kind, ref_id) VALUES ('busy', 'api_request', 'r1');
        INSERT INTO send_lanes (lane, pending) VALUES ('busy', 1), ('idle', 0)`);
      await migrateToLatest(raw);
      const lanes = await pool.query<{ lane: string; pending: number; due: boolean | null }>(
        'SELECT lane, pending, ready_at <= now() AS due FROM send_lanes ORDER BY lane',
      );
      assert.deepEqual(lanes.rows, [
        { lane: 'busy', pending: 1, due: true },
        { lane: 'idle', pending: 0, due: null },
      ]);
      const leased = await new SendQueue(db).lease('w1', 10, 15_000);
      assert.deepEqual(
        leased.map((j) => j.job),
        [{ kind: 'api_request', requestId: 'r1' }],
      );
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
