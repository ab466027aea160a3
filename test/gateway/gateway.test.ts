import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TokenService } from '../../src/lib/jwt.js';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, connectError, type GatewayClient } from '../helpers/gateway.js';

// The Socket.IO gateway on one node: handshake tokens, subscriptions and their acknowledgements, and
// which connections each event reaches (the table of docs/gateway.md "Events"), with whole envelopes.

let phoneSeq = 0;
const phone = () => `5511987${String(++phoneSeq).padStart(6, '0')}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN_ID = '0123456789abcdef01234567';

/** Checks the envelope's own fields and returns its data. */
function envelope(e: Record<string, unknown>, event: string, accountId: string): Record<string, unknown> {
  assert.deepEqual(Object.keys(e).sort(), [
    'accountId',
    'data',
    'event',
    'id',
    'occurredAt',
    'schemaVersion',
    'seq',
  ]);
  assert.equal(e.event, event);
  assert.equal(e.schemaVersion, 1);
  assert.equal(e.accountId, accountId);
  assert.match(String(e.id), UUID);
  assert.ok(Number.isInteger(e.seq) && (e.seq as number) > 0);
  assert.equal(new Date(String(e.occurredAt)).toISOString(), e.occurredAt);
  return e.data as Record<string, unknown>;
}

describe('gateway', () => {
  let t: TestApp;
  let f: Fixture;
  let g: Fixture; // another account
  let url: string;
  const clients: GatewayClient[] = [];
  const open = async (...args: Parameters<typeof connect>) => {
    const c = await connect(...args);
    clients.push(c);
    return c;
  };

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
    g = await seedAccount(t.server.services);
    url = t.gatewayUrl!;
  });
  after(async () => {
    for (const c of clients) c.close();
    await t?.close();
  });

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  // Events are sent by the gateway's tail of the log, after the request that wrote them has answered.
  const settled = () => t.server.gateway!.tail.settled();
  const chatOf = async (id: string, fx = () => f) =>
    (await t.request('GET', `/api/chats/${id}`, { headers: bearer(fx().adminToken) })).json;
  const contactOf = async (chatId: string) => ((await chatOf(chatId)).contact as { value: string }).value;

  describe('handshake', () => {
    it('takes the Authorization header first: a bad auth.token does not matter', async () => {
      const before = await f.services.events.horizon.fresh();
      const c = await open(url, { header: `Bearer ${f.agents[0]!.token}`, token: 'not-a-token' });
      const ready = c.received[0] as { event: string; payload: { seq: number } };
      // Where to resume from: nothing committed before the connection is past it.
      const seq = ready.payload.seq;
      assert.ok(seq >= before && seq <= (await f.services.events.horizon.fresh()), `seq ${seq}`);
      assert.deepEqual(ready, {
        event: 'session.ready',
        payload: { userId: f.agents[0]!.id, accountId: f.accountId, seq, recovered: false },
      });
    });

    it('takes auth.token, then the access_token cookie', async () => {
      const byAuth = await open(url, {
        token: f.agents[1]!.token,
        cookie: `access_token=${f.agents[0]!.token}`,
      });
      assert.equal((byAuth.received[0]!.payload as { userId: string }).userId, f.agents[1]!.id);
      const byCookie = await open(url, { cookie: `theme=dark; access_token=${f.agents[0]!.token}` });
      assert.equal((byCookie.received[0]!.payload as { userId: string }).userId, f.agents[0]!.id);
    });

    it('refuses an invalid or expired token, even with a valid one in a later source', async () => {
      const expired = await new TokenService(TEST_JWT_SECRET, -60).sign({
        version: 0,
        userId: f.agents[0]!.id,
        accountId: f.accountId,
      });
      for (const o of [
        { token: expired },
        { header: `Bearer ${expired}`, token: f.agents[0]!.token },
        { header: 'Bearer garbage', cookie: `access_token=${f.agents[0]!.token}` },
        { cookie: 'access_token=garbage' },
      ]) {
        const err = await connectError(url, o);
        assert.equal(err.message, 'unauthorized', JSON.stringify(o));
      }
    });

    it('accepts a connection without a token, with no identity', async () => {
      const anon = await open(url);
      assert.deepEqual(anon.received, [
        { event: 'session.ready', payload: { userId: null, accountId: null, seq: null, recovered: false } },
      ]);
    });
  });

  describe('subscriptions', () => {
    it('refuses every subscription of an anonymous connection, in its acknowledgement', async () => {
      const anon = await open(url);
      const chatId = await f.inbound(0, phone());
      const refused = { ok: false, error: 'unauthenticated' };
      assert.deepEqual(await anon.ack('user_logged_in', f.agents[0]!.id), refused);
      assert.deepEqual(await anon.ack('user_join_team', [f.teams[0]!.id]), refused);
      assert.deepEqual(await anon.ack('user_start_watch_chats', [chatId]), refused);
      assert.deepEqual(await anon.ack('user_start_attendance', chatId), refused);
    });

    it('joins only the own user room', async () => {
      const c = await open(url, { token: f.agents[0]!.token });
      assert.deepEqual(await c.ack('user_logged_in', f.agents[1]!.id), { ok: false, error: 'forbidden' });
      assert.deepEqual(await c.ack('user_logged_in', 42), { ok: false, error: 'invalid_argument' });
      assert.deepEqual(await c.ack('user_logged_in', f.agents[0]!.id), { ok: true, userId: f.agents[0]!.id });
    });

    it('joins the teams the user belongs to; every team of the account with chats:read_all', async () => {
      const agent = await open(url, { token: f.agents[0]!.token });
      const ids = [f.teams[0]!.id, f.teams[1]!.id, g.teams[0]!.id, UNKNOWN_ID, 'not-an-id'];
      assert.deepEqual(await agent.ack('user_join_team', ids), {
        ok: true,
        joined: [f.teams[0]!.id],
        refused: [f.teams[1]!.id, g.teams[0]!.id, UNKNOWN_ID, 'not-an-id'],
      });
      const admin = await open(url, { token: f.adminToken });
      assert.deepEqual(await admin.ack('user_join_team', ids), {
        ok: true,
        joined: [f.teams[0]!.id, f.teams[1]!.id],
        refused: [g.teams[0]!.id, UNKNOWN_ID, 'not-an-id'],
      });
      assert.deepEqual(await admin.ack('user_join_team', 'team'), { ok: false, error: 'invalid_argument' });
    });

    it('watches only chats the user may see, and a new list replaces the old one', async () => {
      const mine1 = await f.inbound(0, phone());
      const mine2 = await f.inbound(0, phone());
      const theirs = await f.inbound(1, phone());
      const foreign = await g.inbound(0, phone());
      const c = await open(url, { token: f.agents[0]!.token });
      assert.deepEqual(await c.ack('user_start_watch_chats', [mine1, theirs, foreign, mine2]), {
        ok: true,
        watching: [mine1, mine2],
        refused: [theirs, foreign],
      });
      assert.deepEqual(await c.ack('user_start_watch_chats', [mine2]), {
        ok: true,
        watching: [mine2],
        refused: [],
      });
      await f.inbound(0, await contactOf(mine1), 'to the unwatched chat');
      await f.inbound(0, await contactOf(mine2), 'to the watched chat');
      const update = envelope(await c.next('chat.update'), 'chat.update', f.accountId);
      assert.deepEqual(update, { chat: await chatOf(mine2) });
      await settled();
      await c.barrier();
      assert.deepEqual(
        c.events().map((e) => [e.event, (e.data as { chat: { id: string } }).chat.id]),
        [['chat.update', mine2]],
      );
    });

    it('attends one conversation at a time, one the user may see', async () => {
      const first = await f.inbound(0, phone());
      const second = await f.inbound(0, phone());
      const theirs = await f.inbound(1, phone());
      const c = await open(url, { token: f.agents[0]!.token });
      assert.deepEqual(await c.ack('user_start_attendance', theirs), { ok: false, error: 'not_found' });
      assert.deepEqual(await c.ack('user_start_attendance', first), { ok: true, chatId: first });
      assert.deepEqual(await c.ack('user_start_attendance', second), { ok: true, chatId: second });
      await f.inbound(0, await contactOf(first), 'left behind');
      await f.inbound(0, await contactOf(second), 'here');
      const upsert = envelope(await c.next('message.upsert'), 'message.upsert', f.accountId);
      assert.equal(upsert.chatId, second);
      await settled();
      await c.barrier();
      assert.deepEqual(
        c.events().map((e) => e.event),
        ['message.upsert'],
      );
    });
  });

  describe('each event reaches exactly the rooms of its row in the table', () => {
    // agent 0 (team 0), agent 1 (team 1), the admin (chats:read_all), another account's admin and an
    // anonymous connection, each subscribed to everything it is allowed.
    let a0: GatewayClient;
    let a1: GatewayClient;
    let admin: GatewayClient;
    let foreign: GatewayClient;
    let anon: GatewayClient;
    let all: GatewayClient[];
    let chatId: string;
    let from: string;

    /** `event` reached `receivers` (once each, whole envelope equal) and nobody else. */
    const reaches = async (
      event: string,
      receivers: GatewayClient[],
      check: (data: Record<string, unknown>) => Promise<void> | void,
    ): Promise<Record<string, unknown>> => {
      const got = await Promise.all(receivers.map((c) => c.next(event)));
      for (const e of got) assert.deepEqual(e, got[0]);
      await check(envelope(got[0]!, event, f.accountId));
      await settled();
      for (const c of all) await c.barrier();
      for (const c of all) {
        const n = c.events().filter((e) => e.event === event && e.id === got[0]!.id).length;
        assert.equal(n, receivers.includes(c) ? 1 : 0, `${event} delivered ${n} times to a client`);
      }
      return got[0]!;
    };
    const subscribe = async (c: GatewayClient, userId: string, teams: string[]) => {
      await c.ack('user_logged_in', userId);
      await c.ack('user_join_team', teams);
    };

    before(async () => {
      a0 = await open(url, { token: f.agents[0]!.token });
      a1 = await open(url, { token: f.agents[1]!.token });
      admin = await open(url, { token: f.adminToken });
      foreign = await open(url, { token: g.adminToken });
      anon = await open(url);
      all = [a0, a1, admin, foreign, anon];
      await subscribe(a0, f.agents[0]!.id, [f.teams[0]!.id]);
      await subscribe(a1, f.agents[1]!.id, [f.teams[1]!.id]);
      await subscribe(admin, f.admin.userId, [f.teams[0]!.id, f.teams[1]!.id]);
      await subscribe(foreign, g.admin.userId, [g.teams[0]!.id, g.teams[1]!.id]);
      for (const c of [anon, foreign]) await c.ack('user_join_team', [f.teams[0]!.id, f.teams[1]!.id]);
    });

    it('chat.new: team room of a new conversation', async () => {
      from = phone();
      const res = await t.request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/inbound`, {
        headers: bearer(f.adminToken),
        body: { from, text: 'Oi' },
      });
      assert.equal(res.status, 201);
      chatId = String(res.json.chatId);
      await reaches('chat.new', [a0, admin], async (data) => {
        assert.deepEqual(data, { chat: await chatOf(chatId) });
      });
      // The list item and the conversation: watched and attended by agent 0 only.
      assert.deepEqual(await a0.ack('user_start_watch_chats', [chatId]), {
        ok: true,
        watching: [chatId],
        refused: [],
      });
      assert.deepEqual(await a0.ack('user_start_attendance', chatId), { ok: true, chatId });
      for (const c of [a1, foreign]) {
        assert.deepEqual(await c.ack('user_start_watch_chats', [chatId]), {
          ok: true,
          watching: [],
          refused: [chatId],
        });
        assert.deepEqual(await c.ack('user_start_attendance', chatId), { ok: false, error: 'not_found' });
      }
    });

    it('message.upsert: attendance room; chat.update: chat room', async () => {
      await t.request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/inbound`, {
        headers: bearer(f.adminToken),
        body: { from, text: 'Ainda aí?' },
      });
      const history = await t.request('GET', `/api/chats/${chatId}/messages`, {
        headers: bearer(f.adminToken),
      });
      const newest = (history.json.messages as Record<string, unknown>[])[0]!;
      const upsert = await reaches('message.upsert', [a0], (data) => {
        assert.deepEqual(data, { chatId, message: newest });
        assert.equal((newest.content as { text: string }).text, 'Ainda aí?');
      });
      const update = await reaches('chat.update', [a0], async (data) => {
        const chat = await chatOf(chatId);
        assert.deepEqual(data, { chat });
        assert.equal(chat.unreadMessages, 2);
      });
      assert.equal(update.seq, (upsert.seq as number) + 1);
    });

    it('chat.capture: team, chat and the attendant’s user room, once per connection', async () => {
      const res = await t.request('POST', `/api/chats/${chatId}/capture`, {
        headers: bearer(f.agents[0]!.token),
      });
      assert.equal(res.status, 200);
      await reaches('chat.capture', [a0, admin], (data) => {
        assert.deepEqual(data, { chat: res.json, by: { type: 'user', id: f.agents[0]!.id } });
      });
    });

    it('chat.update on read; message.upsert of the attendant’s reply', async () => {
      const read = await t.request('POST', `/api/chats/${chatId}/read`, {
        headers: bearer(f.agents[0]!.token),
      });
      await reaches('chat.update', [a0], (data) => {
        assert.deepEqual(data, { chat: read.json });
        assert.equal(read.json.unreadMessages, 0);
      });
    });

    it('chat.transfer and notification.new: a Channel API transfer to a user of another team', async () => {
      const res = await t.request('POST', `/channel-api/chats/${chatId}/transfer/user`, {
        headers: f.authHeader(),
        body: { userId: f.agents[1]!.id, reasonCode: 'billing', reason: 'Pediu a 2ª via' },
      });
      assert.equal(res.status, 200);
      const transfer = await reaches('chat.transfer', [a0, a1, admin], (data) => {
        // Agents get the Channel API's Chat plus its 24-hour window (the customer wrote: open), its
        // customer, its snooze and the bot holding it.
        const {
          window: open,
          customerId: _customer,
          snooze: _snooze,
          botId: _bot,
          ...chat
        } = data.chat as Record<string, unknown>;
        assert.equal((open as { open: boolean }).open, true);
        assert.deepEqual(
          { ...data, chat },
          {
            chat: res.json,
            from: { teamId: f.teams[0]!.id, userId: f.agents[0]!.id },
            to: { teamId: f.teams[0]!.id, userId: f.agents[1]!.id },
            reasonCode: 'billing',
            reason: 'Pediu a 2ª via',
            by: { type: 'api_key', id: f.apiKey.split('_')[1] },
          },
        );
      });
      const notification = await reaches('notification.new', [a1], async (data) => {
        const list = await t.request('GET', '/api/notifications', { headers: bearer(f.agents[1]!.token) });
        assert.deepEqual(list.json, { notifications: [data.notification], unread: 1 });
        const n = data.notification as Record<string, unknown>;
        assert.equal(n.kind, 'chat.assigned');
        // The note names the contact and says why, so the agent need not open the chat to know.
        const contact = await chatOf(chatId);
        assert.deepEqual(n.data, {
          chatId,
          by: { type: 'api_key', id: f.apiKey.split('_')[1] },
          contact: { name: (contact.contact as { name: string }).name, value: await contactOf(chatId) },
          reasonCode: 'billing',
          reason: 'Pediu a 2ª via',
        });
        assert.equal(n.readAt, null);
      });
      assert.equal(notification.seq, (transfer.seq as number) + 1);
    });

    it('chat.transfer: an agent transfer to another team; watchers who lost the chat leave its rooms', async () => {
      const res = await t.request('POST', `/api/chats/${chatId}/transfer`, {
        headers: bearer(f.adminToken),
        body: { teamId: f.teams[1]!.id, reasonCode: 'billing', reason: '2ª via' },
      });
      assert.equal(res.status, 200);
      await reaches('chat.transfer', [a0, a1, admin], (data) => {
        assert.deepEqual(data, {
          chat: res.json,
          from: { teamId: f.teams[0]!.id, userId: f.agents[1]!.id },
          to: { teamId: f.teams[1]!.id, userId: null },
          reasonCode: 'billing',
          reason: '2ª via',
          by: { type: 'user', id: f.admin.userId },
        });
      });
      // Agent 0 watched and attended the chat, and may no longer see it: its updates stop.
      await t.request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/inbound`, {
        headers: bearer(f.adminToken),
        body: { from, text: 'Alguém?' },
      });
      await a1.ack('user_start_attendance', chatId);
      await a1.ack('user_start_watch_chats', [chatId]);
      await settled();
      await admin.barrier();
      for (const c of all) await c.barrier();
      assert.equal(a0.events().filter((e) => e.event === 'message.upsert').length, 1);
      assert.equal(a0.events().filter((e) => e.event === 'chat.update').length, 2);
    });

    it('chat.queue: old and new team rooms and the chat room', async () => {
      const res = await t.request('POST', `/api/chats/${chatId}/queue`, {
        headers: bearer(f.adminToken),
        body: { queue: 'Automação' },
      });
      assert.equal(res.status, 200);
      await reaches('chat.queue', [a1, admin], (data) => {
        assert.deepEqual(data, {
          chat: res.json,
          from: 'Espera',
          to: 'Automação',
          by: { type: 'user', id: f.admin.userId },
        });
      });
    });

    it('chat.snoozed and chat.unsnoozed: team, chat and attendant rooms', async () => {
      const res = await t.request('POST', `/api/chats/${chatId}/snooze`, {
        headers: bearer(f.adminToken),
        body: { untilCustomerMessage: true },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      await reaches('chat.snoozed', [a1, admin], (data) => {
        assert.deepEqual(data, {
          chat: res.json,
          until: null,
          untilCustomerMessage: true,
          by: { type: 'user', id: f.admin.userId },
        });
      });
      const back = await t.request('DELETE', `/api/chats/${chatId}/snooze`, {
        headers: bearer(f.adminToken),
      });
      assert.equal(back.status, 200);
      await reaches('chat.unsnoozed', [a1, admin], (data) => {
        assert.deepEqual(data, {
          chat: back.json,
          reason: 'manual',
          by: { type: 'user', id: f.admin.userId },
        });
      });
    });

    it('chat.close: team, chat and attendant rooms', async () => {
      const res = await t.request('POST', `/api/chats/${chatId}/close`, { headers: bearer(f.adminToken) });
      assert.equal(res.status, 200);
      await reaches('chat.close', [a1, admin], (data) => {
        assert.deepEqual(data, { chat: res.json, by: { type: 'user', id: f.admin.userId } });
        assert.equal(res.json.status, 'closed');
      });
    });

    it('draft.update: the user’s other connections', async () => {
      const other = await open(url, { token: f.agents[1]!.token });
      await other.ack('user_logged_in', f.agents[1]!.id);
      all.push(other);
      const mine = await f.inbound(1, phone());
      const res = await t.request('PUT', `/api/chats/${mine}/draft`, {
        headers: bearer(f.agents[1]!.token),
        body: { text: 'Olá, tudo bem?' },
      });
      assert.equal(res.status, 200);
      await reaches('draft.update', [a1, other], (data) => {
        assert.deepEqual(data, { draft: res.json });
        assert.deepEqual(Object.keys(res.json).sort(), ['chatId', 'text', 'updatedAt']);
      });
      const drafts = await t.request('GET', '/api/drafts', { headers: bearer(f.agents[1]!.token) });
      assert.deepEqual(drafts.body, [res.json]);
      // A chat the user may not see: 404, nothing sent.
      const theirs = await f.inbound(0, phone());
      const refused = await t.request('PUT', `/api/chats/${theirs}/draft`, {
        headers: bearer(f.agents[1]!.token),
        body: { text: 'x' },
      });
      assert.equal(refused.status, 404);
    });

    it('an anonymous connection and another account received nothing at all', async () => {
      await settled();
      for (const c of all) await c.barrier();
      assert.deepEqual(anon.events(), []);
      assert.deepEqual(foreign.events(), []);
    });
  });

  describe('connection-state recovery on one node', () => {
    it('a client back within the window is recovered: rooms kept, missed events in seq order', async () => {
      const from = phone();
      const chatId = await f.inbound(0, from);
      const c = await open(url, { token: f.agents[0]!.token });
      await c.ack('user_logged_in', f.agents[0]!.id);
      await c.ack('user_join_team', [f.teams[0]!.id]);
      await c.ack('user_start_watch_chats', [chatId]);
      await c.ack('user_start_attendance', chatId);
      const before = await f.services.events.horizon.fresh();

      // Drop the transport, and wait until the server has seen it (the session is kept then).
      const onServer = t.server.gateway!.io.of('/').sockets.get(c.socket.id!)!;
      const gone = new Promise((resolve) => onServer.once('disconnect', resolve));
      c.socket.io.engine.close();
      assert.equal(await gone, 'transport close');
      const dropped = c.received.length;

      await f.inbound(0, from, 'enquanto você estava fora');
      const capture = await t.request('POST', `/api/chats/${chatId}/capture`, {
        headers: bearer(f.agents[0]!.token),
      });
      assert.equal(capture.status, 200);
      await f.inbound(0, from, 'e mais esta');
      await settled();

      const back = new Promise((resolve) => c.socket.once('connect', () => resolve(undefined)));
      c.socket.connect();
      await back;
      assert.equal(c.socket.recovered, true);
      const ready = await c.next('session.ready');
      assert.deepEqual(ready, {
        userId: f.agents[0]!.id,
        accountId: f.accountId,
        seq: before + 5,
        recovered: true,
      });
      // The missed events came first, in order, exactly the agent's share of the log.
      const missed = c.received.slice(dropped, c.received.length - 1).map((r) => r.payload);
      const log = await t.request('GET', `/api/events?after=${before}`, {
        headers: bearer(f.agents[0]!.token),
      });
      assert.deepEqual(
        missed.map((e) => (e as { event: string }).event),
        ['message.upsert', 'chat.update', 'chat.capture', 'message.upsert', 'chat.update'],
      );
      assert.deepEqual(
        missed,
        (log.json.events as unknown[]).filter((e) => (e as { event: string }).event !== 'chat.new'),
      );
      // Rooms came back with the session: a new event arrives without subscribing again.
      await f.inbound(0, from, 'de volta');
      const live = await c.next('message.upsert', (e) => e.seq === before + 6);
      assert.equal((live.data as { chatId: string }).chatId, chatId);
    });
  });
});
