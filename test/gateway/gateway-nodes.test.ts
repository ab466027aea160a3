import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, pidOf, type GatewayClient } from '../helpers/gateway.js';
import { startProxy, type Proxy } from '../helpers/proxy.js';

// Several nodes on one PostgreSQL and one Redis: events caused on any node (with or without the
// gateway role) reach clients on every node, and a client recovers its session on another node
// (the Redis Streams adapter keeps sessions and missed packets in Redis). Needs REDIS_URL.

const REDIS_URL = process.env.REDIS_URL;
const SESSION_KEY = 'atende:sio:session:';
let phoneSeq = 0;
const phone = () => `5511989${String(++phoneSeq).padStart(6, '0')}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Waits for a state that has no event of its own (a key in Redis), checking it every few ms. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('gateway on several nodes', { skip: REDIS_URL ? false : 'needs REDIS_URL' }, () => {
  let a: TestApp;
  let b: TestApp;
  let api: TestApp; // api and worker roles, no gateway
  let f: Fixture;
  let redis: Redis;
  let proxy: Proxy;
  const clients: GatewayClient[] = [];

  before(async () => {
    const env = { REDIS_URL: REDIS_URL! };
    a = await startTestApp({ env });
    b = await startTestApp({ env, databaseUrl: a.databaseUrl });
    api = await startTestApp({ env: { ...env, ATENDE_ROLES: 'api,worker' }, databaseUrl: a.databaseUrl });
    assert.equal(api.gatewayUrl, null);
    f = await seedAccount(a.server.services);
    redis = new Redis(REDIS_URL!);
    proxy = await startProxy(a.gatewayUrl!);
  });
  after(async () => {
    for (const c of clients) c.close();
    await proxy?.close();
    redis?.disconnect();
    await api?.close();
    await b?.close();
    await a?.close();
  });

  const open = async (url: string, token: string) => {
    const c = await connect(url, { token });
    clients.push(c);
    return c;
  };
  const log = async (t: TestApp, token: string, after: number) =>
    (await t.request('GET', `/api/events?after=${after}`, { headers: bearer(token) })).json.events as Record<
      string,
      unknown
    >[];

  it('an event caused through one node reaches clients on every node', async () => {
    const onA = await open(a.gatewayUrl!, f.agents[0]!.token);
    const onB = await open(b.gatewayUrl!, f.agents[0]!.token);
    for (const c of [onA, onB]) await c.ack('user_join_team', [f.teams[0]!.id]);

    // Through node A's API.
    const res = await a.request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/inbound`, {
      headers: bearer(f.adminToken),
      body: { from: phone(), text: 'Oi' },
    });
    assert.equal(res.status, 201);
    const [seenOnA, seenOnB] = await Promise.all([onA.next('chat.new'), onB.next('chat.new')]);
    assert.deepEqual(seenOnB, seenOnA);
    assert.equal((seenOnB.data as { chat: { id: string } }).chat.id, res.json.chatId);

    // Through a node without the gateway: it only writes the events; the gateway nodes send them.
    const transfer = await api.request(
      'POST',
      `/channel-api/chats/${String(res.json.chatId)}/transfer/team`,
      {
        headers: f.authHeader(),
        body: { teamId: f.teams[0]!.id, reasonCode: 'nodes' },
      },
    );
    assert.equal(transfer.status, 200);
    const [tA, tB] = await Promise.all([onA.next('chat.transfer'), onB.next('chat.transfer')]);
    assert.deepEqual(tB, tA);
    // Agents' events carry the Channel API's Chat plus the customer's 24-hour window, customer, snooze
    // and the bot holding it.
    const {
      window: customerWindow,
      customerId,
      snooze: _snooze,
      botId: _bot,
      ...chat
    } = (tB.data as { chat: Record<string, unknown> }).chat;
    assert.equal(typeof customerId, 'string');
    assert.equal((customerWindow as { open: boolean }).open, true);
    assert.deepEqual(chat, transfer.json);
    assert.equal(tB.seq, (seenOnA.seq as number) + 2);
  });

  it('a client dropped from node A recovers on node B, with the events it missed', async () => {
    const from = phone();
    const chatId = await f.inbound(0, from);
    const c = await connect(proxy.url, { token: f.agents[0]!.token });
    clients.push(c);
    await c.ack('user_logged_in', f.agents[0]!.id);
    await c.ack('user_join_team', [f.teams[0]!.id]);
    await c.ack('user_start_watch_chats', [chatId]);
    await c.ack('user_start_attendance', chatId);
    assert.ok(a.server.gateway!.io.of('/').sockets.has(c.socket.id!), 'connected to node A');
    // What the log's tail sends of the events before these subscriptions (the chat's opening) is sent
    // now and, by an acknowledged round trip after it on the same connection, received before the
    // drop: only what happens while the client is away counts as missed.
    await Promise.all([a, b].map((n) => n.server.gateway!.tail.settled()));
    await c.ack('user_start_attendance', chatId);
    const before = await f.services.events.horizon.fresh();
    const pid = pidOf(c.socket)!;

    // The network drops; node A keeps the session in Redis for the recovery window.
    const disconnected = new Promise((resolve) => c.socket.once('disconnect', resolve));
    proxy.dropAll();
    await disconnected;
    await until(async () => (await redis.exists(SESSION_KEY + pid)) === 1, 'node A to keep the session');
    const dropped = c.received.length;

    // Meanwhile, through node B: a customer message and a capture.
    await b.request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/inbound`, {
      headers: bearer(f.adminToken),
      body: { from, text: 'enquanto você estava fora' },
    });
    const capture = await b.request('POST', `/api/chats/${chatId}/capture`, {
      headers: bearer(f.agents[0]!.token),
    });
    assert.equal(capture.status, 200);
    // Whichever node sends the log's events has sent these (a writer on the other node does not wait
    // for that node's tail): recovery restores what was sent while the client was away.
    await Promise.all([a, b].map((n) => n.server.gateway!.tail.settled()));

    // The load balancer now sends the client to node B.
    proxy.setTarget(b.gatewayUrl!);
    const back = new Promise((resolve) => c.socket.once('connect', () => resolve(undefined)));
    c.socket.connect();
    await back;
    assert.ok(b.server.gateway!.io.of('/').sockets.has(c.socket.id!), 'reconnected to node B');
    assert.equal(c.socket.recovered, true);
    const ready = await c.next('session.ready');
    const missed = c.received.slice(dropped, -1).map((r) => r.payload as { event: string; seq: number });
    assert.deepEqual(missed, await log(b, f.agents[0]!.token, before));
    assert.deepEqual(
      missed.map((e) => e.event),
      ['message.upsert', 'chat.update', 'chat.capture'],
    );
    // Where to resume from covers what it missed.
    assert.ok((ready.seq as number) >= missed.at(-1)!.seq, `session.ready seq ${String(ready.seq)}`);
    assert.deepEqual(ready, {
      userId: f.agents[0]!.id,
      accountId: f.accountId,
      seq: ready.seq,
      recovered: true,
    });
    // Its rooms came along: the next message reaches it on node B without subscribing again.
    await a.request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/inbound`, {
      headers: bearer(f.adminToken),
      body: { from, text: 'de volta' },
    });
    const live = await c.next('message.upsert', (e) => (e.seq as number) > missed.at(-1)!.seq);
    assert.equal((live.data as { chatId: string }).chatId, chatId);
  });

  it('a client back after the window is not recovered, and GET /api/events has what it missed', async () => {
    // A node with a short window, so the test need not wait two minutes.
    const short = await startTestApp({
      env: { REDIS_URL: REDIS_URL! },
      databaseUrl: a.databaseUrl,
      configure: (config) => {
        config.gatewayRecoveryMs = 500;
      },
    });
    try {
      const from = phone();
      const chatId = await f.inbound(0, from);
      const c = await connect(short.gatewayUrl!, { token: f.agents[0]!.token });
      clients.push(c);
      await c.ack('user_start_attendance', chatId);
      const ready = c.received[0]!.payload as { seq: number };
      const pid = pidOf(c.socket)!;

      const disconnected = new Promise((resolve) => c.socket.once('disconnect', resolve));
      c.socket.io.engine.close();
      await disconnected;
      await until(async () => (await redis.exists(SESSION_KEY + pid)) === 1, 'the session to be kept');
      await f.inbound(0, from, 'perdida');
      await until(async () => (await redis.exists(SESSION_KEY + pid)) === 0, 'the window to pass');

      const back = new Promise((resolve) => c.socket.once('connect', () => resolve(undefined)));
      c.socket.connect();
      await back;
      assert.equal(c.socket.recovered, false);
      const again = await c.next('session.ready');
      assert.equal(again.recovered, false);
      // Nothing came back with the connection; the log has it, from the last seq the client saw.
      await c.barrier();
      assert.deepEqual(
        c.received.map((r) => r.event),
        ['session.ready', 'session.ready'],
      );
      const missed = await log(short, f.agents[0]!.token, ready.seq);
      assert.deepEqual(
        missed.map((e) => [e.event, (e.data as { chatId?: string }).chatId]),
        [
          ['message.upsert', chatId],
          ['chat.update', undefined],
        ],
      );
      assert.equal(
        (missed[0]!.data as { message: { content: { text: string } } }).message.content.text,
        'perdida',
      );
      // Where to resume from is past what was written while it was away.
      assert.ok((again.seq as number) >= (missed.at(-1) as { seq: number }).seq, `seq ${String(again.seq)}`);
    } finally {
      await short.close();
    }
  });
});
