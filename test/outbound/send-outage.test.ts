import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import { SendDispatcher } from '../../src/jobs/send-dispatcher.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/db.js';
import { FakeGraph, type RecordedRequest } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { createWhatsAppChannel } from '../helpers/whatsapp.js';
import { startProxy, type Proxy } from '../helpers/proxy.js';

// The send pipeline through a database outage longer than a lease: the provider accepts messages while
// the database is out of reach, and two workers (two dispatchers, as on two nodes) go on polling. Every
// accepted message must end `sent`, and none may reach the provider twice. The node reaches its
// database through a proxy the test cuts; the test's own checks use a direct connection.

const LEASE_MS = 1_000;
/** Longer than the lease: without its holder's renewals, the lease has expired when the database returns. */
const OUTAGE_MS = 3 * LEASE_MS;

describe('send pipeline through a database outage', () => {
  let database: { url: string; drop: () => Promise<void> };
  let proxy: Proxy;
  let graph: FakeGraph;
  let t: TestApp;
  let f: Fixture;
  let direct: pg.Pool;
  const dispatchers: SendDispatcher[] = [];

  before(async () => {
    database = await createTestDatabase();
    proxy = await startProxy(database.url);
    const proxied = new URL(database.url);
    proxied.port = new URL(proxy.url).port;
    graph = await FakeGraph.start();
    // The API role only: the send queue's workers are the dispatchers below, with a short lease.
    t = await startTestApp({
      databaseUrl: proxied.toString(),
      env: { ATENDE_ROLES: 'api', WHATSAPP_GRAPH_BASE_URL: graph.url },
    });
    f = await seedAccount(t.server.services);
    direct = new pg.Pool({ connectionString: database.url, max: 2 });
    for (let i = 0; i < 2; i++) {
      const d = new SendDispatcher({
        queue: t.server.services.sendQueue,
        handle: (jobs) => t.server.services.sendWorker.handleBatch(jobs),
        databaseUrl: proxied.toString(),
        logger: pino({ level: 'silent' }),
        leaseMs: LEASE_MS,
        pollMs: 100,
        retryBaseMs: 100,
        retryMaxMs: 200,
      });
      await d.start();
      dispatchers.push(d);
    }
  });
  after(async () => {
    proxy?.refuse(false);
    await Promise.all(dispatchers.map((d) => d.stop()));
    await direct?.end();
    await t?.close();
    await graph?.close();
    await proxy?.close();
    await database?.drop();
  });

  /** Bounded wait for the queue to hold no job: nothing can be sent any more after that. */
  const drained = async () => {
    for (let i = 0; i < 600; i++) {
      const { rows } = await direct.query<{ n: number }>('SELECT count(*)::int AS n FROM send_jobs');
      if (rows[0]!.n === 0) return;
      await sleep(50);
    }
    assert.fail('the send queue still holds jobs');
  };

  /** Provider calls per recipient. */
  const callsTo = (requests: readonly RecordedRequest[]) => {
    const calls = new Map<string, number>();
    for (const r of requests) {
      const to = (r.json as { to?: string } | undefined)?.to ?? '?';
      calls.set(to, (calls.get(to) ?? 0) + 1);
    }
    return calls;
  };

  /** Bounded wait until the provider has received `n` requests in all. */
  const providerReceived = async (n: number) => {
    for (let i = 0; i < 600 && graph.requests.length < n; i++) await sleep(20);
    assert.ok(graph.requests.length >= n, `the provider received ${n} requests`);
  };

  it('records every answer the provider gave during the outage, and sends none twice', async () => {
    const { apiKey: key } = await createWhatsAppChannel(f, { withApiKey: true });
    const phones = ['5511900000001', '5511900000002', '5511900000003', '5511900000004'];
    // The first three the provider receives are accepted while the database is away; the fourth gets
    // a temporary failure then: its requeue fails too, and it must be sent exactly once more.
    const held = [
      graph.holdNext(),
      graph.holdNext(),
      graph.holdNext(),
      graph.holdNext({ status: 503, raw: 'unavailable' }),
    ];
    const requestIds: string[] = [];
    for (const phone of phones) {
      const r = await t.request('POST', '/channel-api/messages/send', {
        headers: { 'x-channel-api-key': key },
        body: { contact: { value: phone }, message: { type: 'text', text: { value: `Olá ${phone}` } } },
      });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      requestIds.push(r.json.requestId as string);
    }
    await providerReceived(phones.length);
    // The scripted answers go to the requests in the order the provider received them, which need not
    // be the order they were accepted in (the worker sends to different contacts at once).
    const failed = (graph.requests[3]!.json as { to: string }).to;

    proxy.refuse(true);
    proxy.dropAll();
    for (const h of held) h.release();
    await sleep(OUTAGE_MS);
    proxy.refuse(false);
    await drained();

    const calls = callsTo(graph.requests);
    assert.deepEqual(
      phones.map((p) => calls.get(`+${p}`)),
      phones.map((p) => (`+${p}` === failed ? 2 : 1)),
      'one provider call per message, one more after the temporary failure',
    );
    const { rows } = await direct.query<{ request_id: string; status: string; provider_message_id: string }>(
      'SELECT request_id, status, provider_message_id FROM request_logs WHERE request_id = ANY($1::uuid[])',
      [requestIds],
    );
    assert.deepEqual(
      rows.map((r) => r.status),
      ['sent', 'sent', 'sent', 'sent'],
    );
    const messages = await direct.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM messages WHERE request_id = ANY($1::uuid[]) AND status = 'sent'`,
      [requestIds],
    );
    assert.equal(messages.rows[0]!.n, 4, 'one stored message per request');
  });

  it('records an agent reply the provider accepted during the outage, and sends it once', async () => {
    const channel = await createWhatsAppChannel(f);
    const row = await f.services.repos.channels.find(f.accountId, channel.id);
    assert.ok(row);
    const received = await f.services.inbound.receive(row, {
      contact: { value: '5511900000009', name: 'Cliente', providerAddress: '5511900000009' },
      type: 'text',
      content: { text: 'Oi' },
      summary: 'Oi',
      providerMessageId: 'wamid.inbound.outage',
    });
    assert.equal(received.duplicate, false);
    const chatId = received.duplicate ? '' : received.chatId;
    const agent = { authorization: `Bearer ${f.agents[0]!.token}` };
    assert.equal((await t.request('POST', `/api/chats/${chatId}/capture`, { headers: agent })).status, 200);

    const before = graph.requests.length;
    const held = graph.holdNext();
    const reply = await t.request('POST', `/api/chats/${chatId}/messages`, {
      headers: agent,
      body: { text: 'Bom dia!' },
    });
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    await providerReceived(before + 1);

    proxy.refuse(true);
    proxy.dropAll();
    held.release();
    await sleep(OUTAGE_MS);
    proxy.refuse(false);
    await drained();

    assert.equal(graph.requests.length - before, 1, 'the reply reached the provider once');
    const { rows } = await direct.query<{ status: string; provider_message_id: string | null }>(
      'SELECT status, provider_message_id FROM messages WHERE id = $1',
      [reply.json.id],
    );
    assert.equal(rows[0]?.status, 'sent');
    assert.match(rows[0]?.provider_message_id ?? '', /^wamid\./);
  });
});
