import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ProviderError } from '../../src/providers/types.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { FakeGraph } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { createWhatsAppChannel, graphWebhook, hubSignature } from '../helpers/whatsapp.js';

// A channel whose access token the provider refuses (Graph error 190) is marked unhealthy by the first
// call that sees it — a send or a media upload —, its admins are notified once, sends on it fail at
// once with a clear reason (the provider is not called), and storing a new token makes it healthy.

const GOOD_TOKEN = 'test-token'; // the one the fake Graph API accepts
const EXPIRED = 'expired-token';

interface RequestLog {
  status: string;
  error: { code: string; message: string; details?: string } | null;
}

let seq = 0;
const phone = () => `55119878${String(++seq).padStart(5, '0')}`;

describe('channel health', () => {
  let fake: FakeGraph;
  let t: TestApp;
  let f: Fixture;
  const admin = () => ({ authorization: `Bearer ${f.adminToken}` });

  before(async () => {
    fake = await FakeGraph.start();
    t = await startTestApp({ env: { WHATSAPP_GRAPH_BASE_URL: fake.url, WHATSAPP_TIMEOUT_MS: '5000' } });
    f = await seedAccount(t.server.services);
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  /** A WhatsApp channel (default team 0, where agent 0 is a member) with its channel key. */
  const channel = async (token: string) => {
    const ch = await createWhatsAppChannel(f, { accessToken: token, withApiKey: true });
    assert.deepEqual(
      [ch.channel.health, ch.channel.healthReason, ch.channel.unhealthySince],
      ['ok', null, null],
    );
    return { ...ch, key: ch.apiKey };
  };

  const accept = async (key: string, message: unknown) => {
    const res = await t.request('POST', '/channel-api/messages/send', {
      headers: { 'x-channel-api-key': key },
      body: { contact: { value: phone() }, message },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.json.requestId as string;
  };
  const text = (value: string) => ({ type: 'text', text: { value } });
  const settled = async (key: string, requestId: string): Promise<RequestLog> => {
    for (let i = 0; i < 600; i++) {
      const res = await t.request('GET', `/channel-api/messages/requests/${requestId}`, {
        headers: { 'x-channel-api-key': key },
      });
      const log = res.body as RequestLog;
      if (log.status === 'sent' || log.status === 'failed') return log;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`request ${requestId} not settled in time`);
  };
  const getChannel = async (id: string) => {
    const res = await t.request('GET', `/api/channels/${id}`, { headers: admin() });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.json;
  };
  const notificationsOf = async (token: string, channelId: string) => {
    const res = await t.request('GET', '/api/notifications?limit=100', {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.json.notifications as { kind: string; data: Record<string, unknown> }[]).filter(
      (n) => n.kind === 'channel.unhealthy' && n.data.channelId === channelId,
    );
  };

  it('a refused token on send marks the channel unhealthy, notifies its admins once, and fails later sends at once', async () => {
    const ch = await channel(EXPIRED);
    const first = await Promise.all([accept(ch.key, text('um')), accept(ch.key, text('dois'))]);
    const logs = await Promise.all(first.map((id) => settled(ch.key, id)));
    assert.deepEqual(
      logs.map((l) => l.status),
      ['failed', 'failed'],
    );
    // The provider's own refusal for the first; the other saw it or was not sent at all.
    assert.ok(
      logs.some((l) => l.error?.code === '190'),
      JSON.stringify(logs),
    );
    for (const l of logs) assert.ok(['190', 'channel_unhealthy'].includes(l.error!.code));

    const c = await getChannel(ch.id);
    assert.equal(c.health, 'unhealthy');
    assert.equal((c.healthReason as { code: string }).code, '190');
    assert.equal(new Date(c.unhealthySince as string).toISOString(), c.unhealthySince);

    const notes = await notificationsOf(f.adminToken, ch.id);
    assert.equal(notes.length, 1);
    assert.deepEqual(notes[0]!.data, {
      channelId: ch.id,
      name: ch.name,
      reason: { code: '190', message: 'Invalid OAuth access token - Cannot parse access token' },
    });
    // Agents do not manage channels: not told.
    assert.deepEqual(await notificationsOf(f.agents[0]!.token, ch.id), []);

    // Now the provider is not called: a clear reason at once.
    const calls = fake.requests.length;
    const later = await settled(ch.key, await accept(ch.key, text('três')));
    assert.deepEqual(
      [later.status, later.error?.code, later.error?.message],
      [
        'failed',
        'channel_unhealthy',
        "The channel's access token was refused by the provider (expired or revoked); an admin must store a new one",
      ],
    );
    assert.equal(fake.requests.length, calls);
    assert.equal((await notificationsOf(f.adminToken, ch.id)).length, 1);

    // A new token: healthy again, and the next send goes out.
    const fixed = await t.request('PATCH', `/api/channels/${ch.id}`, {
      headers: admin(),
      body: { providerConfig: { accessToken: GOOD_TOKEN } },
    });
    assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
    assert.deepEqual(
      [fixed.json.health, fixed.json.healthReason, fixed.json.unhealthySince],
      ['ok', null, null],
    );
    assert.equal((await settled(ch.key, await accept(ch.key, text('quatro')))).status, 'sent');

    // Refused again later (revoked at Meta): marked again, and the admins are told again.
    fake.setToken('rotated-at-meta');
    try {
      const again = await settled(ch.key, await accept(ch.key, text('cinco')));
      assert.deepEqual([again.status, again.error?.code], ['failed', '190']);
    } finally {
      fake.setToken(GOOD_TOKEN);
    }
    assert.equal((await getChannel(ch.id)).health, 'unhealthy');
    assert.equal((await notificationsOf(f.adminToken, ch.id)).length, 2);
  });

  it('a refused token on media upload marks the channel unhealthy too', async () => {
    const ch = await channel(EXPIRED);
    const log = await settled(
      ch.key,
      await accept(ch.key, {
        type: 'media',
        media: {
          mimetype: 'application/pdf',
          filename: 'a.pdf',
          base64: Buffer.from('%PDF').toString('base64'),
        },
      }),
    );
    assert.deepEqual([log.status, log.error?.code], ['failed', '190']);
    assert.equal(fake.requests.at(-1)!.path, `/v23.0/${ch.phoneNumberId}/media`);
    assert.equal((await getChannel(ch.id)).health, 'unhealthy');
    assert.equal((await notificationsOf(f.adminToken, ch.id)).length, 1);
  });

  it("an agent's reply on an unhealthy channel fails with the reason shown, without calling the provider", async () => {
    const ch = await channel(EXPIRED);
    await settled(ch.key, await accept(ch.key, text('marca')));
    assert.equal((await getChannel(ch.id)).health, 'unhealthy');

    // A customer writes (inbound needs no token), an agent captures and replies.
    const raw = JSON.stringify(
      graphWebhook(ch.phoneNumberId, {
        contacts: [{ profile: { name: 'Maria' }, wa_id: '5511987650000' }],
        messages: [
          {
            from: '5511987650000',
            id: 'wamid.health.in',
            timestamp: '1744344496',
            type: 'text',
            text: { body: 'Oi' },
          },
        ],
      }),
    );
    const hook = await t.request('POST', `/webhooks/whatsapp/${ch.id}`, {
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(ch.appSecret, raw) },
      raw,
    });
    assert.equal(hook.status, 200);
    let chatId: string | undefined;
    for (let i = 0; i < 400 && !chatId; i++) {
      const row = await t.server.services.db
        .selectFrom('messages')
        .select('chat_id')
        .where('channel_id', '=', ch.id)
        .where('origin', '=', 'contact')
        .executeTakeFirst();
      chatId = row?.chat_id;
      if (!chatId) await new Promise((r) => setTimeout(r, 25));
    }
    assert.ok(chatId);
    const agent = { authorization: `Bearer ${f.agents[0]!.token}` };
    assert.equal((await t.request('POST', `/api/chats/${chatId}/capture`, { headers: agent })).status, 200);
    const calls = fake.requests.length;
    const reply = await t.request('POST', `/api/chats/${chatId}/messages`, {
      headers: agent,
      body: { text: 'Olá!' },
    });
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    let shown: Record<string, unknown> | undefined;
    for (let i = 0; i < 400 && shown?.status !== 'failed'; i++) {
      const history = await t.request('GET', `/api/chats/${chatId}/messages`, { headers: agent });
      shown = (history.json.messages as Record<string, unknown>[]).find((m) => m.id === reply.json.id);
      if (shown?.status !== 'failed') await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(shown?.status, 'failed');
    assert.equal((shown?.error as { code: string }).code, 'channel_unhealthy');
    assert.equal(fake.requests.length, calls);
  });

  it('a refusal of a token already replaced leaves the channel healthy', async () => {
    const ch = await channel(GOOD_TOKEN);
    // A call with the old token fails after the admin stored the new one.
    await t.server.services.channelHealth.credentialsRefused(
      { channelId: ch.id, config: { accessToken: 'the-old-token' } },
      new ProviderError('190', 'Error validating access token: Session has expired', false),
    );
    assert.equal((await getChannel(ch.id)).health, 'ok');
    assert.deepEqual(await notificationsOf(f.adminToken, ch.id), []);
  });
});
