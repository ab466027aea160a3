import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { startReceiver, type ReceivedRequest, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// Bots (docs/adr/0087-bots.md): createBot/listBots/getBot/updateBot/deleteBot, a channel's routing
// (updateChannelBot), the bot's deliveries (only its conversations' events, signed with its secret),
// its answers through sendChatMessage (marked `automation: bot`), its hand-off and an agent's
// take-over (the bot hears `chat.bot_released`), and the safeguards: no answer in time, or an
// endpoint that fails, hands the conversation to the channel's team.

let phoneSeq = 0;
const phone = () => `5511955${String(++phoneSeq).padStart(6, '0')}`;

interface Envelope {
  event: string;
  data: {
    chat?: { id: string; queue: string; botId?: string | null; teamId: string; userId: string | null };
    chatId?: string;
    botId?: string;
    reason?: string;
    message?: { origin: string };
  };
}

interface CreatedBot {
  id: string;
  apiKey: string;
  secret: string;
  webhookId: string;
  apiKeyId: string;
  name: string;
}

const chatOf = (r: ReceivedRequest) => {
  const e = JSON.parse(r.body) as Envelope;
  return e.data.chat?.id ?? e.data.chatId;
};

function verify(r: ReceivedRequest, secret: string): Envelope {
  const sig = String(r.headers['atende-signature']);
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(sig);
  assert.ok(m, sig);
  const expected = createHmac('sha256', secret).update(`${m[1]}.${r.body}`).digest('hex');
  assert.equal(m[2], expected, 'signed with the bot’s secret');
  return JSON.parse(r.body) as Envelope;
}

describe('bots', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let receiver: WebhookReceiver;
  let failing: WebhookReceiver;
  let admin: Record<string, string>;

  before(async () => {
    t = await startTestApp({
      env: { ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ATENDE_BOT_POLL_MS: '200' },
    });
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    receiver = await startReceiver();
    failing = await startReceiver({ script: () => ({ status: 500 }) });
    admin = { authorization: `Bearer ${f.adminToken}` };
  });
  after(async () => {
    await receiver?.close();
    await failing?.close();
    await t?.close();
  });

  const createBot = async (body: Record<string, unknown>, fx: Fixture = f): Promise<CreatedBot> => {
    const res = await t.request('POST', '/api/bots', {
      headers: { authorization: `Bearer ${fx.adminToken}` },
      body,
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.json as unknown as CreatedBot;
  };
  const route = async (channelIndex: number, body: Record<string, unknown>) => {
    const res = await t.request('PUT', `/api/channels/${f.channels[channelIndex]!.id}/bot`, {
      headers: admin,
      body,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.json;
  };
  const chat = async (id: string) =>
    (await t.request('GET', `/api/chats/${id}`, { headers: admin })).json as unknown as {
      queue: string;
      botId: string | null;
      teamId: string;
      userId: string | null;
    };
  const released = (rcv: WebhookReceiver, chatId: string) =>
    rcv.next((r) => r.headers['atende-event'] === 'chat.bot_released' && chatOf(r) === chatId);

  describe('the API', () => {
    it('creates a bot with a key and a secret shown once, lists, gets and changes it', async () => {
      const bot = await createBot({ name: 'Atendente Virtual', url: receiver.url, replyTimeoutSeconds: 30 });
      assert.match(bot.apiKey, /^ak_/);
      assert.match(bot.secret, /^whsec_/);
      const list = await t.request('GET', '/api/bots', { headers: admin });
      const listed = (list.json as unknown as Record<string, unknown>[]).find((b) => b.id === bot.id);
      assert.ok(listed);
      assert.equal(listed.apiKey, undefined);
      assert.equal(listed.secret, undefined);
      assert.equal(listed.replyTimeoutSeconds, 30);
      assert.equal(listed.enabled, true);
      // Any user of the account reads bots (the console names the one holding a conversation).
      const asAgent = await t.request('GET', `/api/bots/${bot.id}`, {
        headers: { authorization: `Bearer ${f.agents[0]!.token}` },
      });
      assert.equal(asAgent.status, 200);
      assert.equal(asAgent.json.name, 'Atendente Virtual');
      const changed = await t.request('PATCH', `/api/bots/${bot.id}`, {
        headers: admin,
        body: { name: 'Robô', replyTimeoutSeconds: 45, rotateSecret: true },
      });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.equal(changed.json.name, 'Robô');
      assert.equal(changed.json.replyTimeoutSeconds, 45);
      assert.match(String(changed.json.secret), /^whsec_/);
      assert.notEqual(changed.json.secret, bot.secret);
      // Every user of the account hears each change (bot.update), an agent included.
      const log = await t.request('GET', '/api/events?limit=500', {
        headers: { authorization: `Bearer ${f.agents[0]!.token}` },
      });
      const updates = (log.json.events as { event: string; data: { bot?: { id: string; name: string } } }[])
        .filter((e) => e.event === 'bot.update' && e.data.bot?.id === bot.id)
        .map((e) => e.data.bot?.name);
      assert.deepEqual(updates, ['Atendente Virtual', 'Robô']);
      // Its endpoint is a webhook the admin sees, and changes only through the bot.
      const hook = await t.request('GET', `/api/webhooks/${bot.webhookId}`, { headers: admin });
      assert.equal(hook.json.botId, bot.id);
      const del = await t.request('DELETE', `/api/webhooks/${bot.webhookId}`, { headers: admin });
      assert.equal(del.status, 409);
    });

    it('answers 400 for bad input, 409 for a name taken, 403 for an agent, 404 for another account', async () => {
      const bad = await t.request('POST', '/api/bots', {
        headers: admin,
        body: { name: '', url: 'ftp://x', replyTimeoutSeconds: 1 },
      });
      assert.equal(bad.status, 400);
      const badUrl = await t.request('POST', '/api/bots', {
        headers: { ...admin, 'accept-language': 'en' },
        body: { name: 'X', url: 'not a url' },
      });
      assert.equal(badUrl.status, 400);
      await createBot({ name: 'Suporte', url: receiver.url });
      const taken = await t.request('POST', '/api/bots', {
        headers: { ...admin, 'accept-language': 'en' },
        body: { name: 'suporte', url: receiver.url },
      });
      assert.equal(taken.status, 409);
      assert.equal(taken.json.message, 'A bot with this name already exists');
      const agent = await t.request('POST', '/api/bots', {
        headers: { authorization: `Bearer ${f.agents[0]!.token}` },
        body: { name: 'Agente', url: receiver.url },
      });
      assert.equal(agent.status, 403);
      const theirs = await createBot({ name: 'Deles', url: receiver.url }, other);
      for (const [method, path, body] of [
        ['GET', `/api/bots/${theirs.id}`, undefined],
        ['PATCH', `/api/bots/${theirs.id}`, { name: 'Meu' }],
        ['DELETE', `/api/bots/${theirs.id}`, undefined],
        ['PUT', `/api/channels/${other.channels[0]!.id}/bot`, { botId: null }],
      ] as const) {
        const res = await t.request(method, path, { headers: admin, ...(body ? { body } : {}) });
        assert.equal(res.status, 404, `${method} ${path}`);
      }
      const foreignBot = await t.request('PUT', `/api/channels/${f.channels[1]!.id}/bot`, {
        headers: { ...admin, 'accept-language': 'en' },
        body: { botId: theirs.id },
      });
      assert.equal(foreignBot.status, 400);
      assert.deepEqual(foreignBot.json.message, ['botId is not a bot of the account']);
      const badHours = await t.request('PUT', `/api/channels/${f.channels[1]!.id}/bot`, {
        headers: { ...admin, 'accept-language': 'en' },
        body: { botId: null, hours: { timeZone: 'Mars/Olympus', weekly: null } },
      });
      assert.equal(badHours.status, 400);
      assert.deepEqual(badHours.json.message, ['hours.timeZone Mars/Olympus is not a known IANA time zone']);
      const overlap = await t.request('PUT', `/api/channels/${f.channels[1]!.id}/bot`, {
        headers: { ...admin, 'accept-language': 'en' },
        body: {
          botId: null,
          hours: {
            timeZone: 'UTC',
            weekly: [
              [
                { start: '08:00', end: '12:00' },
                { start: '11:00', end: '13:00' },
              ],
              [],
              [],
              [],
              [],
              [],
              [],
            ],
          },
        },
      });
      assert.deepEqual(overlap.json.message, ['hours.weekly.0.0 and hours.weekly.0.1 overlap']);
    });
  });

  describe('conversations', () => {
    let bot: CreatedBot;
    let bot2: CreatedBot;
    before(async () => {
      bot = await createBot({ name: 'Bot de conversa', url: receiver.url, replyTimeoutSeconds: 3600 });
      await route(0, { botId: bot.id });
    });

    it('a new conversation of the channel enters Automação held by the bot, who hears its events signed', async () => {
      const chatId = await f.inbound(0, phone(), 'Oi, bom dia');
      const c = await chat(chatId);
      assert.equal(c.queue, 'Automação');
      assert.equal(c.botId, bot.id);
      const created = verify(
        await receiver.next((r) => r.headers['atende-event'] === 'chat.new' && chatOf(r) === chatId),
        bot.secret,
      );
      assert.equal(created.data.chat?.botId, bot.id);
      const msg = verify(
        await receiver.next((r) => r.headers['atende-event'] === 'message.upsert' && chatOf(r) === chatId),
        bot.secret,
      );
      assert.equal(msg.data.message?.origin, 'contact');
      // Another channel's conversation is not the bot's: no delivery is made for it (deliveries are
      // written with their events, so the log is complete once the customer's message is stored).
      const elsewhere = await f.inbound(1, phone(), 'Olá');
      assert.equal((await chat(elsewhere)).queue, 'Espera');
      const log = await t.request('GET', `/api/webhooks/${bot.webhookId}/deliveries?limit=100`, {
        headers: admin,
      });
      const seqs = (log.json.items as { seq: number }[]).map((d) => d.seq);
      const events = await t.request('GET', `/api/events?limit=500`, { headers: admin });
      const ofElsewhere = ((events.json.events ?? []) as { seq: number; data: Envelope['data'] }[])
        .filter((e) => (e.data.chat?.id ?? e.data.chatId) === elsewhere)
        .map((e) => e.seq);
      assert.ok(ofElsewhere.length === 0 || ofElsewhere.every((s) => !seqs.includes(s)));
      assert.ok(seqs.length >= 2);
    });

    it('the bot answers through sendChatMessage: the message is marked as the bot’s', async () => {
      const chatId = await f.inbound(0, phone(), 'Quero saber do meu pedido');
      const res = await t.request('POST', `/channel-api/chats/${chatId}/messages`, {
        headers: { authorization: `ApiKey ${bot.apiKey}` },
        body: { message: { type: 'text', text: { value: 'Olá! Sou o robô.' } } },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const upsert = verify(
        await receiver.next(
          (r) =>
            r.headers['atende-event'] === 'message.upsert' &&
            chatOf(r) === chatId &&
            (JSON.parse(r.body) as Envelope).data.message?.origin === 'api',
        ),
        bot.secret,
      );
      assert.ok(upsert);
      const messages = await t.request('GET', `/api/chats/${chatId}/messages`, { headers: admin });
      const mine = (
        messages.json.messages as { origin: string; automation: string | null; botId: string | null }[]
      ).filter((m) => m.origin === 'api');
      assert.deepEqual(
        mine.map((m) => [m.automation, m.botId]),
        [['bot', bot.id]],
      );
    });

    it('the bot hands off to a team: Espera, no bot, and the bot is told', async () => {
      const chatId = await f.inbound(0, phone(), 'Quero falar com uma pessoa');
      const res = await t.request('POST', `/channel-api/chats/${chatId}/transfer/team`, {
        headers: { authorization: `ApiKey ${bot.apiKey}` },
        body: { teamId: f.teams[0]!.id },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const c = await chat(chatId);
      assert.equal(c.queue, 'Espera');
      assert.equal(c.botId, null);
      const told = verify(await released(receiver, chatId), bot.secret);
      assert.equal(told.data.reason, 'handoff');
      assert.equal(told.data.botId, bot.id);
      assert.equal(told.data.chat?.botId, null);
      assert.equal(res.json.queue, 'Espera');
    });

    it('an agent takes over at any moment (capture): the bot is told, and hears no more of it', async () => {
      const chatId = await f.inbound(0, phone(), 'Oi');
      const res = await t.request('POST', `/api/chats/${chatId}/capture`, {
        headers: { authorization: `Bearer ${f.agents[0]!.token}` },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.json.queue, 'Em Atendimento');
      assert.equal(res.json.botId, null);
      const told = verify(await released(receiver, chatId), bot.secret);
      assert.equal(told.data.reason, 'agent');
      // The timeline says so.
      const activity = await t.request('GET', `/api/chats/${chatId}/activity`, { headers: admin });
      const kinds = (activity.json.activity as { kind: string; reasonCode: string | null }[]).map((a) => [
        a.kind,
        a.reasonCode,
      ]);
      assert.deepEqual(kinds[0], ['bot.released', 'agent']);
      const before = (
        await t.request('GET', `/api/webhooks/${bot.webhookId}/deliveries?limit=100`, { headers: admin })
      ).json.total as number;
      const reply = await t.request('POST', `/api/chats/${chatId}/messages`, {
        headers: { authorization: `Bearer ${f.agents[0]!.token}` },
        body: { text: 'Olá, sou a Ana' },
      });
      assert.ok(reply.status < 300, JSON.stringify(reply.body));
      const afterTotal = (
        await t.request('GET', `/api/webhooks/${bot.webhookId}/deliveries?limit=100`, { headers: admin })
      ).json.total as number;
      assert.equal(afterTotal, before, 'the agent’s reply is not delivered to the bot');
    });

    it('outside the routing’s hours a new conversation goes to the team as before', async () => {
      await route(0, {
        botId: bot.id,
        hours: { timeZone: 'America/Sao_Paulo', weekly: [[], [], [], [], [], [], []] },
      });
      const chatId = await f.inbound(0, phone(), 'Oi');
      const c = await chat(chatId);
      assert.equal(c.queue, 'Espera');
      assert.equal(c.botId, null);
      await route(0, { botId: bot.id, hours: null });
    });

    it('a bot that does not answer in time gives the conversation to the channel’s team', async () => {
      bot2 = await createBot({ name: 'Bot lento', url: receiver.url, replyTimeoutSeconds: 5 });
      await route(1, { botId: bot2.id });
      const chatId = await f.inbound(1, phone(), 'Alguém aí?');
      assert.equal((await chat(chatId)).botId, bot2.id);
      const told = verify(await released(receiver, chatId), bot2.secret);
      assert.equal(told.data.reason, 'timeout');
      const c = await chat(chatId);
      assert.equal(c.queue, 'Espera');
      assert.equal(c.teamId, f.teams[1]!.id);
      assert.equal(c.botId, null);
    });

    it('a bot whose endpoint fails gives the conversation to the team, saying so', async () => {
      const broken = await createBot({ name: 'Bot quebrado', url: failing.url, replyTimeoutSeconds: 5 });
      await route(1, { botId: broken.id });
      const chatId = await f.inbound(1, phone(), 'Oi?');
      // The release is the one event a person sees: in the timeline, with its reason.
      let lines: { kind: string; reasonCode: string | null }[] = [];
      while (!lines.some((l) => l.kind === 'bot.released')) {
        await failing.next((r) => chatOf(r) === chatId);
        lines = (await t.request('GET', `/api/chats/${chatId}/activity`, { headers: admin })).json
          .activity as typeof lines;
      }
      assert.deepEqual(
        lines.filter((l) => l.kind === 'bot.released').map((l) => l.reasonCode),
        ['failing'],
      );
      assert.equal((await chat(chatId)).queue, 'Espera');
    });

    it('deleting a bot hands its conversations over and revokes its key', async () => {
      const doomed = await createBot({
        name: 'Bot temporário',
        url: receiver.url,
        replyTimeoutSeconds: 3600,
      });
      await route(1, { botId: doomed.id });
      const chatId = await f.inbound(1, phone(), 'Oi');
      assert.equal((await chat(chatId)).botId, doomed.id);
      const del = await t.request('DELETE', `/api/bots/${doomed.id}`, { headers: admin });
      assert.equal(del.status, 204);
      const c = await chat(chatId);
      assert.equal(c.queue, 'Espera');
      assert.equal(c.botId, null);
      const key = await t.request('GET', '/channel-api/teams', {
        headers: { authorization: `ApiKey ${doomed.apiKey}` },
      });
      assert.equal(key.status, 401);
      assert.equal((await t.request('GET', `/api/bots/${doomed.id}`, { headers: admin })).status, 404);
      const channel = await t.request('GET', `/api/channels`, { headers: admin });
      const ch = (channel.json as unknown as { id: string; botId: string | null }[]).find(
        (x) => x.id === f.channels[1]!.id,
      );
      assert.equal(ch?.botId, null);
    });
  });
});
