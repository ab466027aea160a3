import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// SLAs (docs/adr/0088-slas.md) over HTTP and the worker role: a team's targets (validated, 403 for
// agents, 404 for another account's team, an event on change); the customer's first message fixes the
// conversation's due instants in the team's business hours and the chat shows them; a person's reply
// before the due time means no breach; a conversation past its due time raises exactly one
// `sla.breached` — to a real gateway connection and a webhook — and notifies the team's supervisor.

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const MIN = 60_000;
let phoneSeq = 0;
const phone = () => `5511966${String(++phoneSeq).padStart(6, '0')}`;

interface ChatSla {
  startedAt: string;
  firstResponseDueAt: string | null;
  firstRespondedAt: string | null;
  firstResponseBreached: boolean;
  resolutionDueAt: string | null;
  resolutionBreached: boolean;
}

describe('SLAs', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;
  let receiver: WebhookReceiver;
  let supervisor: { id: string; token: string };
  const clients: GatewayClient[] = [];

  before(async () => {
    t = await startTestApp({
      env: { ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ATENDE_SLA_POLL_MS: '200' },
    });
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    receiver = await startReceiver();
    // A supervisor of team 0 (and the admin, who is in no team, is not one of its supervisors).
    const email = `sup${Date.now().toString(36)}@example.com`;
    const created = await t.request('POST', '/api/users', {
      headers: bearer(f.adminToken),
      body: { name: 'Supervisora', email, password: 'supervisor-password', role: 'supervisor' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const supervisorId = created.json.id as string;
    const team = await t.request('PATCH', `/api/teams/${f.teams[0]!.id}`, {
      headers: bearer(f.adminToken),
      body: { members: [f.agents[0]!.id, supervisorId] },
    });
    assert.equal(team.status, 200, JSON.stringify(team.body));
    const login = await t.request('POST', '/auth/login', {
      body: { email, password: 'supervisor-password' },
    });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    supervisor = { id: supervisorId, token: login.json.accessToken as string };
  });
  after(async () => {
    for (const c of clients) c.close();
    await receiver?.close();
    await db?.end();
    await t?.close();
  });

  const path = (teamId: string) => `/api/teams/${teamId}/sla`;
  const put = (token: string, teamId: string, body: unknown, headers: Record<string, string> = {}) =>
    t.request('PUT', path(teamId), { headers: { ...bearer(token), ...headers }, body });
  const chatOf = async (chatId: string) => {
    const res = await t.request('GET', `/api/chats/${chatId}`, { headers: bearer(f.adminToken) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.json as { id: string; contact: { value: string }; sla: ChatSla | null };
  };
  const breaches = async (chatId: string) => {
    const { rows } = await db.query<{ kind: string }>(
      `SELECT data ->> 'kind' AS kind FROM events WHERE event = 'sla.breached' AND data #>> '{chat,id}' = $1 ORDER BY seq`,
      [chatId],
    );
    return rows.map((r) => r.kind);
  };
  const notifications = async (chatId: string) => {
    const { rows } = await db.query<{ user_id: string; kind: string }>(
      `SELECT user_id, data ->> 'kind' AS kind FROM notifications WHERE kind = 'sla.breached' AND data ->> 'chatId' = $1`,
      [chatId],
    );
    return rows;
  };
  /** Moves the conversation's due instant a second into the past, as if its time had come. */
  const overdue = (chatId: string, column: 'first_response_due_at' | 'resolution_due_at') =>
    db.query(`UPDATE chats SET ${column} = now() - interval '1 second' WHERE id = $1`, [chatId]);

  it('a team without targets has none, and its conversations no SLA', async () => {
    const res = await t.request('GET', path(f.teams[1]!.id), { headers: bearer(f.agents[1]!.token) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.json, {
      teamId: f.teams[1]!.id,
      firstResponseMinutes: null,
      resolutionMinutes: null,
      updatedAt: null,
    });
    const chatId = await f.inbound(1, phone(), 'sem SLA');
    assert.equal((await chatOf(chatId)).sla, null);
  });

  it('an admin sets the targets; any user reads them; the change reaches the account and its webhooks', async () => {
    const teamId = f.teams[0]!.id;
    const hook = await t.request('POST', '/api/webhooks', {
      headers: bearer(f.adminToken),
      body: { url: receiver.url, events: ['team.sla', 'sla.breached'] },
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    const listener = await connect(t.gatewayUrl!, { token: f.agents[1]!.token });
    clients.push(listener);
    const set = await put(f.adminToken, teamId, { firstResponseMinutes: 30, resolutionMinutes: 480 });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.json.firstResponseMinutes, 30);
    assert.equal(set.json.resolutionMinutes, 480);
    const read = await t.request('GET', path(teamId), { headers: bearer(f.agents[0]!.token) });
    assert.deepEqual(read.json, set.json);
    const live = await listener.next('team.sla');
    assert.deepEqual((live.data as { sla: unknown }).sla, set.json);
    const delivered = await receiver.next((r) => r.headers['atende-event'] === 'team.sla');
    assert.deepEqual(JSON.parse(delivered.body), live);
    const stored = await db.query(
      'SELECT first_response_minutes, resolution_minutes, updated_by FROM team_slas WHERE team_id = $1',
      [teamId],
    );
    assert.deepEqual(stored.rows, [
      { first_response_minutes: 30, resolution_minutes: 480, updated_by: f.admin.userId },
    ]);
  });

  it('bad targets are 400 in the contract’s error body; agents 403; another account’s team 404', async () => {
    const teamId = f.teams[0]!.id;
    const cases: [unknown, string[]][] = [
      [{ firstResponseMinutes: 0 }, ['firstResponseMinutes must not be less than 1']],
      [{ resolutionMinutes: 1.5 }, ['resolutionMinutes must be an integer number']],
      [{ resolutionMinutes: 525601 }, ['resolutionMinutes must not be greater than 525600']],
      [{ firstResponseMinutes: {} }, ['firstResponseMinutes must be an integer number']],
      [{ firstResponse: 5 }, ['property firstResponse should not exist']],
    ];
    for (const [body, message] of cases) {
      const res = await put(f.adminToken, teamId, body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(res.json, { statusCode: 400, error: 'Bad Request', message }, JSON.stringify(body));
    }
    const pt = await put(f.adminToken, teamId, { firstResponseMinutes: 0 }, { 'accept-language': 'pt-BR' });
    assert.deepEqual(pt.json.message, ['firstResponseMinutes não pode ser menor que 1']);
    assert.equal((await put(f.agents[0]!.token, teamId, { firstResponseMinutes: 5 })).status, 403);
    const theirs = other.teams[0]!.id;
    assert.equal((await t.request('GET', path(theirs), { headers: bearer(f.adminToken) })).status, 404);
    const set = await put(f.adminToken, theirs, { firstResponseMinutes: 5 });
    assert.deepEqual(set.json, { statusCode: 404, error: 'Not Found', message: 'Not Found' });
    const stored = await db.query('SELECT count(*)::int AS n FROM team_slas WHERE team_id = $1', [theirs]);
    assert.equal(stored.rows[0].n, 0);
    // Nothing refused changed the targets.
    const read = await t.request('GET', path(teamId), { headers: bearer(f.adminToken) });
    assert.equal(read.json.firstResponseMinutes, 30);
  });

  it('the first message fixes the due instants in business time; a reply before them means no breach', async () => {
    // Open all day every day in UTC except a holiday today: the targets count from tomorrow's opening.
    const teamId = f.teams[0]!.id;
    const today = new Date().toISOString().slice(0, 10);
    const hours = await t.request('PUT', `/api/teams/${teamId}/business-hours`, {
      headers: bearer(f.adminToken),
      body: { timeZone: 'UTC', weekly: null, holidays: [today] },
    });
    assert.equal(hours.status, 200, JSON.stringify(hours.body));
    const chatId = await f.inbound(0, phone(), 'oi');
    const { sla } = await chatOf(chatId);
    assert.ok(sla);
    const midnight = Date.parse(`${today}T00:00:00Z`) + 86_400_000;
    assert.equal(sla.firstResponseDueAt, new Date(midnight + 30 * MIN).toISOString());
    assert.equal(sla.resolutionDueAt, new Date(midnight + 480 * MIN).toISOString());
    assert.equal(sla.firstRespondedAt, null);
    assert.equal(sla.firstResponseBreached, false);
    // The Channel API's chat carries it too.
    const api = await t.request('GET', `/channel-api/chats?teamId=${teamId}&limit=100`, {
      headers: f.authHeader(),
    });
    assert.equal(api.status, 200, JSON.stringify(api.body));
    const listed = (api.json.chats as { id: string; sla?: ChatSla | null }[]).find((c) => c.id === chatId);
    assert.deepEqual(listed?.sla, sla);
    // A second customer message does not move the clock.
    await f.inbound(0, (await chatOf(chatId)).contact.value, 'ainda aí?');
    assert.deepEqual((await chatOf(chatId)).sla, sla);

    // The agent captures it and replies: the first response is recorded.
    assert.equal(
      (await t.request('POST', `/api/chats/${chatId}/capture`, { headers: bearer(f.agents[0]!.token) }))
        .status,
      200,
    );
    const reply = await t.request('POST', `/api/chats/${chatId}/messages`, {
      headers: bearer(f.agents[0]!.token),
      body: { text: 'Olá! Como posso ajudar?' },
    });
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    const answered = (await chatOf(chatId)).sla!;
    assert.ok(answered.firstRespondedAt);
    // Even once its due instant has passed, an answered first response never breaches.
    await overdue(chatId, 'first_response_due_at');
    await t.server.services.chatSla.raiseDue(100);
    assert.deepEqual(await breaches(chatId), []);
    assert.equal((await chatOf(chatId)).sla!.firstResponseBreached, false);
    // Closed: the resolution clock stopped, nothing breaches either.
    assert.equal(
      (await t.request('POST', `/api/chats/${chatId}/close`, { headers: bearer(f.agents[0]!.token) })).status,
      200,
    );
    await overdue(chatId, 'resolution_due_at');
    await t.server.services.chatSla.raiseDue(100);
    assert.deepEqual(await breaches(chatId), []);
  });

  it('a message the Channel API sent is a person’s reply unless automation wrote it (flow, bot)', async () => {
    const chatId = await f.inbound(0, phone(), 'tem alguém?');
    const s = t.server.services;
    // Messages as the send pipeline stores them, then its statement for their chats' last message.
    const sent = async (automation: 'bot' | null) => {
      const id = `${Date.now().toString(16)}${String(++phoneSeq).padStart(12, '0')}`.slice(0, 24);
      await db.query(
        `INSERT INTO messages (id, account_id, chat_id, channel_id, origin, type, content, status, automation)
         SELECT $1, account_id, id, channel_id, 'api', 'text', '{"text":"oi"}', 'sent', $3 FROM chats WHERE id = $2`,
        [id, chatId, automation],
      );
      await s.db.transaction().execute((tx) =>
        s.repos.chats.setLastMessages(tx, [
          {
            chatId,
            last: { id, origin: 'api', type: 'text', content: 'oi', createdAt: new Date().toISOString() },
          },
        ]),
      );
    };
    await sent('bot');
    assert.equal((await chatOf(chatId)).sla!.firstRespondedAt, null, 'a bot’s message is not a response');
    await sent(null);
    assert.ok((await chatOf(chatId)).sla!.firstRespondedAt, 'the Channel API’s message is');
  });

  it('a conversation past its first-response due time raises exactly one sla.breached, heard live and by the webhook; the supervisor is notified', async () => {
    const teamId = f.teams[0]!.id;
    await t.request('PUT', `/api/teams/${teamId}/business-hours`, {
      headers: bearer(f.adminToken),
      body: { timeZone: 'UTC', weekly: null, holidays: [] },
    });
    const agent = await connect(t.gatewayUrl!, { token: f.agents[0]!.token });
    const sup = await connect(t.gatewayUrl!, { token: supervisor.token });
    clients.push(agent, sup);
    // The agent's console hears its team's queue; the supervisor's, their own notifications.
    assert.deepEqual((await agent.ack('user_join_team', [teamId])).joined, [teamId]);
    assert.equal((await sup.ack('user_logged_in', supervisor.id)).userId, supervisor.id);
    const chatId = await f.inbound(0, phone(), 'alguém aí?');
    const before = (await chatOf(chatId)).sla!;
    assert.ok(Date.parse(before.firstResponseDueAt!) - Date.parse(before.startedAt) === 30 * MIN);

    await overdue(chatId, 'first_response_due_at');
    // Several claims at once (two here, and the worker role's loop): one breach.
    await Promise.all([t.server.services.chatSla.raiseDue(100), t.server.services.chatSla.raiseDue(100)]);
    const live = await agent.next(
      'sla.breached',
      (p) => (p.data as { chat: { id: string } }).chat.id === chatId,
    );
    const data = live.data as { chat: { id: string; sla: ChatSla }; kind: string; dueAt: string };
    assert.equal(data.kind, 'first_response');
    assert.equal(data.chat.sla.firstResponseBreached, true);
    assert.equal(data.chat.sla.resolutionBreached, false);
    const delivered = await receiver.next(
      (r) => r.headers['atende-event'] === 'sla.breached' && JSON.parse(r.body).data.chat.id === chatId,
    );
    assert.deepEqual(JSON.parse(delivered.body), live);
    const note = await sup.next('notification.new', (p) => {
      const n = (p.data as { notification: { kind: string; data: { chatId: string } } }).notification;
      return n.kind === 'sla.breached' && n.data.chatId === chatId;
    });
    assert.ok(note);
    await t.server.services.chatSla.raiseDue(100);
    assert.deepEqual(await breaches(chatId), ['first_response']);
    assert.deepEqual(await notifications(chatId), [{ user_id: supervisor.id, kind: 'first_response' }]);
    assert.equal((await chatOf(chatId)).sla!.firstResponseBreached, true);

    // The resolution target breaches on its own, once, by the worker role's loop alone.
    await overdue(chatId, 'resolution_due_at');
    await agent.next('sla.breached', (p) => {
      const d = p.data as { chat: { id: string }; kind: string };
      return d.chat.id === chatId && d.kind === 'resolution';
    });
    await t.server.services.chatSla.raiseDue(100);
    assert.deepEqual(await breaches(chatId), ['first_response', 'resolution']);
  });

  it('the events are in the published catalogue, and what was sent matches their schemas', async () => {
    const res = await t.request('GET', '/docs/events.json');
    const doc = res.json as {
      components: { messages: Record<string, { name: string; payload: Record<string, unknown> }> };
    };
    const ajv = new Ajv({ strict: false, allErrors: true });
    (addFormatsModule as unknown as (a: Ajv) => void)(ajv);
    for (const name of ['team.sla', 'sla.breached']) {
      const message = Object.values(doc.components.messages).find((m) => m.name === name);
      assert.ok(message, `${name} is in the AsyncAPI document`);
      const validate = ajv.compile(message.payload);
      const sent = clients.flatMap((c) => c.events()).filter((e) => e.event === name);
      assert.ok(sent.length > 0, name);
      for (const e of sent) assert.ok(validate(e), JSON.stringify(validate.errors));
    }
  });
});
