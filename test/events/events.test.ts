import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';
import { createWhatsAppChannel, customerText, signedDelivery } from '../helpers/whatsapp.js';

// The event log: which changes write which events, their envelopes and seq order, the resync feed
// GET /api/events, retention, and the catalogue at /docs/events.json that describes them.

type Envelope = Record<string, unknown> & { seq: number; event: string; data: Record<string, unknown> };

let phoneSeq = 0;
const phone = () => `5511988${String(++phoneSeq).padStart(6, '0')}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('event log', () => {
  let t: TestApp;
  let f: Fixture;
  let g: Fixture;
  let admin: GatewayClient;
  const clients: GatewayClient[] = [];
  /** Every envelope received live by any test client, to check against the catalogue at the end. */
  const seen: Envelope[] = [];

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
    g = await seedAccount(t.server.services);
    admin = await open(f.adminToken);
    await admin.ack('user_logged_in', f.admin.userId);
    await admin.ack(
      'user_join_team',
      f.teams.map((x) => x.id),
    );
  });
  after(async () => {
    for (const c of clients) {
      seen.push(...(c.events() as Envelope[]));
      c.close();
    }
    await t?.close();
  });

  async function open(token?: string) {
    const c = await connect(t.gatewayUrl!, token === undefined ? {} : { token });
    clients.push(c);
    return c;
  }
  const lastSeq = (fx = f) => fx.services.events.horizon.fresh();
  const log = async (token: string, after: number, limit?: number) => {
    const res = await t.request('GET', `/api/events?after=${after}${limit ? `&limit=${limit}` : ''}`, {
      headers: bearer(token),
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.json as { events: Envelope[]; nextAfter: number; hasMore: boolean };
  };
  const chatOf = async (id: string) =>
    (await t.request('GET', `/api/chats/${id}`, { headers: bearer(f.adminToken) })).json;
  /** Envelope fields, and seqs that follow each other from `from + 1`. */
  const assertRun = (events: Envelope[], names: string[], from: number) => {
    assert.deepEqual(
      events.map((e) => e.event),
      names,
    );
    events.forEach((e, i) => {
      assert.equal(e.seq, from + 1 + i);
      assert.equal(e.schemaVersion, 1);
      assert.equal(e.accountId, f.accountId);
      assert.match(String(e.id), UUID);
      assert.equal(new Date(String(e.occurredAt)).toISOString(), e.occurredAt);
    });
  };

  it('a Channel API transfer: chat.transfer then notification.new, in one transaction', async () => {
    const chatId = await f.inbound(0, phone());
    const agent1 = await open(f.agents[1]!.token);
    await agent1.ack('user_logged_in', f.agents[1]!.id);
    const before = await lastSeq();
    const res = await t.request('POST', `/channel-api/chats/${chatId}/transfer/user`, {
      headers: f.authHeader(),
      body: { userId: f.agents[1]!.id },
    });
    assert.equal(res.status, 200);
    const live = [await agent1.next('chat.transfer'), await agent1.next('notification.new')];
    const { events } = await log(f.agents[1]!.token, before);
    assertRun(events, ['chat.transfer', 'notification.new'], before);
    assert.deepEqual(events, live);
    // The event carries the agents' view of the chat: the Channel API's Chat plus its 24-hour window,
    // its customer, its snooze and the bot holding it.
    const {
      window: eventWindow,
      customerId,
      snooze,
      botId,
      ...eventChat
    } = events[0]!.data.chat as Record<string, unknown>;
    assert.deepEqual(eventChat, res.json);
    assert.equal(snooze, null);
    assert.equal(botId, null);
    const agentView = await t.request('GET', `/api/chats/${chatId}`, { headers: bearer(f.agents[1]!.token) });
    assert.deepEqual(eventWindow, agentView.json.window);
    assert.equal(customerId, agentView.json.customerId);
    // The notification is personal: the admin's share of the log has only the transfer.
    assert.deepEqual((await log(f.adminToken, before)).events, [events[0]]);
  });

  it('a sandbox inbound message: chat.new and message.upsert; then message.upsert and chat.update', async () => {
    const from = phone();
    const before = await lastSeq();
    const chatId = await f.inbound(0, from, 'Primeira');
    const chatNew = await admin.next(
      'chat.new',
      (e) => (e.data as { chat: { id: string } }).chat.id === chatId,
    );
    await f.inbound(0, from, 'Segunda');
    const { events } = await log(f.adminToken, before);
    assertRun(events, ['chat.new', 'message.upsert', 'message.upsert', 'chat.update'], before);
    assert.deepEqual(events[0], chatNew);
    const history = await t.request('GET', `/api/chats/${chatId}/messages`, {
      headers: bearer(f.adminToken),
    });
    const [second, first] = history.json.messages as Record<string, unknown>[];
    assert.deepEqual(events[1]!.data, { chatId, message: first });
    assert.deepEqual(events[2]!.data, { chatId, message: second });
    assert.deepEqual(events[3]!.data, { chat: await chatOf(chatId) });
    assert.equal((first!.content as { text: string }).text, 'Primeira');
  });

  it('a WhatsApp inbound message: chat.new and message.upsert with the wamid', async () => {
    const created = await createWhatsAppChannel(f, { name: 'WhatsApp' });
    const from = '5511987650001';
    const wamid = `wamid.events.${Date.now().toString(36)}`;
    const delivery = signedDelivery(
      created.phoneNumberId,
      created.appSecret,
      customerText({ from, id: wamid, body: 'Oi' }),
    );
    const before = await lastSeq();
    const res = await t.request('POST', `/webhooks/whatsapp/${created.id}`, delivery);
    assert.equal(res.status, 200);
    // Processed by a job: the team's connection hears of the new conversation.
    const chatNew = await admin.next(
      'chat.new',
      (e) => (e.data as { chat: { channelId: string } }).chat.channelId === created.id,
    );
    const { events } = await log(f.adminToken, before);
    assertRun(events, ['chat.new', 'message.upsert'], before);
    assert.deepEqual(events[0], chatNew);
    const message = events[1]!.data.message as Record<string, unknown>;
    assert.equal(message.providerMessageId, wamid);
    assert.equal(message.origin, 'contact');
    assert.deepEqual(message.content, { text: 'Oi', sentAt: '2025-04-11T04:08:16.000Z' });
  });

  it('an agent capture: chat.capture with the attendant; a queue move: chat.queue', async () => {
    const chatId = await f.inbound(0, phone());
    const before = await lastSeq();
    const capture = await t.request('POST', `/api/chats/${chatId}/capture`, {
      headers: bearer(f.agents[0]!.token),
    });
    assert.equal(capture.status, 200);
    const queue = await t.request('POST', `/api/chats/${chatId}/queue`, {
      headers: bearer(f.agents[0]!.token),
      body: { queue: 'Observação' },
    });
    const { events } = await log(f.agents[0]!.token, before);
    assertRun(events, ['chat.capture', 'chat.queue'], before);
    const by = { type: 'user', id: f.agents[0]!.id };
    assert.deepEqual(events[0]!.data, { chat: capture.json, by });
    assert.equal((capture.json as { userId: string }).userId, f.agents[0]!.id);
    assert.deepEqual(events[1]!.data, { chat: queue.json, from: 'Em Atendimento', to: 'Observação', by });
  });

  it('an agent reply: message.upsert queued and chat.update, then message.update sent and delivered', async () => {
    const chatId = await f.inbound(0, phone());
    await t.request('POST', `/api/chats/${chatId}/capture`, { headers: bearer(f.agents[0]!.token) });
    const agent = await open(f.agents[0]!.token);
    await agent.ack('user_start_attendance', chatId);
    const before = await lastSeq();
    const reply = await t.request('POST', `/api/chats/${chatId}/messages`, {
      headers: bearer(f.agents[0]!.token),
      body: { text: 'Bom dia!' },
    });
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    const upsert = await agent.next('message.upsert');
    assert.deepEqual(upsert.data, { chatId, message: reply.json });
    const sent = await agent.next('message.update');
    const delivered = await agent.next('message.update');
    assert.deepEqual(
      [sent, delivered].map((e) => (e.data as { message: { status: string } }).message.status),
      ['sent', 'delivered'],
    );
    const { events } = await log(f.agents[0]!.token, before);
    assertRun(events, ['message.upsert', 'chat.update', 'message.update', 'message.update'], before);
    assert.deepEqual([events[0], events[2], events[3]], [upsert, sent, delivered]);
    // A provider status report (here a read receipt) moves it on once more.
    const providerMessageId = String(
      (sent.data as { message: { providerMessageId: string } }).message.providerMessageId,
    );
    const outcome = await f.services.messageStatuses.apply(f.channels[0]!.id, {
      providerMessageId,
      status: 'read',
      timestamp: new Date(),
      recipient: null,
      error: null,
    });
    assert.equal(outcome, 'changed');
    const read = await agent.next('message.update');
    assert.equal((read.data as { message: { status: string } }).message.status, 'read');
    assert.equal(read.seq, (delivered.seq as number) + 1);
  });

  it('send-message: chat.new in queue API, message.upsert; closeConversation: chat.close then chat.new', async () => {
    const key = (
      await t.request('POST', `/api/channels/${f.channels[1]!.id}/api-key`, { headers: bearer(f.adminToken) })
    ).json.apiKey as string;
    const to = phone();
    const send = async (body: Record<string, unknown>) => {
      const res = await t.request('POST', '/channel-api/messages/send', {
        headers: { 'x-channel-api-key': key },
        body: { contact: { value: to }, message: { type: 'text', text: { value: 'Sua fatura' } }, ...body },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return String(res.json.requestId);
    };
    /**
     * The worker runs in the background and its message events go to attendance rooms no one can
     * join before the chat exists: the log is read until the request's message shows as delivered.
     */
    const delivered = async (requestId: string) => {
      for (;;) {
        const { events } = await log(f.adminToken, before);
        const done = events.find(
          (e) =>
            e.event === 'message.update' &&
            (e.data.message as { requestId: string; status: string }).requestId === requestId &&
            (e.data.message as { status: string }).status === 'delivered',
        );
        if (done) return events;
        await new Promise((r) => setTimeout(r, 50));
      }
    };
    const before = await lastSeq();
    const first = await send({});
    const opened = await admin.next(
      'chat.new',
      (e) => (e.data as { chat: { queue: string } }).chat.queue === 'API',
    );
    const chat = (opened.data as { chat: { id: string; teamId: string } }).chat;
    assert.equal(chat.teamId, f.teams[1]!.id);
    await delivered(first);

    const second = await send({ closeConversation: true });
    const closed = await admin.next('chat.close');
    assert.equal((closed.data as { chat: { id: string; status: string } }).chat.id, chat.id);
    assert.equal((closed.data as { chat: { status: string } }).chat.status, 'closed');
    const reopened = await admin.next('chat.new', (e) => {
      const c = (e.data as { chat: { id: string; queue: string } }).chat;
      return c.queue === 'API' && c.id !== chat.id;
    });
    const newChat = (reopened.data as { chat: { id: string } }).chat.id;
    const events = await delivered(second);

    const forChat = (id: string) =>
      events
        .filter((e) => e.data.chatId === id || (e.data.chat as { id?: string } | undefined)?.id === id)
        .map((e) => e.event);
    assert.deepEqual(forChat(chat.id), [
      'chat.new',
      'message.upsert',
      'chat.update',
      'message.update',
      'chat.close',
    ]);
    assert.deepEqual(forChat(newChat), ['chat.new', 'message.upsert', 'chat.update', 'message.update']);
    const upsert = events.find((e) => e.event === 'message.upsert' && e.data.chatId === newChat)!;
    const message = upsert.data.message as Record<string, unknown>;
    assert.equal(message.requestId, second);
    assert.equal(message.origin, 'api');
    assert.equal(message.status, 'sent');
    assert.deepEqual(
      events.find((e) => e.event === 'chat.close'),
      closed,
    );
    for (let i = 1; i < events.length; i++) assert.equal(events[i]!.seq, events[i - 1]!.seq + 1);
  });

  describe('GET /api/events', () => {
    it('gives each user only what they may see, in pages', async () => {
      const before = await lastSeq();
      const team0 = await f.inbound(0, phone());
      const team1 = await f.inbound(1, phone());
      const ids = (events: Envelope[]) =>
        events.map((e) => [e.event, (e.data.chat as { id?: string } | undefined)?.id ?? e.data.chatId]);
      assert.deepEqual(ids((await log(f.agents[0]!.token, before)).events), [
        ['chat.new', team0],
        ['message.upsert', team0],
      ]);
      assert.deepEqual(ids((await log(f.agents[1]!.token, before)).events), [
        ['chat.new', team1],
        ['message.upsert', team1],
      ]);
      const all = await log(f.adminToken, before);
      assert.deepEqual(ids(all.events), [
        ['chat.new', team0],
        ['message.upsert', team0],
        ['chat.new', team1],
        ['message.upsert', team1],
      ]);
      assert.deepEqual(
        { nextAfter: all.nextAfter, hasMore: all.hasMore },
        { nextAfter: before + 4, hasMore: false },
      );
      // Another account's user sees none of it, whatever `after` says.
      assert.deepEqual((await log(g.adminToken, 0)).events, []);

      const page1 = await log(f.adminToken, before, 3);
      assert.deepEqual(page1.events, all.events.slice(0, 3));
      assert.deepEqual(
        { nextAfter: page1.nextAfter, hasMore: page1.hasMore },
        { nextAfter: before + 3, hasMore: true },
      );
      const page2 = await log(f.adminToken, page1.nextAfter, 3);
      assert.deepEqual(page2.events, all.events.slice(3));
      assert.equal(page2.hasMore, false);
      // Agent 0's share ends before the log does: the page still says where to continue.
      const own = await log(f.agents[0]!.token, before + 2);
      assert.deepEqual(own, { events: [], nextAfter: before + 4, hasMore: false });
    });

    it('validates its query and needs a user token', async () => {
      const bad = await t.request('GET', '/api/events?limit=501', { headers: bearer(f.adminToken) });
      assert.deepEqual(bad.json, {
        statusCode: 400,
        message: ['limit must not be greater than 500'],
        error: 'Bad Request',
      });
      const anon = await t.request('GET', '/api/events');
      assert.equal(anon.status, 401);
    });

    it('keeps events for the retention period only', async () => {
      const before = await lastSeq();
      await f.inbound(0, phone());
      const kept = await log(f.adminToken, before);
      assert.equal(kept.events.length, 2);
      // Eight days from now, everything recorded so far is past the 7-day retention.
      const deleted = await f.services.events.purgeExpired(new Date(Date.now() + 8 * 24 * 3600 * 1000));
      assert.ok(deleted >= 2);
      assert.deepEqual((await log(f.adminToken, before)).events, []);
      // The seq counter goes on: a client's `after` stays meaningful.
      await f.inbound(0, phone());
      assert.equal((await log(f.adminToken, before)).events[0]!.seq, before + 3);
    });
  });

  describe('notifications', () => {
    it('lists and marks read; another user’s id is 404', async () => {
      const chatId = await f.inbound(0, phone());
      await t.request('POST', `/api/chats/${chatId}/transfer`, {
        headers: bearer(f.adminToken),
        body: { userId: f.agents[0]!.id },
      });
      const list = await t.request('GET', '/api/notifications?unreadOnly=true', {
        headers: bearer(f.agents[0]!.token),
      });
      const [n] = list.json.notifications as Record<string, unknown>[];
      const chat = (await t.request('GET', `/api/chats/${chatId}`, { headers: bearer(f.adminToken) })).json;
      const { name, value } = chat.contact as { name: string; value: string };
      assert.deepEqual(n!.data, {
        chatId,
        by: { type: 'user', id: f.admin.userId },
        contact: { name, value },
        reasonCode: null,
        reason: null,
      });
      const other = await t.request('POST', `/api/notifications/${String(n!.id)}/read`, {
        headers: bearer(f.agents[1]!.token),
      });
      assert.equal(other.status, 404);
      const read = await t.request('POST', `/api/notifications/${String(n!.id)}/read`, {
        headers: bearer(f.agents[0]!.token),
      });
      assert.equal(read.status, 200);
      assert.deepEqual({ ...read.json, readAt: null }, n);
      assert.equal(new Date(String(read.json.readAt)).toISOString(), read.json.readAt);
      const after = await t.request('GET', '/api/notifications?unreadOnly=true', {
        headers: bearer(f.agents[0]!.token),
      });
      assert.equal(after.json.unread, (list.json.unread as number) - 1);
    });
  });

  describe('/docs/events.json', () => {
    it('is an AsyncAPI 3 document whose schemas take every envelope the tests received', async () => {
      const res = await t.request('GET', '/docs/events.json');
      assert.equal(res.status, 200);
      const doc = res.json as {
        asyncapi: string;
        channels: Record<string, { address: string }>;
        components: { messages: Record<string, { name: string; payload: Record<string, unknown> }> };
      };
      assert.equal(doc.asyncapi, '3.0.0');
      const names = Object.values(doc.channels).map((c) => c.address);
      for (const e of [
        'message.upsert',
        'message.update',
        'chat.new',
        'chat.update',
        'chat.queue',
        'chat.capture',
        'chat.transfer',
        'chat.close',
        'notification.new',
        'draft.update',
        'session.ready',
        'user_logged_in',
        'user_join_team',
        'user_start_watch_chats',
        'user_start_attendance',
      ]) {
        assert.ok(names.includes(e), e);
      }
      const ajv = new Ajv({ strict: false, allErrors: true });
      (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
      const validators = new Map(
        Object.values(doc.components.messages).map((m) => [m.name, ajv.compile(m.payload)]),
      );
      const envelopes = clients.flatMap((c) => c.received);
      assert.ok(envelopes.length > 20);
      const kinds = new Set<string>();
      for (const r of envelopes) {
        const validate = validators.get(r.event);
        assert.ok(validate, `no schema for ${r.event}`);
        assert.ok(validate(r.payload), `${r.event}: ${JSON.stringify(validate.errors)}`);
        kinds.add(r.event);
      }
      assert.ok(kinds.size >= 8, [...kinds].join());
    });
  });
});
