import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// A channel's built-in flow through the sandbox channel: admins set it (validated; 404 across
// accounts), a new conversation waits in `Automação` with the greeting and the menu, the customer's
// answer routes it as a transfer (re-prompt, attempts, timeout), out-of-hours and away messages,
// capture stops it, and auto-close with the CSAT question whose answer is recorded without opening a
// conversation. The timer is driven by calling its round with a later clock (no waiting).

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const HOUR = 3_600_000;

interface Msg {
  origin: string;
  type: string;
  automation: string | null;
  status: string;
  content: {
    text?: string;
    interactive?: { kind: string; button?: string; options: { id: string; title: string }[] };
  };
}

describe('built-in flows (sandbox channel)', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;
  let receiver: WebhookReceiver;
  let phoneSeq = 0;
  const clients: GatewayClient[] = [];
  const phone = () => `+55119${String(7000000 + ++phoneSeq).padStart(8, '0')}`;

  const flowPath = (channelId: string) => `/api/channels/${channelId}/flow`;
  const settings = (f: Fixture, over: Record<string, unknown> = {}) => ({
    enabled: true,
    greeting: 'Olá! Bem-vindo à Loja.',
    menu: {
      prompt: 'Como podemos ajudar?',
      options: [
        { label: 'Vendas', teamId: f.teams[0]!.id },
        { label: 'Suporte', teamId: f.teams[1]!.id },
      ],
      interactive: true,
      invalidReply: 'Opção inválida.',
      maxAttempts: 2,
      timeoutMinutes: 10,
    },
    outOfHoursMessage: 'Fora do horário.',
    awayMessage: 'Ninguém online agora.',
    autoClose: { hours: 2, message: 'Encerramos por falta de resposta.' },
    csat: {
      question: 'Como foi o atendimento? 1 a 5',
      thanks: 'Obrigado pela avaliação!',
      invalidReply: 'Responda de 1 a 5.',
      windowHours: 4,
    },
    ...over,
  });
  const put = (token: string, channelId: string, body: unknown) =>
    t.request('PUT', flowPath(channelId), { headers: bearer(token), body });
  const chatOf = async (chatId: string) =>
    (await db.query('SELECT queue, team_id, user_id, status FROM chats WHERE id = $1', [chatId])).rows[0] as {
      queue: string;
      team_id: string;
      user_id: string | null;
      status: string;
    };
  const messagesOf = async (chatId: string): Promise<Msg[]> => {
    const res = await t.request('GET', `/api/chats/${chatId}/messages?limit=50`, {
      headers: bearer(f.adminToken),
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return [...(res.json.messages as Msg[])].reverse();
  };
  const flowTexts = (ms: Msg[]) => ms.filter((m) => m.automation === 'flow').map((m) => m.content.text ?? '');
  const setOnline = (userId: string, availability: string) =>
    db.query('UPDATE users SET availability = $2 WHERE id = $1', [userId, availability]);

  before(async () => {
    t = await startTestApp({ env: { ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 3 });
    receiver = await startReceiver();
  });
  after(async () => {
    for (const c of clients) c.close();
    await receiver?.close();
    await db?.end();
    await t?.close();
  });

  it('a channel never configured answers the defaults, disabled; agents may not read it; another account 404', async () => {
    const res = await t.request('GET', flowPath(f.channels[0]!.id), { headers: bearer(f.adminToken) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.json.configured, false);
    assert.equal(res.json.enabled, false);
    assert.deepEqual((res.json.menu as { options: unknown[] }).options, [
      { label: 'Equipe 0', teamId: f.teams[0]!.id },
    ]);
    const agent = await t.request('GET', flowPath(f.channels[0]!.id), {
      headers: bearer(f.agents[0]!.token),
    });
    assert.equal(agent.status, 403);
    const foreign = await t.request('GET', flowPath(other.channels[0]!.id), {
      headers: bearer(f.adminToken),
    });
    assert.equal(foreign.status, 404);
    const foreignPut = await put(f.adminToken, other.channels[0]!.id, settings(f));
    assert.equal(foreignPut.status, 404);
  });

  it('refuses what is wrong with 400 and says what', async () => {
    const foreignTeam = settings(f, {
      menu: { ...settings(f).menu, options: [{ label: 'Vendas', teamId: other.teams[0]!.id }] },
    });
    const res = await t.request('PUT', flowPath(f.channels[0]!.id), {
      headers: { ...bearer(f.adminToken), 'accept-language': 'pt-BR' },
      body: foreignTeam,
    });
    assert.equal(res.status, 400);
    assert.deepEqual(res.json.message, ['menu.options.0.teamId não é uma equipe ativa da conta']);
    const repeated = settings(f, {
      menu: {
        ...settings(f).menu,
        options: [
          { label: 'Vendas', teamId: f.teams[0]!.id },
          { label: 'vendas', teamId: f.teams[1]!.id },
        ],
      },
    });
    const res2 = await put(f.adminToken, f.channels[0]!.id, repeated);
    assert.equal(res2.status, 400);
    assert.deepEqual(res2.json.message, ['menu.options.1.label repeats option 1']);
    const empty = await put(
      f.adminToken,
      f.channels[0]!.id,
      settings(f, { menu: { ...settings(f).menu, options: [] } }),
    );
    assert.equal(empty.status, 400);
    const tooLong = await put(
      f.adminToken,
      f.channels[0]!.id,
      settings(f, { autoClose: { hours: 48, message: 'x' } }),
    );
    assert.equal(tooLong.status, 400);
    const agent = await put(f.agents[0]!.token, f.channels[0]!.id, settings(f));
    assert.equal(agent.status, 403);
  });

  it('an admin sets the flow; the change is an event of the account', async () => {
    const hook = await t.request('POST', '/api/webhooks', {
      headers: bearer(f.adminToken),
      body: { url: receiver.url, events: ['channel.flow', 'chat.csat'] },
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const console = await connect(t.gatewayUrl!, { token: f.adminToken });
    clients.push(console);
    const res = await put(f.adminToken, f.channels[0]!.id, settings(f));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.json.configured, true);
    assert.equal(res.json.enabled, true);
    const delivered = JSON.parse((await receiver.next()).body) as {
      event: string;
      data: { flow: { channelId: string } };
    };
    assert.equal(delivered.event, 'channel.flow');
    assert.equal(delivered.data.flow.channelId, f.channels[0]!.id);
    // Open consoles of the account hear it live, the same event as the webhook's.
    assert.deepEqual(await console.next('channel.flow'), delivered);
    const back = await t.request('GET', flowPath(f.channels[0]!.id), { headers: bearer(f.adminToken) });
    assert.deepEqual(back.json, res.json);
  });

  it('a new conversation waits in Automação with the greeting and the menu; "2" lands it in Suporte', async () => {
    await setOnline(f.agents[1]!.id, 'offline');
    const chatId = await f.inbound(0, phone(), 'Oi');
    assert.deepEqual(await chatOf(chatId), {
      queue: 'Automação',
      team_id: f.teams[0]!.id,
      user_id: null,
      status: 'open',
    });
    const before = await messagesOf(chatId);
    assert.deepEqual(
      before.map((m) => [m.origin, m.type, m.automation, m.status === 'failed' ? 'failed' : 'ok']),
      [
        ['contact', 'text', null, 'ok'],
        ['system', 'interactive', 'flow', 'ok'],
      ],
    );
    // The greeting opens the menu's message: one message to send, read as one.
    const opening = 'Olá! Bem-vindo à Loja.\n\nComo podemos ajudar?\n\n1. Vendas\n2. Suporte';
    assert.equal(before[1]!.content.text, opening);
    assert.deepEqual(before[1]!.content.interactive, {
      kind: 'button',
      body: opening,
      options: [
        { id: 'flow.option.1', title: 'Vendas' },
        { id: 'flow.option.2', title: 'Suporte' },
      ],
    });

    const same = await f.services.inbound.receiveSandbox(f.admin, f.channels[0]!.id, {
      from: (
        await db.query(
          'SELECT ct.value FROM chats c JOIN contacts ct ON ct.id = c.contact_id WHERE c.id = $1',
          [chatId],
        )
      ).rows[0].value,
      text: '2',
    });
    assert.equal(same.chatId, chatId);
    assert.deepEqual(await chatOf(chatId), {
      queue: 'Espera',
      team_id: f.teams[1]!.id,
      user_id: null,
      status: 'open',
    });
    // Nobody of Suporte is online: the away message.
    assert.deepEqual(flowTexts(await messagesOf(chatId)).slice(1), ['Ninguém online agora.']);
    // The routing is a transfer, in the activity with the option chosen.
    const activity = await t.request('GET', `/api/chats/${chatId}/activity`, {
      headers: bearer(f.adminToken),
    });
    const lines = (activity.json.items ?? activity.json.activity) as {
      kind: string;
      reasonCode: string | null;
      reason: string | null;
      by: unknown;
    }[];
    const transfer = lines.find((l) => l.kind === 'transfer.team');
    assert.deepEqual(transfer && [transfer.reasonCode, transfer.reason, transfer.by], [
      'flow.menu',
      'Suporte',
      null,
    ]);
    const recorded = await db.query(
      'SELECT actor_type, actor_id, to_team_id FROM chat_transfers WHERE chat_id = $1',
      [chatId],
    );
    assert.deepEqual(recorded.rows, [
      { actor_type: 'flow', actor_id: f.channels[0]!.id, to_team_id: f.teams[1]!.id },
    ]);
  });

  const newChat = async () => {
    const from = phone();
    const chatId = await f.inbound(0, from, 'Olá');
    const say = (text: string) =>
      f.services.inbound.receiveSandbox(f.admin, f.channels[0]!.id, { from, text });
    return { chatId, from, say };
  };

  it('an option by its label, an online agent: no away message', async () => {
    await setOnline(f.agents[1]!.id, 'online');
    const { chatId, say } = await newChat();
    await say('  suporte ');
    assert.equal((await chatOf(chatId)).team_id, f.teams[1]!.id);
    assert.deepEqual(flowTexts(await messagesOf(chatId)).length, 1);
  });

  it('a greeting too long to share the menu’s message goes before it, on its own', async () => {
    const greeting = `Olá! ${'Leia com atenção. '.repeat(55)}`.trim();
    const long = await put(f.adminToken, f.channels[0]!.id, settings(f, { greeting }));
    assert.equal(long.status, 200, JSON.stringify(long.body));
    try {
      const { chatId } = await newChat();
      assert.deepEqual(flowTexts(await messagesOf(chatId)), [
        greeting,
        'Como podemos ajudar?\n\n1. Vendas\n2. Suporte',
      ]);
    } finally {
      const back = await put(f.adminToken, f.channels[0]!.id, settings(f));
      assert.equal(back.status, 200, JSON.stringify(back.body));
    }
  });

  it('an invalid answer asks again; past the attempts the conversation goes to the default team', async () => {
    const { chatId, say } = await newChat();
    await say('quero falar com alguém');
    assert.equal((await chatOf(chatId)).queue, 'Automação');
    const texts = flowTexts(await messagesOf(chatId));
    assert.deepEqual(texts.slice(1), ['Opção inválida.', 'Como podemos ajudar?\n\n1. Vendas\n2. Suporte']);
    await say('7');
    assert.deepEqual(await chatOf(chatId), {
      queue: 'Espera',
      team_id: f.teams[0]!.id,
      user_id: null,
      status: 'open',
    });
    const tr = await db.query('SELECT reason_code FROM chat_transfers WHERE chat_id = $1', [chatId]);
    assert.deepEqual(tr.rows, [{ reason_code: 'flow.attempts' }]);
  });

  it('no answer within the timeout: the default team, once however many rounds run at the same time', async () => {
    const { chatId } = await newChat();
    const later = new Date(Date.now() + 11 * 60_000);
    const rounds = await Promise.all([
      f.services.flows.runDue(later),
      f.services.flows.runDue(later),
      f.services.flows.runDue(later),
    ]);
    assert.ok(rounds.reduce((a, b) => a + b, 0) >= 1);
    assert.deepEqual(await chatOf(chatId), {
      queue: 'Espera',
      team_id: f.teams[0]!.id,
      user_id: null,
      status: 'open',
    });
    const tr = await db.query('SELECT reason_code FROM chat_transfers WHERE chat_id = $1', [chatId]);
    assert.deepEqual(tr.rows, [{ reason_code: 'flow.timeout' }]);
  });

  it('out of the chosen team’s hours: the out-of-hours message, and the conversation still waits in its queue', async () => {
    const closed = Array.from({ length: 7 }, () => []);
    const hours = await t.request('PUT', `/api/teams/${f.teams[1]!.id}/business-hours`, {
      headers: bearer(f.adminToken),
      body: { weekly: closed },
    });
    assert.equal(hours.status, 200, JSON.stringify(hours.body));
    const { chatId, say } = await newChat();
    await say('2');
    assert.deepEqual(await chatOf(chatId), {
      queue: 'Espera',
      team_id: f.teams[1]!.id,
      user_id: null,
      status: 'open',
    });
    assert.deepEqual(flowTexts(await messagesOf(chatId)).slice(1), ['Fora do horário.']);
    await t.request('PUT', `/api/teams/${f.teams[1]!.id}/business-hours`, {
      headers: bearer(f.adminToken),
      body: { weekly: null },
    });
  });

  it('an agent captures the conversation from Automação: the flow stops', async () => {
    const { chatId, say } = await newChat();
    const cap = await t.request('POST', `/api/chats/${chatId}/capture`, {
      headers: bearer(f.agents[0]!.token),
    });
    assert.equal(cap.status, 200, JSON.stringify(cap.body));
    await say('2');
    assert.deepEqual(await chatOf(chatId), {
      queue: 'Em Atendimento',
      team_id: f.teams[0]!.id,
      user_id: f.agents[0]!.id,
      status: 'open',
    });
    assert.equal(flowTexts(await messagesOf(chatId)).length, 1);
    await f.services.flows.runDue(new Date(Date.now() + HOUR));
    assert.equal((await chatOf(chatId)).user_id, f.agents[0]!.id);
  });

  it('a conversation waiting for an agent is not auto-closed, whatever the flow said last', async () => {
    await setOnline(f.agents[0]!.id, 'offline');
    const { chatId, say } = await newChat();
    await say('1');
    assert.equal(flowTexts(await messagesOf(chatId)).at(-1), 'Ninguém online agora.');
    await f.services.flows.runDue(new Date(Date.now() + 3 * HOUR));
    assert.equal((await chatOf(chatId)).status, 'open');
  });

  it('auto-close after the hours without the customer’s reply, with the closing message and the CSAT question; the answer is recorded, per attendant, without a new conversation', async () => {
    const { chatId, from, say } = await newChat();
    await say('1');
    const cap = await t.request('POST', `/api/chats/${chatId}/capture`, {
      headers: bearer(f.agents[0]!.token),
    });
    assert.equal(cap.status, 200);
    const reply = await t.request('POST', `/api/chats/${chatId}/messages`, {
      headers: bearer(f.agents[0]!.token),
      body: { text: 'Posso ajudar?' },
    });
    assert.equal(reply.status, 201);
    // Not yet: an hour later the conversation is still open.
    await f.services.flows.runDue(new Date(Date.now() + HOUR));
    assert.equal((await chatOf(chatId)).status, 'open');
    await f.services.flows.runDue(new Date(Date.now() + 3 * HOUR));
    assert.equal((await chatOf(chatId)).status, 'closed');
    const closing = await messagesOf(chatId);
    assert.deepEqual(flowTexts(closing).slice(-2), [
      'Encerramos por falta de resposta.',
      'Como foi o atendimento? 1 a 5',
    ]);
    const question = closing.at(-1)!;
    assert.equal(question.type, 'interactive');
    assert.equal(question.content.interactive?.kind, 'list');
    assert.deepEqual(
      question.content.interactive?.options.map((o) => o.id),
      ['flow.csat.1', 'flow.csat.2', 'flow.csat.3', 'flow.csat.4', 'flow.csat.5'],
    );
    // A number out of range is asked again; in the closed conversation.
    const wrong = await say('9');
    assert.equal(wrong.chatId, chatId);
    assert.deepEqual(flowTexts(await messagesOf(chatId)).slice(-2), [
      'Responda de 1 a 5.',
      'Como foi o atendimento? 1 a 5',
    ]);
    // The attendant's console hears the rating live.
    const attendant = await connect(t.gatewayUrl!, { token: f.agents[0]!.token });
    clients.push(attendant);
    assert.equal((await attendant.ack('user_logged_in', f.agents[0]!.id)).userId, f.agents[0]!.id);
    const answered = await say('4');
    assert.equal(answered.chatId, chatId);
    assert.equal(answered.chatCreated, false);
    assert.equal((await chatOf(chatId)).status, 'closed');
    assert.deepEqual(flowTexts(await messagesOf(chatId)).at(-1), 'Obrigado pela avaliação!');
    const csat = await t.request('GET', `/api/chats/${chatId}/csat`, { headers: bearer(f.adminToken) });
    assert.equal(csat.status, 200);
    assert.deepEqual(
      { ...(csat.json.csat as Record<string, unknown>), ratedAt: 'x' },
      { chatId, score: 4, teamId: f.teams[0]!.id, userId: f.agents[0]!.id, ratedAt: 'x' },
    );
    const open = await db.query(
      "SELECT count(*)::int AS n FROM chats c JOIN contacts ct ON ct.id = c.contact_id WHERE ct.value = $1 AND c.status = 'open'",
      [from.replace(/\D/g, '')],
    );
    assert.equal(open.rows[0].n, 0);
    // The event: the webhook hears it.
    const event = JSON.parse(
      (await receiver.next((r) => (JSON.parse(r.body) as { event: string }).event === 'chat.csat')).body,
    ) as { data: { csat: { score: number; userId: string } } };
    assert.deepEqual([event.data.csat.score, event.data.csat.userId], [4, f.agents[0]!.id]);
    assert.deepEqual(
      await attendant.next(
        'chat.csat',
        (e) => (e.data as { csat: { chatId: string } }).csat.chatId === chatId,
      ),
      event,
    );
    // Another account's chat: 404.
    const foreign = await t.request('GET', `/api/chats/${chatId}/csat`, {
      headers: bearer(other.adminToken),
    });
    assert.equal(foreign.status, 404);
    // The customer writes again: a new conversation, through the flow.
    const again = await say('Oi de novo');
    assert.notEqual(again.chatId, chatId);
    assert.equal((await chatOf(again.chatId)).queue, 'Automação');
  });

  it('an agent closes the conversation: the CSAT question; a message that is not a rating opens a new conversation', async () => {
    const { chatId, say } = await newChat();
    await say('1');
    await t.request('POST', `/api/chats/${chatId}/capture`, { headers: bearer(f.agents[0]!.token) });
    const close = await t.request('POST', `/api/chats/${chatId}/close`, {
      headers: bearer(f.agents[0]!.token),
    });
    assert.equal(close.status, 200, JSON.stringify(close.body));
    assert.equal(flowTexts(await messagesOf(chatId)).at(-1), 'Como foi o atendimento? 1 a 5');
    const next = await say('tenho outra dúvida');
    assert.notEqual(next.chatId, chatId);
    const csat = await t.request('GET', `/api/chats/${chatId}/csat`, { headers: bearer(f.adminToken) });
    assert.deepEqual(csat.json, { csat: null });
  });

  it('the rating list and the menu list speak the channel’s words; a typed label is a score', async () => {
    const base = settings(f);
    const labels = ['Very poor', 'Poor', 'Fair', 'Good', 'Excellent'];
    const options = ['Sales', 'Support', 'Billing', 'Other'].map((label, i) => ({
      label,
      teamId: f.teams[i % 2]!.id,
    }));
    const english = {
      ...base,
      menu: { ...base.menu, options, listButton: 'Choose' },
      csat: { ...base.csat, labels, listButton: 'Rate us' },
    };
    const res = await put(f.adminToken, f.channels[0]!.id, english);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const stored = res.json as {
      csat: { labels: string[]; listButton: string };
      menu: { listButton: string };
    };
    assert.deepEqual(
      [stored.csat.labels, stored.csat.listButton, stored.menu.listButton],
      [labels, 'Rate us', 'Choose'],
    );
    try {
      const { chatId, say } = await newChat();
      const menu = (await messagesOf(chatId)).at(-1)!;
      assert.deepEqual(
        [menu.content.interactive?.kind, menu.content.interactive?.button],
        ['list', 'Choose'],
      );
      await say('1');
      await t.request('POST', `/api/chats/${chatId}/capture`, { headers: bearer(f.agents[0]!.token) });
      const close = await t.request('POST', `/api/chats/${chatId}/close`, {
        headers: bearer(f.agents[0]!.token),
      });
      assert.equal(close.status, 200, JSON.stringify(close.body));
      const question = (await messagesOf(chatId)).at(-1)!;
      assert.deepEqual(
        [question.content.interactive?.button, question.content.interactive?.options.map((o) => o.title)],
        ['Rate us', labels],
      );
      const answered = await say('  good ');
      assert.equal(answered.chatId, chatId);
      const csat = await t.request('GET', `/api/chats/${chatId}/csat`, { headers: bearer(f.adminToken) });
      assert.equal((csat.json.csat as { score: number }).score, 4);
    } finally {
      const back = await put(f.adminToken, f.channels[0]!.id, base);
      assert.equal(back.status, 200, JSON.stringify(back.body));
    }
    // Four labels, or a button past 20 characters: 400.
    for (const wrong of [
      { ...base, csat: { ...base.csat, labels: labels.slice(0, 4) } },
      { ...base, menu: { ...base.menu, listButton: 'x'.repeat(21) } },
    ]) {
      const bad = await put(f.adminToken, f.channels[0]!.id, wrong);
      assert.equal(bad.status, 400, JSON.stringify(bad.body));
    }
  });

  it('the rating window ends: a later "5" opens a new conversation', async () => {
    const { chatId, say } = await newChat();
    await say('1');
    await t.request('POST', `/api/chats/${chatId}/capture`, { headers: bearer(f.agents[0]!.token) });
    await t.request('POST', `/api/chats/${chatId}/close`, { headers: bearer(f.agents[0]!.token) });
    await f.services.flows.runDue(new Date(Date.now() + 5 * HOUR));
    const wait = await db.query('SELECT 1 FROM chat_flows WHERE chat_id = $1', [chatId]);
    assert.equal(wait.rowCount, 0);
    const late = await say('5');
    assert.notEqual(late.chatId, chatId);
    assert.equal(late.chatCreated, true);
  });

  it('a channel without a flow opens conversations as before', async () => {
    const chatId = await f.inbound(1, phone(), 'Oi');
    assert.equal((await chatOf(chatId)).queue, 'Espera');
  });

  it('the events are in the published catalogue, and what webhooks received matches their schemas', async () => {
    const res = await t.request('GET', '/docs/events.json');
    assert.equal(res.status, 200);
    const doc = res.json as {
      components: { messages: Record<string, { name: string; payload: Record<string, unknown> }> };
    };
    const ajv = new Ajv({ strict: false, allErrors: true });
    (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
    for (const name of ['channel.flow', 'chat.csat']) {
      const message = Object.values(doc.components.messages).find((m) => m.name === name);
      assert.ok(message, `${name} is in the AsyncAPI document`);
      const validate = ajv.compile(message.payload);
      const sent = receiver.requests
        .map((r) => JSON.parse(r.body) as { event: string })
        .filter((e) => e.event === name);
      assert.ok(sent.length > 0, name);
      for (const e of sent) assert.ok(validate(e), JSON.stringify(validate.errors));
    }
  });
});
