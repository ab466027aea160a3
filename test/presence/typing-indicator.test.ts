import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { FakeGraph, type RecordedRequest } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';
import { createWhatsAppChannel, graphWebhook, hubSignature } from '../helpers/whatsapp.js';

// While an agent types in a WhatsApp conversation, the customer sees "typing…": Meta's typing
// indicator, sent with the read receipt of the customer's latest message — only on a channel that
// sends read receipts, never for a private note, and at most once per chat per 20 seconds whoever
// types (the fake Graph API checks the payload's exact shape).

const PHONE_NUMBER_ID = '6660002222';
const APP_SECRET = 'typing-secret';
const MESSAGES_PATH = `/v23.0/${PHONE_NUMBER_ID}/messages`;

describe('WhatsApp typing indicator', () => {
  let fake: FakeGraph;
  let t: TestApp;
  let f: Fixture;
  let channelId: string;
  let inSeq = 0;
  const clients: GatewayClient[] = [];

  before(async () => {
    fake = await FakeGraph.start();
    t = await startTestApp({ env: { WHATSAPP_GRAPH_BASE_URL: fake.url, WHATSAPP_TIMEOUT_MS: '5000' } });
    f = await seedAccount(t.server.services);
    channelId = (await createWhatsAppChannel(f, { phoneNumberId: PHONE_NUMBER_ID, appSecret: APP_SECRET }))
      .id;
  });
  after(async () => {
    for (const c of clients) c.close();
    await t?.close();
    await fake?.close();
  });

  /** A customer message through a signed webhook; resolves once stored, with its chat and wamid. */
  const customerWrites = async (customer: string, body: string) => {
    const wamid = `wamid.typing.${++inSeq}`;
    const raw = JSON.stringify(
      graphWebhook(PHONE_NUMBER_ID, {
        contacts: [{ profile: { name: 'Clara' }, wa_id: customer }],
        messages: [{ from: customer, id: wamid, timestamp: '1744344496', type: 'text', text: { body } }],
      }),
    );
    const res = await t.request('POST', `/webhooks/whatsapp/${channelId}`, {
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(APP_SECRET, raw) },
      raw,
    });
    assert.equal(res.status, 200);
    for (let i = 0; i < 400; i++) {
      const row = await t.server.services.db
        .selectFrom('messages')
        .select(['id', 'chat_id'])
        .where('provider_message_id', '=', wamid)
        .executeTakeFirst();
      if (row) return { chatId: row.chat_id, messageId: row.id, wamid };
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('inbound message not stored in time');
  };
  const attend = async (token: string, chatId: string) => {
    const c = await connect(t.gatewayUrl!, { token });
    clients.push(c);
    assert.deepEqual(await c.ack('user_start_attendance', chatId), { ok: true, chatId });
    return c;
  };
  const type = async (c: GatewayClient, chatId: string, note?: boolean) =>
    assert.deepEqual(await c.ack('user_typing', { chatId, typing: true, ...(note ? { note } : {}) }), {
      ok: true,
      chatId,
      typing: true,
    });
  const indicator = (chatId: string) =>
    t.server.services.db
      .selectFrom('typing_indicators')
      .selectAll()
      .where('chat_id', '=', chatId)
      .executeTakeFirst();
  const sentIndicator = async (chatId: string) => {
    for (let i = 0; i < 400; i++) {
      const row = await indicator(chatId);
      if (row?.sent_at) return row;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('typing indicator not sent in time');
  };
  const expectTyping = (r: RecordedRequest, wamid: string) => {
    assert.equal(r.method, 'POST');
    assert.equal(r.path, MESSAGES_PATH);
    assert.equal(r.headers.authorization, 'Bearer test-token');
    assert.deepEqual(r.json, {
      messaging_product: 'whatsapp',
      status: 'read',
      message_id: wamid,
      typing_indicator: { type: 'text' },
    });
  };

  it('is not sent while the channel sends no read receipts (the default)', async () => {
    const { chatId } = await customerWrites('5511976540001', 'Oi');
    const c = await attend(f.agents[0]!.token, chatId);
    await type(c, chatId);
    // The claim is decided before the answer: there was none, so nothing is ever queued.
    assert.equal(await indicator(chatId), undefined);
    assert.equal(fake.requests.length, 0);
  });

  it('once on: sent with the latest customer message, once per chat per interval, whoever types', async () => {
    const on = await t.request('PATCH', `/api/channels/${channelId}`, {
      headers: { authorization: `Bearer ${f.adminToken}` },
      body: { sendReadReceipts: true },
    });
    assert.equal(on.status, 200);
    const customer = '5511976540002';
    await customerWrites(customer, 'Primeira');
    const latest = await customerWrites(customer, 'Segunda');
    const chatId = latest.chatId;

    const agent = await attend(f.agents[0]!.token, chatId);
    // A private note tells the customer nothing.
    await type(agent, chatId, true);
    assert.equal(await indicator(chatId), undefined);

    await type(agent, chatId);
    expectTyping(await fake.nextRequest(), latest.wamid);
    const sent = await sentIndicator(chatId);
    assert.equal(sent.message_id, latest.messageId);
    // It marked the message read: its read receipt counts as sent, and reading queues no other.
    const receipt = await t.server.services.db
      .selectFrom('read_receipts')
      .select('sent_at')
      .where('message_id', '=', latest.messageId)
      .executeTakeFirstOrThrow();
    assert.ok(receipt.sent_at);

    // Typing on, here and from another user's connection: debounced, no second claim.
    const admin = await attend(f.adminToken, chatId);
    await type(agent, chatId);
    await type(admin, chatId);
    assert.deepEqual(await indicator(chatId), sent);
    assert.equal(fake.requests.length, 1);

    // Once the interval has passed (moved back in the stored claim), typing sends the next one, with
    // the customer's message that is latest by then.
    const newer = await customerWrites(customer, 'Terceira');
    await t.server.services.db
      .updateTable('typing_indicators')
      .set({ claimed_at: new Date(Date.now() - 21_000) })
      .where('chat_id', '=', chatId)
      .execute();
    await type(admin, chatId);
    expectTyping(await fake.nextRequest(), newer.wamid);
    assert.equal((await sentIndicator(chatId)).message_id, newer.messageId);
    assert.equal(fake.requests.length, 2);
  });

  it('is not sent in a closed conversation', async () => {
    const { chatId } = await customerWrites('5511976540003', 'Oi');
    const c = await attend(f.adminToken, chatId);
    const closed = await t.request('POST', `/api/chats/${chatId}/close`, {
      headers: { authorization: `Bearer ${f.adminToken}` },
    });
    assert.equal(closed.status, 200, JSON.stringify(closed.body));
    await type(c, chatId);
    assert.equal(await indicator(chatId), undefined);
  });
});
