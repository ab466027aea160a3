import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { createWhatsAppChannel } from '../helpers/whatsapp.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';

// The sandbox customer reading what was sent to them (the simulator's read receipt): the agent's
// delivered messages become `read` through the provider-status path, each a message.update.

interface Message {
  id: string;
  origin: string;
  status: string;
}

describe('sandbox read receipt', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let seq = 0;
  const phone = () => `55119887${String(7000 + seq++).padStart(5, '0')}`;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const agent = () => bearer(f.agents[0]!.token);
  const read = (channelId: string, chatId: string, token = f.adminToken) =>
    t.request('POST', `/api/sandbox/channels/${channelId}/read`, {
      headers: bearer(token),
      body: { chatId },
    });

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
  });
  after(async () => {
    await t.close();
  });

  /** A chat on channel 0 captured by agent 0, with one reply delivered, watched by `gw`. */
  async function deliveredReply(gw: GatewayClient): Promise<{ chatId: string; reply: Message }> {
    const chatId = await f.inbound(0, phone(), 'Oi');
    assert.equal((await t.request('POST', `/api/chats/${chatId}/capture`, { headers: agent() })).status, 200);
    assert.equal((await gw.ack('user_start_attendance', chatId)).ok, true);
    const sent = await t.request('POST', `/api/chats/${chatId}/messages`, {
      headers: agent(),
      body: { text: 'Olá! Em que posso ajudar?' },
    });
    assert.equal(sent.status, 201);
    const id = String(sent.json.id);
    await gw.next('message.update', (e) => {
      const m = (e.data as { message: Message }).message;
      return m.id === id && m.status === 'delivered';
    });
    return { chatId, reply: { id, origin: 'user', status: 'delivered' } };
  }

  it('marks the delivered replies read, once, with a message.update each', async () => {
    const gw = await connect(t.gatewayUrl!, { token: f.agents[0]!.token });
    try {
      const { chatId, reply } = await deliveredReply(gw);
      const res = await read(f.channels[0]!.id, chatId);
      assert.equal(res.status, 200);
      assert.deepEqual(res.json, { read: 1 });
      const update = await gw.next('message.update', (e) => {
        const m = (e.data as { message: Message }).message;
        return m.id === reply.id && m.status === 'read';
      });
      assert.equal((update.data as { chatId: string }).chatId, chatId);

      const history = await t.request('GET', `/api/chats/${chatId}/messages`, { headers: agent() });
      const statuses = (history.json.messages as Message[]).map((m) => [m.origin, m.status]);
      assert.deepEqual(statuses, [
        ['user', 'read'],
        ['contact', 'received'],
      ]);
      // Nothing left to read: nothing changes.
      assert.deepEqual((await read(f.channels[0]!.id, chatId)).json, { read: 0 });
    } finally {
      gw.close();
    }
  });

  it('is for a user who may see the chat: its attendant too', async () => {
    const gw = await connect(t.gatewayUrl!, { token: f.agents[0]!.token });
    try {
      const { chatId } = await deliveredReply(gw);
      const res = await read(f.channels[0]!.id, chatId, f.agents[0]!.token);
      assert.deepEqual([res.status, res.json], [200, { read: 1 }]);
    } finally {
      gw.close();
    }
  });

  it('answers 404 for another account, another channel or an unknown chat, and 400 for bad input', async () => {
    const chatId = await f.inbound(0, phone(), 'Oi');
    const notFound = { statusCode: 404, message: 'Not Found', error: 'Not Found' };
    for (const [channelId, chat, token] of [
      [f.channels[0]!.id, chatId, other.adminToken], // another account's user
      [other.channels[0]!.id, chatId, f.adminToken], // another account's channel
      [f.channels[1]!.id, chatId, f.adminToken], // the chat is on channel 0
      [f.channels[0]!.id, '65f0c0ffee0000000000abcd', f.adminToken], // no such chat
    ] as const) {
      const res = await read(channelId, chat, token);
      assert.deepEqual([res.status, res.json], [404, notFound]);
    }
    const bad = await read(f.channels[0]!.id, 'nope');
    assert.deepEqual(
      [bad.status, bad.json],
      [
        400,
        { statusCode: 400, message: ['chatId must be a 24-character hexadecimal id'], error: 'Bad Request' },
      ],
    );
    const extra = await t.request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/read`, {
      headers: bearer(f.adminToken),
      body: { chatId, all: true },
    });
    assert.deepEqual(extra.json.message, ['property all should not exist']);
    const anonymous = await t.request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/read`, {
      body: { chatId },
    });
    assert.equal(anonymous.status, 401);
  });

  it('refuses a channel that is not a sandbox', async () => {
    const wa = await createWhatsAppChannel(f);
    const chatId = await f.inbound(0, phone(), 'Oi');
    const res = await read(wa.id, chatId);
    assert.deepEqual(
      [res.status, res.json],
      [400, { statusCode: 400, message: 'O canal não é um canal sandbox', error: 'Bad Request' }],
    );
  });
});
