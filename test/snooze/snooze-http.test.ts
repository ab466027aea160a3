import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// Snooze over HTTP (docs/agent-api.md "Snooze"): `snoozeChat` and `unsnoozeChat` as clients use them —
// status codes and the contract's error bodies, the lists and the Channel API's unchanged list, the
// events through the gateway to whoever watches the chat and through webhooks, the notification, and
// a snooze that comes back by itself at its time on the server's own wake-up loop.

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
let phoneSeq = 0;
const phone = () => `5511966${String(++phoneSeq).padStart(6, '0')}`;
const soon = (ms: number) => new Date(Date.now() + ms).toISOString();

describe('snooze (HTTP)', () => {
  let t: TestApp;
  let f: Fixture;
  let receiver: WebhookReceiver;
  const clients: GatewayClient[] = [];
  before(async () => {
    t = await startTestApp({ env: { ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    f = await seedAccount(t.server.services);
    receiver = await startReceiver();
  });
  after(async () => {
    for (const c of clients) c.close();
    await receiver?.close();
    await t?.close();
  });

  const call = (method: string, path: string, token: string, body?: unknown, lang = 'pt-BR') =>
    t.request(method, path, { headers: { ...bearer(token), 'accept-language': lang }, body });
  const ids = (res: { json: Record<string, unknown> }) =>
    (res.json.chats as { id: string }[]).map((c) => c.id);

  it('refuses what it must with the contract’s error bodies', async () => {
    const chat = await f.inbound(0, phone(), 'erros');
    const agent0 = f.agents[0]!.token;
    const agent1 = f.agents[1]!.token;
    const snooze = (token: string, body: unknown, lang?: string) =>
      call('POST', `/api/chats/${chat}/snooze`, token, body, lang);
    const cases: [unknown, RegExp, string?][] = [
      [{}, /until/],
      [{ untilCustomerMessage: false }, /until/],
      [{ until: soon(-60_000) }, /já passou/],
      [{ until: soon(-60_000) }, /in the past/, 'en'],
      [{ until: soon(367 * 24 * 3600_000) }, /um ano/],
      [{ until: 'amanhã' }, /until/],
      [{ until: soon(60_000), extra: 1 }, /extra|propriedade|property/i],
    ];
    for (const [body, message, lang] of cases) {
      const res = await snooze(agent0, body, lang);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.json.statusCode, 400);
      assert.equal(res.json.error, 'Bad Request');
      assert.match(JSON.stringify(res.json.message), message);
    }
    assert.equal(
      (await t.request('POST', `/api/chats/${chat}/snooze`, { body: { untilCustomerMessage: true } })).status,
      401,
    );
    // Agent 1 is not of the chat's team: no such chat for them; nor for another account.
    assert.equal((await snooze(agent1, { untilCustomerMessage: true })).status, 404);
    const other = await seedAccount(t.server.services);
    assert.equal((await snooze(other.adminToken, { untilCustomerMessage: true })).status, 404);
    assert.equal((await call('DELETE', `/api/chats/${chat}/snooze`, other.adminToken)).status, 404);
    assert.equal((await snooze(agent0, { untilCustomerMessage: true }, 'x')).status, 200);
    // Another user's chat: 403 for an agent of its team.
    const r = await call('POST', `/api/chats/${chat}/transfer`, f.adminToken, { userId: f.agents[1]!.id });
    assert.equal(r.status, 200);
    const forbidden = await snooze(agent0, { untilCustomerMessage: true });
    assert.equal(forbidden.status, 403);
    assert.match(JSON.stringify(forbidden.json.message), /atendente/);
    assert.equal((await call('DELETE', `/api/chats/${chat}/snooze`, agent1)).status, 200);
    const again = await call('DELETE', `/api/chats/${chat}/snooze`, agent1);
    assert.equal(again.status, 409);
    assert.match(JSON.stringify(again.json.message), /não está adiado/);
  });

  it('leaves the agent lists (exact totals), stays in the Channel API’s, and is documented', async () => {
    const chat = await f.inbound(0, phone(), 'listas');
    const apiList = async () =>
      (await t.request('GET', `/channel-api/chats?limit=100`, { headers: f.authHeader() })).json;
    const agentList = (q: string) => call('GET', `/api/chats?limit=100&${q}`, f.adminToken);
    const apiBefore = await apiList();
    const openBefore = (await agentList('')).json.total as number;
    const res = await call('POST', `/api/chats/${chat}/snooze`, f.adminToken, { untilCustomerMessage: true });
    assert.equal(res.status, 200);
    assert.deepEqual(Object.keys(res.json.snooze as object).sort(), ['by', 'since', 'until']);

    const open = await agentList('');
    assert.ok(!ids(open).includes(chat));
    assert.equal(open.json.total, openBefore - 1);
    for (const q of ['status=pending', 'status=snoozed']) {
      const l = await agentList(q);
      assert.ok(ids(l).includes(chat), q);
      assert.equal(l.json.total, (l.json.chats as unknown[]).length, q);
    }
    // The Channel API: the same open chats, the same total, and its Chat without agents' fields.
    const apiDuring = await apiList();
    assert.equal(apiDuring.total, apiBefore.total);
    const item = (apiDuring.chats as Record<string, unknown>[]).find((c) => c.id === chat)!;
    assert.ok(item && !('snooze' in item) && !('window' in item));

    const doc = (await t.request('GET', '/docs/json')).json as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    assert.equal(doc.paths['/api/chats/{id}/snooze']!.post!.operationId, 'snoozeChat');
    assert.equal(doc.paths['/api/chats/{id}/snooze']!.delete!.operationId, 'unsnoozeChat');
    const events = JSON.stringify((await t.request('GET', '/docs/events.json')).json);
    for (const name of ['chat.snoozed', 'chat.unsnoozed']) assert.ok(events.includes(name), name);
  });

  it('its events reach the chat’s watchers live and the webhooks; it comes back at its time, notified', async () => {
    const sub = await call('POST', '/api/webhooks', f.adminToken, {
      url: receiver.url,
      events: ['chat.snoozed', 'chat.unsnoozed'],
    });
    assert.equal(sub.status, 201, JSON.stringify(sub.body));
    const chat = await f.inbound(0, phone(), 'tempo');
    assert.equal((await call('POST', `/api/chats/${chat}/capture`, f.agents[0]!.token)).status, 200);
    // Agent 0 watches their team and is the attendant: the snooze, its end and the notification.
    const c = await connect(t.gatewayUrl!, { token: f.agents[0]!.token });
    clients.push(c);
    await c.ack('user_logged_in', f.agents[0]!.id);
    await c.ack('user_join_team', [f.teams[0]!.id]);

    const until = soon(1_500);
    const res = await call('POST', `/api/chats/${chat}/snooze`, f.agents[0]!.token, { until });
    assert.equal(res.status, 200);
    const snoozed = await c.next(
      'chat.snoozed',
      (e) => (e.data as { chat: { id: string } }).chat.id === chat,
    );
    assert.equal((snoozed.data as { until: string }).until, new Date(until).toISOString());
    // No sleep: the server's wake-up loop brings it back at its time, and the event says so.
    const back = await c.next('chat.unsnoozed', (e) => (e.data as { chat: { id: string } }).chat.id === chat);
    const data = back.data as { reason: string; chat: { snooze: unknown } };
    assert.equal(data.reason, 'time');
    assert.equal(data.chat.snooze, null);
    assert.ok(Date.now() >= new Date(until).getTime());
    const note = await c.next(
      'notification.new',
      (e) => (e.data as { notification: { kind: string } }).notification.kind === 'chat.unsnoozed',
    );
    assert.equal(
      (note.data as { notification: { data: { chatId: string } } }).notification.data.chatId,
      chat,
    );
    // Once: the chat is back in the list and nothing more comes.
    assert.ok(ids(await call('GET', '/api/chats?limit=100', f.agents[0]!.token)).includes(chat));

    const hooks = [
      await receiver.next((r) => r.body.includes('"chat.snoozed"') && r.body.includes(chat)),
      await receiver.next((r) => r.body.includes('"chat.unsnoozed"') && r.body.includes(chat)),
    ];
    assert.equal((JSON.parse(hooks[1]!.body) as { data: { reason: string } }).data.reason, 'time');

    // Its activity lines, in the timeline.
    const activity = await call('GET', `/api/chats/${chat}/activity`, f.agents[0]!.token);
    assert.equal(activity.status, 200, JSON.stringify(activity.body));
    const kinds = (
      activity.json.activity as { kind: string; reasonCode: string | null; until?: string }[]
    ).map((l) => `${l.kind}${l.reasonCode ? `:${l.reasonCode}` : ''}`);
    assert.deepEqual(kinds.slice(0, 2), ['unsnoozed:time', 'snoozed']);
  });
});
