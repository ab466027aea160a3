import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// A customer's history: their conversations on every channel that the reader may open, a closed
// conversation readable but not writable, and reopening it.

interface Summary {
  id: string;
  channelId: string;
  status: string;
  teamId: string;
  userId: string | null;
  closedAt: string | null;
  closedBy: string | null;
  attendants: string[];
  transfers: number;
  lastMessage: { content: string } | null;
}
interface Page {
  total: number;
  chats: Summary[];
}

describe('customer history', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const as = (token: string) => ({
    get: (path: string) => t.request('GET', path, { headers: bearer(token) }),
    post: (path: string, body?: unknown) =>
      t.request('POST', path, { headers: bearer(token), ...(body !== undefined ? { body } : {}) }),
  });
  const customerOfChat = async (chatId: string) =>
    (
      await db.query<{ customer_id: string }>(
        'SELECT ct.customer_id FROM chats c JOIN contacts ct ON ct.id = c.contact_id WHERE c.id = $1',
        [chatId],
      )
    ).rows[0]!.customer_id;
  const eventsOf = async (chatId: string, event: string) =>
    (
      await db.query<{ data: { chat: { id: string; userId: string }; by: string }; rooms: string[] }>(
        `SELECT data, rooms FROM events WHERE event = $1 AND data->'chat'->>'id' = $2 ORDER BY seq`,
        [event, chatId],
      )
    ).rows;

  before(async () => {
    t = await startTestApp({ env: { ATENDE_ROLES: 'api' } });
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
  });
  after(async () => {
    await db?.end();
    await t?.close();
  });

  /** A conversation on channel `ch` attended by agent `ch` (its team's member) and closed by them. */
  async function closedConversation(ch: number, from: string, text: string) {
    const chatId = await f.inbound(ch, from, text, 'Rita');
    const agent = as(f.agents[ch]!.token);
    assert.equal((await agent.post(`/api/chats/${chatId}/capture`)).status, 200);
    assert.equal((await agent.post(`/api/chats/${chatId}/close`)).status, 200);
    return chatId;
  }

  it('lists the customer’s conversations on every channel, newest first, with who attended and how it ended', async () => {
    const first = await closedConversation(0, '5511911110001', 'Meu pedido atrasou');
    const second = await closedConversation(1, '5511911110001', 'Segunda conversa');
    const current = await f.inbound(0, '5511911110001', 'Voltei');
    const customer = await customerOfChat(current);
    assert.equal(await customerOfChat(first), customer);

    const res = await as(f.adminToken).get(`/api/customers/${customer}/chats`);
    assert.equal(res.status, 200);
    const page = res.body as Page;
    assert.equal(page.total, 3);
    assert.deepEqual(
      page.chats.map((c) => c.id),
      [current, second, first],
    );
    const [open, , closed] = page.chats;
    assert.equal(open!.status, 'open');
    assert.equal(open!.closedAt, null);
    assert.equal(open!.closedBy, null);
    assert.equal(closed!.status, 'closed');
    assert.equal(closed!.closedBy, f.agents[0]!.id);
    assert.ok(closed!.closedAt);
    assert.deepEqual(closed!.attendants, [f.agents[0]!.id]);
    assert.equal(closed!.transfers, 0);
    assert.equal(closed!.lastMessage?.content, 'Meu pedido atrasou');

    // The agent chat names its customer, so the console finds the history from the conversation.
    const chat = await as(f.adminToken).get(`/api/chats/${current}`);
    assert.equal(chat.json.customerId, customer);

    // Paged.
    const p2 = await as(f.adminToken).get(`/api/customers/${customer}/chats?limit=2&page=2`);
    assert.deepEqual(
      (p2.body as Page).chats.map((c) => c.id),
      [first],
    );
    assert.equal((p2.body as Page).total, 3);
  });

  it('an agent sees only the conversations they may open; none of them, or another account, is 404', async () => {
    const onTeam0 = await closedConversation(0, '5511911110002', 'Canal zero');
    await closedConversation(1, '5511911110002', 'Canal um');
    const customer = await customerOfChat(onTeam0);
    const agent0 = await as(f.agents[0]!.token).get(`/api/customers/${customer}/chats`);
    assert.equal(agent0.status, 200);
    assert.deepEqual(
      (agent0.body as Page).chats.map((c) => c.id),
      [onTeam0],
    );
    assert.equal((agent0.body as Page).total, 1);
    // A page past the end still says how many there are (counted through the agent's teams).
    const past = await as(f.agents[0]!.token).get(`/api/customers/${customer}/chats?page=3&limit=1`);
    assert.equal(past.status, 200);
    assert.deepEqual((past.body as Page).chats, []);
    assert.equal((past.body as Page).total, 1);

    const onlyTeam1 = await f.inbound(1, '5511911110003', 'Só canal um');
    const hidden = await as(f.agents[0]!.token).get(
      `/api/customers/${await customerOfChat(onlyTeam1)}/chats`,
    );
    assert.equal(hidden.status, 404);
    const foreign = await as(other.adminToken).get(`/api/customers/${customer}/chats`);
    assert.equal(foreign.status, 404);
    const unknown = await as(f.adminToken).get(`/api/customers/${'0'.repeat(24)}/chats`);
    assert.equal(unknown.status, 404);
    const bad = await as(f.adminToken).get(`/api/customers/nope/chats`);
    assert.equal(bad.status, 400);
    const deep = await as(f.adminToken).get(`/api/customers/${customer}/chats?page=1001`);
    assert.equal(deep.status, 400);
  });

  it('a transferred conversation names everyone who attended it', async () => {
    const chatId = await f.inbound(0, '5511911110004', 'Transferir');
    const admin = as(f.adminToken);
    assert.equal(
      (await admin.post(`/api/chats/${chatId}/transfer`, { userId: f.agents[0]!.id })).status,
      200,
    );
    assert.equal(
      (await admin.post(`/api/chats/${chatId}/transfer`, { userId: f.agents[1]!.id })).status,
      200,
    );
    assert.equal((await admin.post(`/api/chats/${chatId}/close`)).status, 200);
    const page = (await admin.get(`/api/customers/${await customerOfChat(chatId)}/chats`)).body as Page;
    const c = page.chats[0]!;
    assert.equal(c.transfers, 2);
    assert.equal(c.closedBy, f.admin.userId);
    assert.deepEqual(c.attendants, [f.agents[0]!.id, f.agents[1]!.id, f.admin.userId].sort());
  });

  it('a closed conversation is read, not written: its messages list, a reply is 409', async () => {
    const chatId = await closedConversation(0, '5511911110005', 'Mensagem antiga');
    const agent = as(f.agents[0]!.token);
    const history = await agent.get(`/api/chats/${chatId}/messages`);
    assert.equal(history.status, 200);
    assert.equal(
      (history.json.messages as { content: { text: string } }[])[0]!.content.text,
      'Mensagem antiga',
    );
    const reply = await agent.post(`/api/chats/${chatId}/messages`, { text: 'Oi' });
    assert.equal(reply.status, 409);
    assert.equal(reply.json.message, 'O chat está encerrado');
  });

  it('reopening: the agent attends it again, with its event; the window stays the customer’s', async () => {
    const chatId = await closedConversation(0, '5511911110006', 'Preciso de ajuda');
    // Another team's agent may not see it.
    assert.equal((await as(f.agents[1]!.token).post(`/api/chats/${chatId}/reopen`)).status, 404);
    assert.equal((await as(other.adminToken).post(`/api/chats/${chatId}/reopen`)).status, 404);

    const res = await as(f.agents[0]!.token).post(`/api/chats/${chatId}/reopen`);
    assert.equal(res.status, 200);
    assert.equal(res.json.status, 'open');
    assert.equal(res.json.queue, 'Em Atendimento');
    assert.equal(res.json.userId, f.agents[0]!.id);
    // The customer wrote just now: the window is open, as it was.
    assert.equal((res.json.window as { open: boolean }).open, true);
    const events = await eventsOf(chatId, 'chat.reopen');
    assert.equal(events.length, 1);
    assert.equal(events[0]!.data.by, f.agents[0]!.id);
    assert.equal(events[0]!.data.chat.userId, f.agents[0]!.id);
    assert.ok(events[0]!.rooms.includes(`user:${f.agents[0]!.id}`));
    assert.ok(events[0]!.rooms.includes(`chat:${chatId}`));
    const row = await db.query('SELECT status, closed_at, closed_by FROM chats WHERE id = $1', [chatId]);
    assert.deepEqual(row.rows[0], { status: 'open', closed_at: null, closed_by: null });

    // Open already → 409; replies work again.
    const again = await as(f.agents[0]!.token).post(`/api/chats/${chatId}/reopen`);
    assert.equal(again.status, 409);
    assert.equal(again.json.message, 'O chat já está aberto');
    assert.equal(
      (await as(f.agents[0]!.token).post(`/api/chats/${chatId}/messages`, { text: 'Oi' })).status,
      201,
    );
  });

  it('outside the 24-hour window a reopened conversation takes templates only, as before', async () => {
    const chatId = await closedConversation(0, '5511911110007', 'Faz tempo');
    await db.query(
      `UPDATE contacts SET last_inbound_at = now() - interval '2 days'
        WHERE id = (SELECT contact_id FROM chats WHERE id = $1)`,
      [chatId],
    );
    const res = await as(f.agents[0]!.token).post(`/api/chats/${chatId}/reopen`);
    assert.equal(res.status, 200);
    assert.equal((res.json.window as { open: boolean }).open, false);
    const text = await as(f.agents[0]!.token).post(`/api/chats/${chatId}/messages`, { text: 'Oi' });
    assert.equal(text.status, 409);
    assert.match(String(text.json.message), /janela de 24 horas/);
  });

  it('a customer with a newer open conversation on the channel keeps it: reopening the old one is 409', async () => {
    const old = await closedConversation(0, '5511911110008', 'Antiga');
    const newer = await f.inbound(0, '5511911110008', 'Nova');
    assert.notEqual(newer, old);
    const res = await as(f.adminToken).post(`/api/chats/${old}/reopen`);
    assert.equal(res.status, 409);
    assert.equal(res.json.message, 'O cliente já tem outra conversa aberta neste canal');
    const en = await t.request('POST', `/api/chats/${old}/reopen`, {
      headers: { ...bearer(f.adminToken), 'accept-language': 'en' },
    });
    assert.equal(en.json.message, 'The customer already has another open conversation on this channel');
  });

  it('a supervisor outside the team reopens it and attends it', async () => {
    const chatId = await closedConversation(1, '5511911110009', 'Supervisor');
    const res = await as(f.adminToken).post(`/api/chats/${chatId}/reopen`);
    assert.equal(res.status, 200);
    assert.equal(res.json.userId, f.admin.userId);
    assert.equal(res.json.teamId, f.teams[1]!.id);
  });
});
