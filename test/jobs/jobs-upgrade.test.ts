import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import type { Tx } from '../../src/db/index.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { JobQueue, QUEUES, type Job, type QueueName } from '../../src/jobs/queue.js';
import { createTestDatabase } from '../helpers/db.js';
import { installPgBoss12 } from '../helpers/pgboss-12.js';

// Upgrading from the version whose jobs ran on pg-boss 12 (schema `pgboss`, which pg-boss 10 cannot
// use): the jobs it had not finished — queued, waiting for a retry, or running when it stopped — run
// after the upgrade, once; finished ones and the old schema are gone.

describe('job layer upgrade from pg-boss 12', () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Kysely<unknown>;
  let pool: pg.Pool;
  const queues: JobQueue[] = [];

  before(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    db = new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) });
  });
  after(async () => {
    for (const q of queues) await q.stop();
    await db?.destroy();
    await database?.drop();
  });

  /** A job queue with the worker role whose handlers record what they run, per queue. */
  async function startQueue(ran: Map<QueueName, unknown[]>, seen: () => void): Promise<JobQueue> {
    const q = new JobQueue({
      connectionString: database.url,
      supervise: true,
      logger: pino({ level: 'silent' }),
    });
    queues.push(q);
    await q.start();
    for (const name of [QUEUES.inboundWebhook, QUEUES.readReceipt, QUEUES.mediaDownload]) {
      await q.work(name, { concurrency: 4, pollMs: 500 }, async (job: Job<unknown>) => {
        ran.set(name, [...(ran.get(name) ?? []), job.data]);
        seen();
      });
    }
    return q;
  }

  it(
    'runs the jobs the previous version had not finished, once, and drops its schema',
    { timeout: 60_000 },
    async () => {
      await migrateTo(db, '015_customer_window');
      await installPgBoss12(database.url);
      await pool.query(`
      INSERT INTO pgboss.job (name, data, state, group_id, started_on, start_after, completed_on) VALUES
        ('inbound-webhook', '{"eventId":"e-created"}', 'created', NULL, NULL, now(), NULL),
        ('inbound-webhook', '{"eventId":"e-running"}', 'active', NULL, now(), now(), NULL),
        ('inbound-webhook', '{"eventId":"e-done"}', 'completed', NULL, now(), now(), now()),
        ('media-download', '{"messageId":"m-retry"}', 'retry', NULL, now(), now() - interval '1 second', NULL),
        ('media-download', '{"messageId":"m-failed"}', 'failed', NULL, now(), now(), now()),
        ('read-receipt', '{"messageId":"m-read"}', 'created', NULL, NULL, now(), NULL),
        ('webhook-delivery', '{"deliveryId":"d1","generation":0}', 'created', 'w1', NULL, now(), NULL);
    `);

      await migrateToLatest(db);
      const schema = await pool.query(`SELECT to_regnamespace('pgboss') IS NULL AS gone`);
      assert.equal(schema.rows[0].gone, true);

      const ran = new Map<QueueName, unknown[]>();
      let waiting: (() => void) | null = null;
      const count = () => [...ran.values()].reduce((n, l) => n + l.length, 0);
      await startQueue(ran, () => waiting?.());
      // A second node starting at the same time queues nothing twice.
      await startQueue(ran, () => waiting?.());
      while (count() < 4) await new Promise<void>((r) => (waiting = r));

      assert.deepEqual(
        (ran.get(QUEUES.inboundWebhook) ?? []).map((d) => (d as { eventId: string }).eventId).sort(),
        ['e-created', 'e-running'],
      );
      assert.deepEqual(ran.get(QUEUES.mediaDownload), [{ messageId: 'm-retry' }]);
      assert.deepEqual(ran.get(QUEUES.readReceipt), [{ messageId: 'm-read' }]);
      // An outgoing webhook's job is not carried over: its delivery row is its own queue now.
      const requeued = await pool.query(
        `SELECT count(*)::int AS n FROM atende_jobs.job WHERE name = 'webhook-delivery'`,
      );
      assert.equal(requeued.rows[0].n, 0);
      const left = await pool.query('SELECT count(*)::int AS n FROM requeued_jobs');
      assert.equal(left.rows[0].n, 0);
      const queued = await pool.query(
        'SELECT count(*)::int AS n FROM atende_jobs.job WHERE name NOT LIKE $1',
        ['\\_\\_%'],
      );
      assert.equal(queued.rows[0].n, 4);
    },
  );

  it(
    'a job queued in a transaction is picked up on its commit, not at the next poll',
    { timeout: 60_000 },
    async () => {
      // A database of its own, so that this test also runs alone.
      const own = await createTestDatabase();
      const p = new pg.Pool({ connectionString: own.url, max: 2 });
      const k = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: p }) });
      const q = new JobQueue({
        connectionString: own.url,
        supervise: false,
        logger: pino({ level: 'silent' }),
      });
      try {
        await migrateToLatest(k);
        await q.start();
        let ran: (data: unknown) => void = () => undefined;
        const done = new Promise<unknown>((r) => (ran = r));
        // No poll within the test's time: only the NOTIFY of the commit can wake the worker.
        await q.work<{ n: number }>(QUEUES.housekeeping, { concurrency: 1, pollMs: 3_600_000 }, async (job) =>
          ran(job.data),
        );
        await k
          .transaction()
          .execute((tx) =>
            q.insertInTransaction(tx as unknown as Tx, QUEUES.housekeeping, [{ data: { n: 1 } }]),
          );
        assert.deepEqual(await done, { n: 1 });
      } finally {
        await q.stop();
        await k.destroy();
        await own.drop();
      }
    },
  );

  it('installs on a database that never had pg-boss', async () => {
    const fresh = await createTestDatabase();
    const p = new pg.Pool({ connectionString: fresh.url, max: 1 });
    const k = new Kysely<unknown>({ dialect: new PostgresDialect({ pool: p }) });
    try {
      await migrateToLatest(k);
      const n = await p.query('SELECT count(*)::int AS n FROM requeued_jobs');
      assert.equal(n.rows[0].n, 0);
    } finally {
      await k.destroy();
      await fresh.drop();
    }
  });
});
