import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import { httpRequest, startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/db.js';
import { FakeGraph } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import {
  createWhatsAppChannel,
  graphWebhook,
  hubSignature,
  type WhatsAppChannel,
} from '../helpers/whatsapp.js';

// A node with every role stopped while it works: sends reaching the (fake) provider, customers'
// messages coming in through the provider's webhook (jobs), and signed webhook deliveries going out,
// with a backlog of each and more arriving all along (requests to it, and to a second node that only
// serves the API). The stop must log no warning and no error — nothing may reach for the database
// after its pool is closed — and must lose nothing: what was in flight is finished, the rest is left
// for the next start, which sends each accepted message exactly once and delivers every webhook.
//
// The hard case is a claim still running when the stop begins: what it claims arrives after the stop
// started waiting. So that the stop meets one every time, the test holds the send queue's and the
// webhooks' tables locked (a slow database) until the node's lease of sends and its claim of
// deliveries are both waiting, with sends running and more due, stops the node, and lets the
// database go once the stop has begun. The deliveries that claim took run and are waited for; the
// sends that lease took are given back unsent (a send started at the stop and not finished within its
// bound, on a starved machine, went out a second time from the next worker). The provider takes its
// time over those sends, so that a stop that ran them without waiting would be over (its pool
// closed) before they are.

type Line = Record<string, unknown>;

const SEND_LOOPS = 8;
const INBOUND_LOOPS = 3;
const SANDBOX_LOOPS = 2;
/** Endpoints taking every event: each event is owed to all of them. */
const ENDPOINTS = 4;
/** Work queued before the node under test starts, and work it must have done before it is stopped. */
const BACKLOG = 300;
const PROGRESS = 100;
const BOUND_MS = 90_000;

async function until(what: string, fn: () => Promise<boolean> | boolean): Promise<void> {
  const deadline = Date.now() + BOUND_MS;
  while (!(await fn())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('stopping a node under load', () => {
  let database: { url: string; drop: () => Promise<void> };
  let graph: FakeGraph;
  let receiver: WebhookReceiver;
  let direct: pg.Pool;
  /** Serves the API before, during and after the stop; runs no worker. */
  let api: TestApp | null = null;
  /** The node under test: every role. */
  let node: TestApp | null = null;
  /** The next start: finishes what the stopped node left. */
  let next: TestApp | null = null;
  const logged: Line[] = [];
  /** The test's lock on the queues while it is held (released in `after` if the test fails with it). */
  let heldLock: pg.PoolClient | null = null;
  const env = {
    ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  };

  before(async () => {
    database = await createTestDatabase();
    graph = await FakeGraph.start();
    receiver = await startReceiver();
    direct = new pg.Pool({ connectionString: database.url, max: 3 });
    // The pool's end does not wait for its connections to close: the database's forced drop may still
    // end one, which must not become an uncaught error.
    direct.on('error', () => undefined);
    api = await startTestApp({
      databaseUrl: database.url,
      env: { ...env, WHATSAPP_GRAPH_BASE_URL: graph.url, ATENDE_ROLES: 'api' },
    });
  });
  after(async () => {
    if (heldLock) {
      await heldLock.query('ROLLBACK').catch(() => undefined);
      heldLock.release();
    }
    await node?.server.close();
    await next?.server.close();
    await api?.server.close();
    await direct?.end();
    await graph?.close();
    await receiver?.close();
    await database?.drop();
  });

  const count = async (query: string, params: unknown[] = []) =>
    (await direct.query<{ n: number }>(query, params)).rows[0]!.n;

  /**
   * Answers a transaction that holds `send_lanes` and `webhook_subscriptions` locked (every statement
   * on them waits) while the node's lease of sends and its claim of deliveries both wait for it, the
   * node has sends in flight, and some due sends are left for that lease: before the table lock, the
   * transaction takes a few due lanes' rows, which leases skip meanwhile. Tried again, after more
   * load, when that does not happen soon (the node had nothing in flight, or was between claims).
   */
  async function lockQueuesWhileClaiming(
    progress: () => number,
  ): Promise<{ lock: pg.PoolClient; lanes: string[] }> {
    for (let attempt = 0; attempt < 20; attempt++) {
      const lock = await direct.connect();
      await lock.query('BEGIN');
      let lanes: string[] = [];
      for (let i = 0; i < 200 && lanes.length === 0; i++) {
        if (i > 0) await new Promise((r) => setTimeout(r, 5));
        const res = await lock.query<{ lane: string }>(
          `SELECT lane FROM send_lanes
           WHERE pending > 0 AND leased_until IS NULL AND ready_at <= statement_timestamp()
           LIMIT 5 FOR UPDATE SKIP LOCKED`,
        );
        lanes = res.rows.map((r) => r.lane);
      }
      let waiting = false;
      if (lanes.length > 0) {
        await lock.query('LOCK TABLE send_lanes, webhook_subscriptions IN ACCESS EXCLUSIVE MODE');
        const held = await lock.query('SELECT 1 FROM send_lanes WHERE leased_until IS NOT NULL LIMIT 1');
        const deadline = Date.now() + 1_500;
        while (held.rowCount === 1 && !waiting && Date.now() < deadline) {
          const { rows: w } = await direct.query<{ lease: number; claim: number }>(
            `SELECT count(*) FILTER (WHERE query LIKE '%), leased AS (%')::int AS lease,
                    count(*) FILTER (WHERE query LIKE '%FOR UPDATE OF x SKIP LOCKED%')::int AS claim
             FROM pg_stat_activity
             WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
          );
          waiting = w[0]!.lease > 0 && w[0]!.claim > 0;
          if (!waiting) await new Promise((r) => setTimeout(r, 20));
        }
      }
      if (waiting) return { lock, lanes };
      await lock.query('ROLLBACK');
      lock.release();
      const before = progress();
      await until('more load', () => progress() >= before + 20);
    }
    assert.fail('the node never waited for a claim with sends in flight');
  }

  it('logs no warning or error, and leaves nothing accepted behind', { timeout: 4 * BOUND_MS }, async () => {
    const f: Fixture = await seedAccount(api!.server.services);
    const channel: WhatsAppChannel = await createWhatsAppChannel(f, { withApiKey: true });
    for (let i = 0; i < ENDPOINTS; i++) {
      const hook = await api!.request('POST', '/api/webhooks', {
        headers: { authorization: `Bearer ${f.adminToken}` },
        body: { url: `${receiver.url}/${i}`, events: ['*'] },
      });
      assert.equal(hook.status, 201, JSON.stringify(hook.body));
    }

    // The load goes to the node under test while it serves, and to the API node all along.
    let running = true;
    let nodeServes = false;
    /** Requests to the node under test not answered yet. */
    const toNode = new Set<Promise<void>>();
    const accepted: string[] = [];
    const received: string[] = [];
    const loop = async (request: (i: number, url: string) => Promise<void>) => {
      for (let i = 0; running; i++) {
        const onNode = nodeServes && i % 2 === 0;
        // A refused connection (the node stopped listening) or a 503: that one request is not accepted.
        const p = request(i, onNode ? node!.url : api!.url).catch(() => undefined);
        if (onNode) toNode.add(p);
        await p;
        toNode.delete(p);
      }
    };
    const sendLoop = (l: number) =>
      loop(async (i, url) => {
        const marker = `stop-${l}-${i}`;
        const res = await httpRequest(url, 'POST', '/channel-api/messages/send', {
          headers: { 'x-channel-api-key': channel.apiKey },
          body: {
            contact: { value: `55119870${String(l).padStart(2, '0')}${String(i % 50).padStart(3, '0')}` },
            message: { type: 'text', text: { value: marker } },
          },
        });
        if (res.status === 201) accepted.push(marker);
      });
    const inboundLoop = (l: number) =>
      loop(async (i, url) => {
        const id = `wamid.stop-${l}-${i}`;
        const from = `55219${String(l).padStart(2, '0')}${String(i).padStart(6, '0')}`;
        const raw = JSON.stringify(
          graphWebhook(channel.phoneNumberId, {
            contacts: [{ profile: { name: 'Cliente' }, wa_id: from }],
            messages: [
              {
                from,
                id,
                timestamp: String(Math.floor(Date.now() / 1000)),
                type: 'text',
                text: { body: 'Oi' },
              },
            ],
          }),
        );
        const res = await httpRequest(url, 'POST', `/webhooks/whatsapp/${channel.id}`, {
          headers: {
            'content-type': 'application/json',
            'x-hub-signature-256': hubSignature(channel.appSecret, raw),
          },
          raw,
        });
        if (res.status === 200) received.push(id);
      });
    // Customers of the sandbox channel: events (and their deliveries) written by the API node.
    const sandboxLoop = (l: number) =>
      loop(async (i) => {
        await f.inbound(l % 2, `55319${String(l).padStart(2, '0')}${String(i % 200).padStart(6, '0')}`);
      });
    const loops = [
      ...Array.from({ length: SEND_LOOPS }, (_, l) => sendLoop(l)),
      ...Array.from({ length: INBOUND_LOOPS }, (_, l) => inboundLoop(l)),
      ...Array.from({ length: SANDBOX_LOOPS }, (_, l) => sandboxLoop(l)),
    ];

    const sends = () => graph.requests.filter((r) => r.path.endsWith('/messages')).length;
    // A backlog of every kind of work before a worker runs.
    await until('a backlog', async () => {
      return (
        accepted.length >= BACKLOG &&
        received.length >= BACKLOG / 10 &&
        (await count('SELECT count(*)::int AS n FROM webhook_deliveries')) >= BACKLOG
      );
    });

    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean))
          logged.push(JSON.parse(line) as Line);
        done();
      },
    });
    node = await startTestApp({
      databaseUrl: database.url,
      // Room in its pool for every statement the locks below keep waiting (a few dozen at most), so
      // that none waits for a connection instead.
      env: { ...env, WHATSAPP_GRAPH_BASE_URL: graph.url, ATENDE_DB_POOL_SIZE: '40' },
      logger: pino({ level: 'info' }, sink),
    });
    nodeServes = true;
    const deliveriesBefore = receiver.requests.length;
    await until('the node to be at work', async () => {
      return (
        sends() >= PROGRESS &&
        receiver.requests.length - deliveriesBefore >= PROGRESS &&
        (await count(
          'SELECT count(*)::int AS n FROM inbound_webhook_events WHERE processed_at IS NOT NULL',
        )) >=
          PROGRESS / 10
      );
    });

    // From here on the load goes to the API node only, so that nothing holds up the node's own close.
    nodeServes = false;
    await Promise.all([...toNode]);
    const { lock, lanes } = await lockQueuesWhileClaiming(() => accepted.length);
    // Whatever fails from here on, the tables are let go: a lock held past a failure would leave the
    // node's close (in `after`) waiting on it for ever.
    heldLock = lock;
    // The sends that lease will find take the provider a while (more than the rest of the stop), so
    // that a stop that did not wait for them would be over before they are.
    const late = new Set(lanes.map((lane) => lane.slice(lane.indexOf(':') + 1).replace(/\D/g, '')));
    const slow = graph.holdWhere((r) =>
      late.has(String((r.json as { to?: unknown } | undefined)?.to).replace(/\D/g, '')),
    );

    // Stopped at work, as on SIGTERM (main.ts closes the server the same way). What it logs from here
    // on must be neither a warning nor an error.
    const stoppedAt = logged.length;
    const stopping = node.server.close();
    // Each loop closes its LISTEN connection as its stop begins.
    await until('the stop to begin', async () => {
      const listening = await count(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE query IN ('LISTEN atende_send', 'LISTEN atende_webhooks')",
      );
      return listening === 0;
    });
    heldLock = null;
    await lock.query('COMMIT');
    lock.release();
    setTimeout(() => slow.release(), 3_000);
    await stopping;
    node = null;
    running = false;
    await Promise.all(loops);

    // The next start finishes what the stopped node left: every accepted message sent exactly once,
    // every provider webhook processed, every webhook delivered.
    next = await startTestApp({
      databaseUrl: database.url,
      env: { ...env, WHATSAPP_GRAPH_BASE_URL: graph.url, ATENDE_ROLES: 'worker' },
    });
    await until('the send queue to drain', async () => {
      return (await count('SELECT count(*)::int AS n FROM send_jobs')) === 0;
    });
    const byMarker = new Map<string, number>();
    for (const r of graph.requests) {
      const body = (r.json as { text?: { body?: unknown } } | undefined)?.text?.body;
      if (r.path.endsWith('/messages') && typeof body === 'string' && body.startsWith('stop-'))
        byMarker.set(body, (byMarker.get(body) ?? 0) + 1);
    }
    assert.deepEqual(
      accepted.filter((m) => byMarker.get(m) !== 1).map((m) => `${m} sent ${byMarker.get(m) ?? 0} times`),
      [],
      'accepted messages not sent exactly once',
    );
    await until('every provider webhook to be processed', async () => {
      return (
        (await count('SELECT count(*)::int AS n FROM inbound_webhook_events WHERE processed_at IS NULL')) ===
        0
      );
    });
    assert.equal(
      await count('SELECT count(*)::int AS n FROM messages WHERE provider_message_id = ANY($1::text[])', [
        received,
      ]),
      received.length,
      'customer messages accepted but not stored',
    );
    await until('every webhook to be delivered', async () => {
      return (
        (await count("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'delivered'")) === 0
      );
    });

    const bad = logged.slice(stoppedAt).filter((l) => Number(l.level) >= 40);
    assert.deepEqual(bad, [], 'the stopped node logged warnings or errors');
  });
});

describe('a request in flight when the node stops', () => {
  it(
    'is answered, and its keep-alive connection closed then, not at the end of its keep-alive',
    { timeout: BOUND_MS },
    async () => {
      const graph = await FakeGraph.start();
      // An hour's keep-alive: a stop that waited for it would outlast the test.
      const t = await startTestApp({
        env: {
          ATENDE_ROLES: 'api',
          WHATSAPP_GRAPH_BASE_URL: graph.url,
          ATENDE_KEEP_ALIVE_TIMEOUT_MS: '3600000',
        },
      });
      try {
        const f = await seedAccount(t.server.services);
        const channel = await createWhatsAppChannel(f, { businessAccountId: '1029384756' });
        graph.setTemplates('1029384756', []);
        // Listing templates asks the provider, which holds its answer until the stop has begun.
        const held = graph.holdNext();
        const answer = fetch(`${t.url}/api/channels/${channel.id}/templates`, {
          headers: { authorization: `Bearer ${f.adminToken}` },
        }).then(async (res) => ({ status: res.status, body: await res.text() }));
        await graph.nextRequest();
        const stopping = t.server.close();
        held.release();
        const res = await answer;
        assert.equal(res.status, 200, res.body);
        await stopping;
      } finally {
        await t.close();
        await graph.close();
      }
    },
  );
});
