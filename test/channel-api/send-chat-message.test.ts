import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// POST /channel-api/chats/{id}/messages (sendChatMessage): an account key with `chats:write` sends
// into an open chat by its id — the chat's contact on the chat's channel, queued as send-message is,
// 201 {requestId}; the message reaches the chat (a message.upsert of origin api). A key without the
// scope, another account's chat, a chat outside the key's channels or a closed chat: 404; a bad message:
// send-message's 400s; the Idempotency-Key answers the first request.

let phoneSeq = 0;
const phone = () => `5511944${String(++phoneSeq).padStart(6, '0')}`;

interface Envelope {
  event: string;
  data: {
    chatId: string;
    message: { id: string; origin: string; type: string; text?: unknown; chatId?: string };
  };
}

describe('POST /channel-api/chats/{id}/messages', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let receiver: WebhookReceiver;
  let writer: Record<string, string>;

  before(async () => {
    t = await startTestApp({ env: { ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    receiver = await startReceiver();
    writer = { authorization: `ApiKey ${await f.makeKey(['chats:write'])}` };
    const hook = await t.request('POST', '/api/webhooks', {
      headers: { authorization: `Bearer ${f.adminToken}` },
      body: { url: receiver.url, events: ['message.upsert'] },
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
  });
  after(async () => {
    await receiver?.close();
    await t?.close();
  });

  const send = (chatId: string, body: unknown, headers: Record<string, string> = writer) =>
    t.request('POST', `/channel-api/chats/${chatId}/messages`, { headers, body });
  const upsertOf = (chatId: string, origin: string) =>
    receiver.next((r) => {
      if (r.headers['atende-event'] !== 'message.upsert') return false;
      const e = JSON.parse(r.body) as Envelope;
      return e.data.chatId === chatId && e.data.message.origin === origin;
    });

  it('queues the message to the chat’s contact on its channel; it reaches the chat', async () => {
    const chatId = await f.inbound(0, phone(), 'Quero rastrear meu pedido');
    const res = await send(chatId, {
      message: { type: 'text', text: { value: 'Seu pedido saiu para entrega' } },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(String(res.json.requestId), /^[0-9a-f-]{36}$/);
    const delivered = JSON.parse((await upsertOf(chatId, 'api')).body) as Envelope;
    assert.equal(delivered.data.message.type, 'text');
    const messages = await t.request('GET', `/api/chats/${chatId}/messages`, {
      headers: { authorization: `Bearer ${f.adminToken}` },
    });
    const texts = (messages.json.messages as { origin: string; content: { text?: string } }[])
      .filter((m) => m.origin === 'api')
      .map((m) => m.content.text);
    assert.deepEqual(texts, ['Seu pedido saiu para entrega']);
  });

  it('the same Idempotency-Key answers the first request without queueing again', async () => {
    const chatId = await f.inbound(1, phone(), 'Oi');
    const body = { message: { type: 'text', text: { value: 'Uma vez só' } } };
    const headers = { ...writer, 'idempotency-key': `k-${Date.now()}` };
    const first = await send(chatId, body, headers);
    const again = await send(chatId, body, headers);
    assert.equal(first.status, 201);
    assert.equal(again.status, 201);
    assert.equal(again.json.requestId, first.json.requestId);
  });

  it('404: no chats:write, another account’s chat, a chat outside the key’s channels, a closed chat', async () => {
    const chatId = await f.inbound(0, phone(), 'Oi');
    const body = { message: { type: 'text', text: { value: 'Olá' } } };
    const reader = { authorization: `ApiKey ${await f.makeKey(['chats:read', 'chats:transfer'])}` };
    const notMine = await other.inbound(0, phone(), 'Oi');
    const channel1 = { authorization: `ApiKey ${await f.makeKey(['chats:write'], [f.channels[1]!.id])}` };
    const closed = await f.inbound(0, phone(), 'Oi');
    await t.request('POST', `/api/chats/${closed}/close`, {
      headers: { authorization: `Bearer ${f.adminToken}` },
    });
    for (const [id, headers] of [
      [chatId, reader],
      [notMine, writer],
      [chatId, channel1],
      [closed, writer],
      ['0123456789abcdef01234567', writer],
    ] as const) {
      const res = await send(id, body, headers);
      assert.equal(res.status, 404, `${id}: ${JSON.stringify(res.body)}`);
      assert.equal(res.json.statusCode, 404);
    }
    // A chat the key cannot reach is 404 even with a bad body (the contract's order).
    assert.equal((await send(notMine, { message: { type: 'nope' } })).status, 404);
    assert.equal((await t.request('POST', `/channel-api/chats/${chatId}/messages`, { body })).status, 401);
  });

  it('400: a message send-message refuses, a contact field, an unknown field', async () => {
    const chatId = await f.inbound(0, phone(), 'Oi');
    for (const body of [
      { message: { type: 'text', text: { value: '' } } },
      { message: { type: 'text', text: { value: 'x' } }, contact: { value: '5511999990000' } },
      { message: { type: 'text', text: { value: 'x' } }, extra: 1 },
      {},
    ]) {
      const res = await send(chatId, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.json.error, 'Bad Request');
    }
  });
});
