import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// Labels over HTTP: admins define them, agents who may see a chat or a customer put them on it and take
// them off; every change is an event on the gateway (to whoever watches) and to webhooks; the chat
// carries its labels everywhere (agent API, Channel API) and the Channel API filters by one.

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
let phoneSeq = 0;
const phone = () => `5511955${String(++phoneSeq).padStart(6, '0')}`;

interface Label {
  id: string;
  name: string;
  color: string;
  description: string | null;
  createdAt: string;
  updatedAt: string;
}
interface Chat {
  id: string;
  labels: { id: string; name: string; color: string }[];
}

describe('labels', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;
  let receiver: WebhookReceiver;
  const clients: GatewayClient[] = [];

  before(async () => {
    t = await startTestApp({ env: { ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    receiver = await startReceiver();
  });
  after(async () => {
    for (const c of clients) c.close();
    await receiver?.close();
    await db?.end();
    await t?.close();
  });

  const create = async (fx: Fixture, body: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/labels', { headers: bearer(fx.adminToken), body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.json as unknown as Label;
  };
  const put = (token: string, chatId: string, labelId: string) =>
    t.request('PUT', `/api/chats/${chatId}/labels/${labelId}`, { headers: bearer(token) });
  const del = (token: string, chatId: string, labelId: string) =>
    t.request('DELETE', `/api/chats/${chatId}/labels/${labelId}`, { headers: bearer(token) });

  describe('definitions', () => {
    it('an admin creates, reads, renames and deletes; any user lists them, by name', async () => {
      const a = await create(f, { name: '  Urgente ', color: '#FF0000', description: 'Responder já' });
      assert.equal(a.name, 'Urgente');
      assert.equal(a.color, '#ff0000');
      assert.equal(a.description, 'Responder já');
      const b = await create(f, { name: 'boleto', color: '#00aa00' });
      assert.equal(b.description, null);

      const listed = await t.request('GET', '/api/labels', { headers: bearer(f.agents[0]!.token) });
      assert.equal(listed.status, 200);
      const names = (listed.body as Label[]).map((l) => l.name);
      assert.deepEqual(
        names.filter((n) => n === 'boleto' || n === 'Urgente'),
        ['boleto', 'Urgente'],
      );

      const renamed = await t.request('PATCH', `/api/labels/${b.id}`, {
        headers: bearer(f.adminToken),
        body: { name: 'Boleto atrasado', description: 'x' },
      });
      assert.equal(renamed.status, 200);
      assert.equal(renamed.json.name, 'Boleto atrasado');
      assert.equal(renamed.json.color, '#00aa00');
      const got = await t.request('GET', `/api/labels/${b.id}`, { headers: bearer(f.agents[1]!.token) });
      assert.deepEqual(got.json, renamed.json);

      const gone = await t.request('DELETE', `/api/labels/${b.id}`, { headers: bearer(f.adminToken) });
      assert.equal(gone.status, 204);
      const again = await t.request('GET', `/api/labels/${b.id}`, { headers: bearer(f.adminToken) });
      assert.equal(again.status, 404);
    });

    it('a name already used in the account, whatever its case, is 409; another account may use it', async () => {
      await create(f, { name: 'VIP', color: '#123456' });
      const dup = await t.request('POST', '/api/labels', {
        headers: bearer(f.adminToken),
        body: { name: 'vip', color: '#654321' },
      });
      assert.equal(dup.status, 409);
      assert.deepEqual(dup.body, {
        statusCode: 409,
        message: 'Já existe uma etiqueta com este nome',
        error: 'Conflict',
      });
      const other2 = await create(f, { name: 'Outro', color: '#111111' });
      const renamed = await t.request('PATCH', `/api/labels/${other2.id}`, {
        headers: { ...bearer(f.adminToken), 'accept-language': 'en' },
        body: { name: ' Vip ' },
      });
      assert.equal(renamed.status, 409);
      assert.equal(renamed.json.message, 'A label with this name already exists');
      await create(other, { name: 'VIP', color: '#123456' });
    });

    it('validation: bad colour, blank or long name, unknown field, empty patch, bad id → 400', async () => {
      const h = bearer(f.adminToken);
      const cases: [string, string, unknown][] = [
        ['POST', '/api/labels', { name: 'x', color: 'red' }],
        ['POST', '/api/labels', { name: '   ', color: '#000000' }],
        ['POST', '/api/labels', { name: 'x'.repeat(51), color: '#000000' }],
        ['POST', '/api/labels', { name: 'x', color: '#000000', extra: 1 }],
        ['POST', '/api/labels', { color: '#000000' }],
        ['PATCH', `/api/labels/${'a'.repeat(24)}`, {}],
        ['GET', '/api/labels/not-an-id', undefined],
      ];
      for (const [method, path, body] of cases) {
        const res = await t.request(method, path, { headers: h, body });
        assert.equal(res.status, 400, `${method} ${path} ${JSON.stringify(body)}`);
        assert.equal(res.json.statusCode, 400);
        assert.ok(Array.isArray(res.json.message));
      }
    });

    it('agents may not define labels (403); another account’s label is 404', async () => {
      const res = await t.request('POST', '/api/labels', {
        headers: bearer(f.agents[0]!.token),
        body: { name: 'Agente', color: '#000000' },
      });
      assert.equal(res.status, 403);
      const theirs = await create(other, { name: 'Deles', color: '#000000' });
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { color: '#ffffff' }],
        ['DELETE', undefined],
      ] as const) {
        const r = await t.request(method, `/api/labels/${theirs.id}`, {
          headers: bearer(f.adminToken),
          body,
        });
        assert.equal(r.status, 404, method);
      }
      const listed = await t.request('GET', '/api/labels', { headers: bearer(f.adminToken) });
      assert.ok(!(listed.body as Label[]).some((l) => l.id === theirs.id));
    });
  });

  describe('on chats', () => {
    it('an agent of the chat’s team puts and removes a label: the chat carries it everywhere, events go to watchers and webhooks', async () => {
      const label = await create(f, { name: 'Reclamação', color: '#aa0000' });
      const chatId = await f.inbound(0, phone(), 'Meu pedido não chegou');
      const hook = await t.request('POST', '/api/webhooks', {
        headers: bearer(f.adminToken),
        body: { url: receiver.url, events: ['chat.labels', 'label.update'] },
      });
      assert.equal(hook.status, 201);
      // Agent 0 (team 0) watches the chat's list item; agent 1 (team 1) may not see it.
      const watcher = await connect(t.gatewayUrl!, { token: f.agents[0]!.token });
      clients.push(watcher);
      assert.deepEqual((await watcher.ack('user_start_watch_chats', [chatId])).watching, [chatId]);
      const outsider = await connect(t.gatewayUrl!, { token: f.agents[1]!.token });
      clients.push(outsider);

      const before = await t.request('GET', `/api/chats/${chatId}`, { headers: bearer(f.agents[0]!.token) });
      const added = await put(f.agents[0]!.token, chatId, label.id);
      assert.equal(added.status, 200, JSON.stringify(added.body));
      const ref = { id: label.id, name: 'Reclamação', color: '#aa0000' };
      assert.deepEqual((added.json as unknown as Chat).labels, [ref]);
      // A change of its labels is a change of the chat: a copy read before it is older by updatedAt.
      assert.ok(
        (added.json.updatedAt as string) > (before.json.updatedAt as string),
        `${String(added.json.updatedAt)} after ${String(before.json.updatedAt)}`,
      );

      const live = await watcher.next('chat.labels');
      assert.equal(live.event, 'chat.labels');
      const data = live.data as { chat: Chat; label: unknown; action: string };
      assert.deepEqual(data.label, ref);
      assert.equal(data.action, 'added');
      assert.equal(data.chat.id, chatId);
      assert.deepEqual(data.chat.labels, [ref]);
      const delivered = await receiver.next((r) => r.headers['atende-event'] === 'chat.labels');
      assert.deepEqual(JSON.parse(delivered.body), live);

      // Idempotent: already there, same chat, no second event.
      const again = await put(f.agents[0]!.token, chatId, label.id);
      assert.equal(again.status, 200);
      assert.deepEqual((again.json as unknown as Chat).labels, [ref]);

      // Agent API and Channel API show it; the Channel API filters by it.
      const one = await t.request('GET', `/api/chats/${chatId}`, { headers: bearer(f.agents[0]!.token) });
      assert.deepEqual((one.json as unknown as Chat).labels, [ref]);
      const api = await t.request('GET', `/channel-api/chats?label=${label.id}`, { headers: f.authHeader() });
      assert.equal(api.status, 200);
      assert.equal(api.json.total, 1);
      assert.deepEqual(api.json.chats, [{ ...(api.json.chats as Chat[])[0], labels: [ref] }]);
      assert.equal((api.json.chats as Chat[])[0]!.id, chatId);
      const unfiltered = await t.request('GET', '/channel-api/chats?limit=100', { headers: f.authHeader() });
      for (const c of unfiltered.json.chats as Chat[]) assert.ok(Array.isArray(c.labels));

      // A rename reaches every signed-in user of the account, and the chat shows the new name.
      const renamed = await t.request('PATCH', `/api/labels/${label.id}`, {
        headers: bearer(f.adminToken),
        body: { name: 'Reclamação grave' },
      });
      assert.equal(renamed.status, 200);
      const upd = await outsider.next('label.update');
      assert.equal((upd.data as { label: Label }).label.name, 'Reclamação grave');
      await receiver.next((r) => r.headers['atende-event'] === 'label.update');
      const after1 = await t.request('GET', `/api/chats/${chatId}`, { headers: bearer(f.adminToken) });
      assert.equal((after1.json as unknown as Chat).labels[0]!.name, 'Reclamação grave');

      const removed = await del(f.agents[0]!.token, chatId, label.id);
      assert.equal(removed.status, 200);
      assert.deepEqual((removed.json as unknown as Chat).labels, []);
      const off = await watcher.next('chat.labels');
      assert.equal((off.data as { action: string }).action, 'removed');
      const none = await del(f.agents[0]!.token, chatId, label.id);
      assert.equal(none.status, 200);

      // The outsider got no chat.labels: after every committed event is out, a round trip settles it.
      await t.server.gateway!.tail.settled();
      await outsider.barrier();
      assert.ok(!outsider.events().some((e) => e.event === 'chat.labels'));
      const stored = await db.query('SELECT count(*)::int AS n FROM chat_labels WHERE chat_id = $1', [
        chatId,
      ]);
      assert.equal(stored.rows[0].n, 0);
    });

    it('a chat the agent cannot see, or another account’s chat or label, is 404 and changes nothing', async () => {
      const label = await create(f, { name: 'Financeiro', color: '#0000aa' });
      const chatId = await f.inbound(0, phone());
      const foreignChat = await other.inbound(0, phone());
      const foreignLabel = await create(other, { name: 'Financeiro', color: '#0000aa' });
      for (const [token, chat, lbl] of [
        [f.agents[1]!.token, chatId, label.id], // team 1 does not see channel 0's chat
        [f.adminToken, foreignChat, label.id],
        [f.adminToken, chatId, foreignLabel.id],
        [f.adminToken, chatId, 'b'.repeat(24)],
      ] as const) {
        for (const call of [put, del]) {
          const res = await call(token, chat, lbl);
          assert.equal(res.status, 404, `${chat} ${lbl}`);
          assert.deepEqual(res.body, { statusCode: 404, message: 'Not Found', error: 'Not Found' });
        }
      }
      const bad = await put(f.adminToken, 'x', label.id);
      assert.equal(bad.status, 400);
      const n = await db.query('SELECT count(*)::int AS n FROM chat_labels WHERE chat_id = ANY($1)', [
        [chatId, foreignChat],
      ]);
      assert.equal(n.rows[0].n, 0);
    });

    it('deleting a label takes it off its chats, with one label.delete to the account', async () => {
      const label = await create(f, { name: 'Temporária', color: '#abcdef' });
      const chatId = await f.inbound(1, phone());
      assert.equal((await put(f.agents[1]!.token, chatId, label.id)).status, 200);
      const c = await connect(t.gatewayUrl!, { token: f.agents[0]!.token });
      clients.push(c);
      const res = await t.request('DELETE', `/api/labels/${label.id}`, { headers: bearer(f.adminToken) });
      assert.equal(res.status, 204);
      const ev = await c.next('label.delete');
      assert.equal((ev.data as { label: Label }).label.id, label.id);
      const chat = await t.request('GET', `/api/chats/${chatId}`, { headers: bearer(f.adminToken) });
      assert.deepEqual((chat.json as unknown as Chat).labels, []);
      // Another account's share of the log has nothing of it.
      const log = await t.request('GET', `/api/events?after=0&limit=500`, {
        headers: bearer(other.adminToken),
      });
      assert.ok(!(log.json.events as { event: string }[]).some((e) => e.event === 'label.delete'));
    });
  });

  describe('on customers', () => {
    it('an agent who may see the customer labels them; the customer’s chat watchers hear it', async () => {
      const label = await create(f, { name: 'Cliente fiel', color: '#00ff00' });
      const chatId = await f.inbound(0, phone());
      const { rows } = await db.query<{ customer_id: string }>(
        'SELECT ct.customer_id FROM chats c JOIN contacts ct ON ct.id = c.contact_id WHERE c.id = $1',
        [chatId],
      );
      const customerId = rows[0]!.customer_id;
      const w = await connect(t.gatewayUrl!, { token: f.adminToken });
      clients.push(w);
      await w.ack('user_start_watch_chats', [chatId]);
      const res = await t.request('PUT', `/api/customers/${customerId}/labels/${label.id}`, {
        headers: bearer(f.agents[0]!.token),
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const ref = { id: label.id, name: 'Cliente fiel', color: '#00ff00' };
      assert.deepEqual(res.json, { customerId, labels: [ref] });
      const ev = await w.next('customer.labels');
      assert.deepEqual(ev.data, { customerId, labels: [ref], label: ref, action: 'added' });

      // Team 1's agent has no conversation of this customer; another account's admin neither.
      for (const token of [f.agents[1]!.token, other.adminToken]) {
        const r = await t.request('PUT', `/api/customers/${customerId}/labels/${label.id}`, {
          headers: bearer(token),
        });
        assert.equal(r.status, 404);
      }
      const off = await t.request('DELETE', `/api/customers/${customerId}/labels/${label.id}`, {
        headers: bearer(f.adminToken),
      });
      assert.deepEqual(off.json, { customerId, labels: [] });
      assert.equal(((await w.next('customer.labels')).data as { action: string }).action, 'removed');
    });
  });

  it('the event catalogue and the OpenAPI document list them', async () => {
    const events = (await t.request('GET', '/docs/events.json')).json as {
      channels: Record<string, unknown>;
    };
    const text = JSON.stringify(events);
    for (const name of ['chat.labels', 'customer.labels', 'label.create', 'label.update', 'label.delete'])
      assert.ok(text.includes(name), name);
    const doc = (await t.request('GET', '/docs/json')).json as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    assert.equal(doc.paths['/api/labels']!.get!.operationId, 'listLabels');
    assert.equal(doc.paths['/api/labels']!.post!.operationId, 'createLabel');
    assert.equal(doc.paths['/api/chats/{id}/labels/{labelId}']!.put!.operationId, 'addChatLabel');
    assert.equal(doc.paths['/api/chats/{id}/labels/{labelId}']!.delete!.operationId, 'removeChatLabel');
  });
});
