import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { Registry } from 'prom-client';
import { loadConfig } from '../../src/config.js';
import { createDb, type Db } from '../../src/db/index.js';
import { Metrics } from '../../src/metrics/metrics.js';
import { createServices, type Services } from '../../src/services.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { startTestServices, TEST_JWT_SECRET, type TestServices } from '../helpers/services.js';

// The reports' consumer of the event log (docs/adr/0089-reports-and-rollups.md): stopped, it leaves
// the events where they are and the report says how far behind it is; started again it catches up
// from its cursor; two nodes consuming at once count every event once.

const DAY_MS = 86_400_000;
const date = (t: number) => new Date(t).toISOString().slice(0, 10);

describe('report rollups catch up', () => {
  let ts: TestServices;
  let s: Services;
  let f: Fixture;
  let db2: Db;
  let node2: Services;
  let phoneSeq = 0;
  const phone = () => `55119770${String(++phoneSeq).padStart(5, '0')}`;

  before(async () => {
    ts = await startTestServices();
    s = ts.services;
    f = await seedAccount(s);
    // A second node on the same database: its own pool, services and event horizon.
    const config = loadConfig({
      DATABASE_URL: ts.databaseUrl,
      LOG_LEVEL: 'silent',
      ATENDE_JWT_SECRET: TEST_JWT_SECRET,
    });
    db2 = createDb(ts.databaseUrl, 4).db;
    node2 = createServices({
      db: db2,
      config,
      jwtSecret: TEST_JWT_SECRET,
      redis: null,
      jobs: s.jobs,
      logger: pino({ level: 'silent' }),
      metrics: new Metrics(new Registry()),
    });
  });
  after(async () => {
    await node2?.doorbell.close();
    await db2?.destroy();
    await ts?.close();
  });

  const report = () =>
    s.reports.conversations(f.admin, {
      from: date(Date.now() - DAY_MS),
      to: date(Date.now() + DAY_MS),
      timeZone: 'UTC',
    });
  const customerWrites = async () =>
    (await s.inbound.receiveSandbox(f.admin, f.channels[0]!.id, { from: phone(), text: 'Oi' })).chatId;
  /** Resolves once the running consumers have applied every event committed before the call. */
  const applied = async () => {
    const target = await s.events.horizon.fresh();
    const deadline = Date.now() + 20_000;
    while ((await s.rollups.cursor()) < target) {
      assert.ok(Date.now() < deadline, 'the consumer did not catch up');
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  it('stopped, it falls behind and says so; started again, it catches up once', async () => {
    let worker = s.rollupWorker(ts.databaseUrl);
    await worker.start();
    await customerWrites();
    await applied();
    assert.equal((await report()).totals.opened, 1);
    await worker.stop();

    // Written while no consumer runs: three conversations, one closed.
    const ids = [await customerWrites(), await customerWrites(), await customerWrites()];
    await s.chatMoves.close(f.admin, ids[0]!);
    const behind = await report();
    assert.equal(behind.totals.opened, 1);
    assert.equal(behind.totals.closed, 0);
    // As if the outage had lasted two minutes: the report says how far behind it is.
    const cursor = await s.rollups.cursor();
    await ts.db
      .updateTable('events')
      .set({ occurred_at: new Date(Date.now() - 120_000) })
      .where('seq', '>', cursor)
      .execute();
    const late = await report();
    assert.equal(late.freshness.catchingUp, true);
    assert.ok(late.freshness.lagSeconds >= 119, String(late.freshness.lagSeconds));

    // A restart: a new consumer continues from the stored cursor.
    worker = s.rollupWorker(ts.databaseUrl);
    await worker.start();
    await applied();
    const caught = await report();
    assert.equal(caught.totals.opened, 4);
    assert.equal(caught.totals.closed, 1);
    assert.equal(caught.totals.messagesIn, 4);
    assert.equal(caught.freshness.catchingUp, false);
    await worker.stop();
    // Nothing is counted twice by another pass.
    await s.rollups.catchUp();
    assert.deepEqual((await report()).totals, caught.totals);
  });

  it('two nodes consume at once: every event counted once', async () => {
    const before = (await report()).totals;
    const workers = [s.rollupWorker(ts.databaseUrl), node2.rollupWorker(ts.databaseUrl)];
    await Promise.all(workers.map((w) => w.start()));
    const chats = await Promise.all(Array.from({ length: 20 }, () => customerWrites()));
    await Promise.all(chats.slice(0, 5).map((id) => node2.chatMoves.close(f.admin, id)));
    await applied();
    await Promise.all(workers.map((w) => w.stop()));
    await Promise.all([s.rollups.catchUp(), node2.rollups.catchUp()]);
    const now = (await report()).totals;
    assert.equal(now.opened - before.opened, 20);
    assert.equal(now.messagesIn - before.messagesIn, 20);
    assert.equal(now.closed - before.closed, 5);
    assert.equal(now.resolution.count - before.resolution.count, 5);
  });
});
