import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import { SendDispatcher } from '../../src/jobs/send-dispatcher.js';
import { MAX_UNRECORDED } from '../../src/modules/outbound/send.worker.js';
import { FakeGraph, type RecordedRequest } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { startTestServices, type TestServices } from '../helpers/services.js';
import { createWhatsAppChannel } from '../helpers/whatsapp.js';

// What a killed worker node would send again is what it had at the provider or answered and not yet
// recorded: that set is bounded, and a job is finished — its contact's lane freed — as soon as its own
// outcome is recorded, not when the slowest job fetched with it is.

describe('send pipeline: what a crash would send again', () => {
  let graph: FakeGraph;
  let t: TestServices;
  let f: Fixture;
  let direct: pg.Pool;
  const dispatchers: SendDispatcher[] = [];

  before(async () => {
    graph = await FakeGraph.start();
    // No workers: each test starts the send queue's worker once its requests are queued.
    t = await startTestServices({
      env: {
        WHATSAPP_GRAPH_BASE_URL: graph.url,
        // Held answers stay held: no provider timeout ends them during a test.
        WHATSAPP_TIMEOUT_MS: '120000',
      },
    });
    f = await seedAccount(t.services);
    direct = new pg.Pool({ connectionString: t.databaseUrl, max: 3 });
  });
  after(async () => {
    await Promise.all(dispatchers.map((d) => d.stop()));
    await direct?.end();
    await t?.close();
    await graph?.close();
  });

  const worker = async () => {
    const d = new SendDispatcher({
      queue: t.services.sendQueue,
      handle: (jobs) => t.services.sendWorker.handleBatch(jobs),
      databaseUrl: t.databaseUrl,
      logger: pino({ level: 'silent' }),
    });
    await d.start();
    dispatchers.push(d);
    return d;
  };

  /**
   * A WhatsApp channel on the fake Graph API, and a sender of text messages through its key, as the
   * send route accepts them (the route itself: test/outbound/send-message.test.ts).
   */
  const channel = async () => {
    const { apiKey: key } = await createWhatsAppChannel(f, { withApiKey: true });
    const apiChannel = await t.services.channelKeys.authenticate(key);
    return async (phone: string, text: string) => {
      const { requestId } = await t.services.send.accept(
        apiChannel,
        { contact: { value: phone }, message: { type: 'text', text: { value: text } } },
        undefined,
      );
      assert.match(requestId, /^[0-9a-f-]{36}$/);
      return requestId;
    };
  };

  const to = (r: RecordedRequest) => (r.json as { to?: string } | undefined)?.to;
  const textOf = (r: RecordedRequest) => (r.json as { text?: { body?: string } } | undefined)?.text?.body;

  /** Bounded wait for a condition on what the provider received. */
  const until = async (what: string, cond: () => boolean) => {
    for (let i = 0; i < 750 && !cond(); i++) await sleep(20);
    assert.ok(cond(), what);
  };

  const statuses = async (ids: readonly string[]) =>
    (
      await direct.query<{ status: string }>(
        'SELECT status FROM request_logs WHERE request_id = ANY($1::uuid[])',
        [ids],
      )
    ).rows.map((r) => r.status);

  it("frees a contact's lane as soon as its job is recorded, while another job of the same fetch waits", async () => {
    const send = await channel();
    const slow = '5511911000001';
    const fast = '5511911000002';
    // Queued before the worker starts: one fetch leases both contacts' lanes.
    const ids = [await send(slow, 'lento'), await send(fast, 'primeira'), await send(fast, 'segunda')];
    const held = graph.holdWhere((r) => to(r) === `+${slow}`);
    const before = graph.requests.length;
    const d = await worker();
    try {
      await until('the second message to the other contact is sent while the first is still held', () =>
        graph.requests.slice(before).some((r) => textOf(r) === 'segunda'),
      );
    } finally {
      held.release();
    }
    await until('all three are sent', () => graph.requests.length - before === 3);
    for (let i = 0; i < 250 && (await statuses(ids)).some((s) => s !== 'sent'); i++) await sleep(20);
    assert.deepEqual(await statuses(ids), ['sent', 'sent', 'sent']);
    await d.stop();
    dispatchers.splice(dispatchers.indexOf(d), 1);
  });

  it(`has at most ${MAX_UNRECORDED} requests at the provider or answered and not yet recorded`, async () => {
    const send = await channel();
    const count = MAX_UNRECORDED + 20;
    const phones = Array.from({ length: count }, (_, i) => `55119120${String(i).padStart(5, '0')}`);
    await worker();
    // A first message to each contact opens its chat, so that the next one's conversation step is a
    // read that nothing below blocks.
    const first: string[] = [];
    for (const p of phones) first.push(await send(p, 'oi'));
    for (let i = 0; i < 750 && (await statuses(first)).some((s) => s !== 'sent'); i++) await sleep(20);
    assert.ok((await statuses(first)).every((s) => s === 'sent'));

    // Recording an outcome writes its events: with the event log locked against inserts here, every
    // answer waits to be recorded, as it would behind a slow database.
    const blocker = await direct.connect();
    const before = graph.requests.length;
    const ids: string[] = [];
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE events IN SHARE MODE');
      for (const p of phones) ids.push(await send(p, 'de novo'));
      await until(
        `${MAX_UNRECORDED} requests reach the provider`,
        () => graph.requests.length - before >= MAX_UNRECORDED,
      );
      // No event marks "no more": give the worker time to overreach if it would.
      await sleep(1_000);
      assert.equal(graph.requests.length - before, MAX_UNRECORDED);
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    await until('every request reaches the provider once', () => graph.requests.length - before === count);
    for (let i = 0; i < 500 && (await statuses(ids)).some((s) => s !== 'sent'); i++) await sleep(20);
    assert.ok((await statuses(ids)).every((s) => s === 'sent'));
  });
});
