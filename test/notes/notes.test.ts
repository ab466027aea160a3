import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { FakeGraph } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';
import { createWhatsAppChannel } from '../helpers/whatsapp.js';

// Private notes (/api/chats/:id/notes): never sent to the customer, seen by whoever sees the chat,
// edited and deleted by their author; mentions checked, notified live and listed (/api/mentions).

interface Note {
  id: string;
  chatId: string;
  userId: string | null;
  text: string;
  mentions: string[];
  createdAt: string;
  updatedAt: string;
}
interface Mention {
  note: Note;
  notificationId: string;
  readAt: string | null;
  createdAt: string;
  contact: { name: string; value: string };
}

const NOT_FOUND = { statusCode: 404, message: 'Not Found', error: 'Not Found' };
const MENTION_REFUSED = {
  statusCode: 400,
  message: 'Só é possível mencionar usuários ativos que podem ver esta conversa',
  error: 'Bad Request',
};
const NOT_AUTHOR = {
  statusCode: 403,
  message: 'Somente quem escreveu a nota pode alterá-la ou apagá-la',
  error: 'Forbidden',
};

let phoneSeq = 0;
const phone = () => `5511977${String(++phoneSeq).padStart(6, '0')}`;

describe('private notes and mentions', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;
  let graph: FakeGraph;
  /** A second agent of team 0 (agent 0's colleague) and a supervisor of no team (chats:read_all). */
  let colleague: { id: string; token: string };
  let supervisor: { id: string; token: string };
  const clients: GatewayClient[] = [];

  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  const call = (token: string, method: string, path: string, body?: unknown) =>
    t.request(method, path, { headers: as(token), ...(body !== undefined ? { body } : {}) });
  const write = async (token: string, chatId: string, body: Record<string, unknown>) => {
    const res = await call(token, 'POST', `/api/chats/${chatId}/notes`, body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body as Note;
  };
  const mentionsOf = async (token: string, query = '') =>
    (await call(token, 'GET', `/api/mentions${query}`)).body as { mentions: Mention[]; unread: number };
  const user = async (name: string, role: 'agent' | 'supervisor') => {
    const email = `${name.toLowerCase()}${Date.now().toString(36)}${phoneSeq++}@example.com`;
    const u = await f.services.users.create(f.admin, { name, email, password: 'user-password', role });
    return { id: u.id, token: (await f.services.auth.login(email, 'user-password')).accessToken };
  };
  const gateway = async (token: string, userId: string) => {
    const c = await connect(t.gatewayUrl!, { token });
    clients.push(c);
    assert.equal((await c.ack('user_logged_in', userId)).ok, true);
    return c;
  };

  before(async () => {
    graph = await FakeGraph.start();
    t = await startTestApp({ env: { WHATSAPP_GRAPH_BASE_URL: graph.url } });
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    colleague = await user('Colega', 'agent');
    supervisor = await user('Supervisora', 'supervisor');
    await f.services.teams.update(f.admin, f.teams[0]!.id, { members: [f.agents[0]!.id, colleague.id] });
  });
  after(async () => {
    for (const c of clients) c.close();
    await db?.end();
    await t?.close();
    await graph?.close();
  });

  it('is read by whoever sees the chat; other teams and other accounts get 404', async () => {
    const chatId = await f.inbound(0, phone(), 'Oi');
    const note = await write(f.agents[0]!.token, chatId, { text: '  Cliente já ligou duas vezes  ' });
    assert.equal(note.text, 'Cliente já ligou duas vezes');
    assert.deepEqual([note.chatId, note.userId, note.mentions], [chatId, f.agents[0]!.id, []]);
    for (const token of [f.agents[0]!.token, colleague.token, supervisor.token, f.adminToken]) {
      const list = await call(token, 'GET', `/api/chats/${chatId}/notes`);
      assert.deepEqual(list.body, { notes: [note], nextBefore: null });
    }
    // Agent 1 is in team 1 only; the other account's admin sees nothing of this account.
    for (const token of [f.agents[1]!.token, other.adminToken]) {
      assert.deepEqual((await call(token, 'GET', `/api/chats/${chatId}/notes`)).body, NOT_FOUND);
      assert.deepEqual(
        (await call(token, 'POST', `/api/chats/${chatId}/notes`, { text: 'x' })).body,
        NOT_FOUND,
      );
      assert.deepEqual((await call(token, 'GET', `/api/chats/${chatId}/mentionable-users`)).body, NOT_FOUND);
      const patch = await call(token, 'PATCH', `/api/chats/${chatId}/notes/${note.id}`, { text: 'y' });
      assert.deepEqual(patch.body, NOT_FOUND);
    }
    // Pages, newest first.
    const second = await write(colleague.token, chatId, { text: 'Segunda nota' });
    const page = await call(f.agents[0]!.token, 'GET', `/api/chats/${chatId}/notes?limit=1`);
    assert.deepEqual(page.body, { notes: [second], nextBefore: second.id });
    const rest = await call(
      f.agents[0]!.token,
      'GET',
      `/api/chats/${chatId}/notes?limit=1&before=${second.id}`,
    );
    assert.deepEqual(rest.body, { notes: [note], nextBefore: null });
  });

  it('refuses bad bodies with the contract’s 400', async () => {
    const chatId = await f.inbound(0, phone());
    const cases: Array<[unknown, string[]]> = [
      [{ text: '   ' }, ['text should not be empty']],
      [{}, ['text should not be empty']],
      [{ text: 'x'.repeat(4097) }, ['text must be shorter than or equal to 4096 characters']],
      [{ text: 'a', mentions: ['nope'] }, ['mentions.0 must be a 24-character hexadecimal id']],
      [{ text: 'a', extra: 1 }, ['property extra should not exist']],
    ];
    for (const [body, message] of cases) {
      const res = await call(f.agents[0]!.token, 'POST', `/api/chats/${chatId}/notes`, body);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.deepEqual((res.body as { message: string[] }).message, message);
    }
    const unknownCursor = await call(
      f.agents[0]!.token,
      'GET',
      `/api/chats/${chatId}/notes?before=${'0'.repeat(24)}`,
    );
    assert.deepEqual(unknownCursor.body, {
      statusCode: 400,
      message: 'before deve ser o id de uma nota desta conversa',
      error: 'Bad Request',
    });
  });

  it('mentions only users who may see the chat', async () => {
    const chatId = await f.inbound(0, phone());
    const mentionable = await call(f.agents[0]!.token, 'GET', `/api/chats/${chatId}/mentionable-users`);
    const ids = (mentionable.body as { users: { id: string }[] }).users.map((u) => u.id).sort();
    // Team 0's agents, the supervisor and the admin (both chats:read_all); not agent 1 of team 1.
    assert.deepEqual(ids, [f.agents[0]!.id, colleague.id, supervisor.id, f.admin.userId].sort());
    const narrowed = await call(f.agents[0]!.token, 'GET', `/api/chats/${chatId}/mentionable-users?q=coleg`);
    assert.deepEqual(
      (narrowed.body as { users: { id: string; name: string }[] }).users.map((u) => [u.id, u.name]),
      [[colleague.id, 'Colega']],
    );
    for (const refused of [f.agents[1]!.id, other.agents[0]!.id, '0'.repeat(24)]) {
      const res = await call(f.agents[0]!.token, 'POST', `/api/chats/${chatId}/notes`, {
        text: 'veja isso',
        mentions: [colleague.id, refused],
      });
      assert.deepEqual(res.body, MENTION_REFUSED);
    }
    const english = await t.request('POST', `/api/chats/${chatId}/notes`, {
      headers: { ...as(f.agents[0]!.token), 'accept-language': 'en' },
      body: { text: 'look', mentions: [f.agents[1]!.id] },
    });
    assert.equal(
      (english.body as { message: string }).message,
      'Only active users who may see this conversation can be mentioned',
    );
    // Nothing was written by the refusals.
    assert.deepEqual((await call(f.agents[0]!.token, 'GET', `/api/chats/${chatId}/notes`)).body, {
      notes: [],
      nextBefore: null,
    });
  });

  it('notifies the mentioned user live and lists the mention until it is read', async () => {
    const chatId = await f.inbound(0, phone(), 'Quero cancelar', 'Marta');
    const mentioned = await gateway(colleague.token, colleague.id);
    const watcher = await gateway(supervisor.token, supervisor.id);
    assert.deepEqual(await watcher.ack('user_start_attendance', chatId), { ok: true, chatId });

    const note = await write(f.agents[0]!.token, chatId, {
      text: '@Colega pode assumir? Ela quer cancelar.',
      mentions: [colleague.id, f.agents[0]!.id],
    });
    const envelope = await mentioned.next('notification.new');
    const notification = (envelope.data as { notification: Record<string, unknown> }).notification;
    assert.equal(notification.kind, 'note.mention');
    assert.deepEqual(notification.data, {
      chatId,
      noteId: note.id,
      by: { type: 'user', id: f.agents[0]!.id },
      byName: 'Agente 0',
      contact: { name: 'Marta', value: (await f.services.chats.getForUser(f.admin, chatId)).contact.value },
      excerpt: '@Colega pode assumir? Ela quer cancelar.',
    });
    // Whoever has the conversation open sees the note arrive.
    const live = await watcher.next('note.new');
    assert.deepEqual((live.data as { note: Note }).note, note);

    const listed = await mentionsOf(colleague.token);
    assert.equal(listed.unread, 1);
    assert.deepEqual(
      listed.mentions.map((m) => [m.note, m.notificationId, m.readAt, m.contact.name]),
      [[note, notification.id, null, 'Marta']],
    );
    // Mentioning yourself notifies nobody; the supervisor was not mentioned.
    assert.deepEqual(await mentionsOf(f.agents[0]!.token), { mentions: [], unread: 0 });
    assert.deepEqual(await mentionsOf(supervisor.token), { mentions: [], unread: 0 });

    const read = await call(colleague.token, 'POST', `/api/notifications/${String(notification.id)}/read`);
    assert.equal(read.status, 200);
    const after = await mentionsOf(colleague.token);
    assert.equal(after.unread, 0);
    assert.ok(after.mentions[0]!.readAt);
    assert.deepEqual((await mentionsOf(colleague.token, '?unreadOnly=true')).mentions, []);
  });

  it('is edited and deleted by its author only, its mentions following', async () => {
    const chatId = await f.inbound(0, phone());
    const watcher = await gateway(supervisor.token, supervisor.id);
    await watcher.ack('user_start_attendance', chatId);
    const note = await write(f.agents[0]!.token, chatId, { text: 'Primeira versão' });
    const path = `/api/chats/${chatId}/notes/${note.id}`;
    assert.deepEqual((await call(colleague.token, 'PATCH', path, { text: 'minha' })).body, NOT_AUTHOR);
    assert.deepEqual((await call(colleague.token, 'DELETE', path)).body, NOT_AUTHOR);
    assert.deepEqual(
      (await call(f.agents[0]!.token, 'PATCH', `/api/chats/${chatId}/notes/${'0'.repeat(24)}`, { text: 'x' }))
        .body,
      NOT_FOUND,
    );

    // An edit that adds a mention tells the one added.
    const edited = await call(f.agents[0]!.token, 'PATCH', path, {
      text: '@Supervisora segunda versão',
      mentions: [supervisor.id],
    });
    assert.equal(edited.status, 200);
    const updated = edited.body as Note;
    assert.deepEqual(
      [updated.text, updated.mentions, updated.createdAt],
      ['@Supervisora segunda versão', [supervisor.id], note.createdAt],
    );
    assert.equal((await watcher.next('notification.new')).event, 'notification.new');
    assert.deepEqual(((await watcher.next('note.update')).data as { note: Note }).note, updated);
    assert.deepEqual(
      (await mentionsOf(supervisor.token)).mentions.map((m) => m.note.id),
      [note.id],
    );

    // Text alone keeps the mentions; taking the mention out removes it from the list.
    const kept = await call(f.agents[0]!.token, 'PATCH', path, { text: 'terceira' });
    assert.deepEqual((kept.body as Note).mentions, [supervisor.id]);
    await call(f.agents[0]!.token, 'PATCH', path, { text: 'quarta', mentions: [] });
    assert.deepEqual((await mentionsOf(supervisor.token)).mentions, []);

    const gone = await call(f.agents[0]!.token, 'DELETE', path);
    assert.equal(gone.status, 204);
    const deleted = await watcher.next('note.delete');
    assert.deepEqual(deleted.data, { chatId, noteId: note.id });
    assert.deepEqual((await call(f.agents[0]!.token, 'GET', `/api/chats/${chatId}/notes`)).body, {
      notes: [],
      nextBefore: null,
    });
    assert.deepEqual((await call(f.agents[0]!.token, 'DELETE', path)).body, NOT_FOUND);
  });

  it('never reaches the provider, the messages or the Channel API', async () => {
    const channel = await createWhatsAppChannel(f, { phoneNumberId: '106540352242977' });
    const row = await f.services.repos.channels.find(f.accountId, channel.id);
    assert.ok(row);
    const received = await f.services.inbound.receive(row, {
      contact: { value: '5511987650077', name: 'Cliente', providerAddress: '5511987650077' },
      type: 'text',
      content: { text: 'Oi' },
      summary: 'Oi',
      providerMessageId: 'wamid.notes.1',
    });
    assert.equal(received.duplicate, false);
    const chatId = received.duplicate ? '' : received.chatId;
    assert.equal((await call(f.agents[0]!.token, 'POST', `/api/chats/${chatId}/capture`)).status, 200);

    await write(f.agents[0]!.token, chatId, {
      text: 'NOTA INTERNA: cliente difícil',
      mentions: [colleague.id],
    });
    // A reply after the note: the first (and only) thing the provider receives is the reply.
    const reply = await call(f.agents[0]!.token, 'POST', `/api/chats/${chatId}/messages`, {
      text: 'Bom dia!',
    });
    assert.equal(reply.status, 201);
    const sent = await graph.nextRequest();
    assert.equal((sent.json as { text?: { body?: string } }).text?.body, 'Bom dia!');
    assert.equal(
      graph.requests.filter((r) => JSON.stringify(r.json ?? {}).includes('NOTA INTERNA')).length,
      0,
    );

    // Not a message, not the chat's last message, not in any message event (what webhooks receive).
    const messages = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM messages WHERE chat_id = $1 AND content::text LIKE '%NOTA INTERNA%'`,
      [chatId],
    );
    assert.equal(messages.rows[0]!.n, 0);
    const leaked = await db.query<{ event: string }>(
      `SELECT event FROM events WHERE account_id = $1 AND data::text LIKE '%NOTA INTERNA%' ORDER BY seq`,
      [f.accountId],
    );
    assert.deepEqual(
      leaked.rows.map((r) => r.event),
      ['note.new', 'notification.new'],
    );
    const history = await call(f.agents[0]!.token, 'GET', `/api/chats/${chatId}/messages`);
    assert.ok(!JSON.stringify(history.body).includes('NOTA INTERNA'));
    const api = await t.request('GET', `/channel-api/chats?channelId=${channel.id}`, {
      headers: f.authHeader(),
    });
    assert.equal(api.status, 200);
    assert.ok(!JSON.stringify(api.body).includes('NOTA INTERNA'));
  });
});
