import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// The Channel API's list bodies are serialized by PostgreSQL (ChatsRepo.listApiPageJson,
// UsersRepo.listActiveJson). They must read exactly as the agent API's lists, which go through the
// route's schema serializer: the same fields in the same order, the same dates, nulls and escapes.

let phoneSeq = 0;
const phone = () => `5521976${String(++phoneSeq).padStart(6, '0')}`;

/**
 * Parsed and written again, so that key order counts and whitespace does not; except inside a
 * chat's lastMessage, passed through as stored (JSONB orders its keys by length).
 */
const canonical = (value: unknown) =>
  JSON.stringify(value, (key, v: unknown) =>
    key === 'lastMessage' && v !== null && typeof v === 'object'
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );

describe('Channel API list bodies serialized by PostgreSQL', () => {
  let t: TestApp;
  let f: Fixture;
  let db: pg.Pool;

  const channelApi = (path: string) => t.request('GET', path, { headers: f.authHeader() });
  const agentApi = (path: string) =>
    t.request('GET', path, { headers: { authorization: `Bearer ${f.adminToken}` } });

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
  });
  after(async () => {
    await db?.end();
    await t?.close();
  });

  it('answers chats as the schema serializer writes them: dates, nulls, escapes, last message fields', async () => {
    const tricky = [
      ['Aspas "duplas" e \\ barra', 'linha 1\nlinha 2\t"fim"'],
      ['Emoji 😀 e acentuação ção', 'controle \u0001 \u001f'],
      [undefined, '<script>alert(1)</script>'],
    ] as const;
    const chatIds: string[] = [];
    for (const [name, text] of tricky) chatIds.push(await f.inbound(0, phone(), text, name));
    const [quoted, emoji, unnamed] = chatIds as [string, string, string];
    // Microseconds are kept by PostgreSQL and cut by JavaScript's Date; a stored last message may lack
    // the optional userId (older rows), or be JSON null.
    await db.query(
      `UPDATE chats SET created_at = '2026-01-02 03:04:05.999999+00', updated_at = '2026-01-02 03:04:06.000501+00'
        WHERE id = $1`,
      [quoted],
    );
    await db.query(`UPDATE chats SET last_message = 'null' WHERE id = $1`, [unnamed]);
    // A chat with an attendant (userId not null).
    await f.services.chatMoves.transferToUser(f.admin, emoji, { userId: f.agents[0]!.id });
    await db.query(
      `UPDATE chats SET last_message = '{"content": "x", "type": "text", "id": "m1",
        "origin": "user", "createdAt": "2026-01-02T03:04:05.000Z", "userId": "u1"}' WHERE id = $1`,
      [emoji],
    );

    for (const query of ['limit=100', `channelId=${f.channels[0]!.id}&limit=2`, 'limit=2&page=2']) {
      const channel = await channelApi(`/channel-api/chats?${query}`);
      const agent = await agentApi(`/api/chats?${query}`);
      assert.equal(channel.status, 200, JSON.stringify(channel.body));
      assert.equal(agent.status, 200);
      assert.equal(channel.headers.get('content-type'), agent.headers.get('content-type'));
      const expected = agent.body as { chats: Record<string, unknown>[] };
      // The agents' chat adds the 24-hour window, the customer, the snooze and the bot holding it; the
      // contract's Chat has none.
      for (const chat of expected.chats) {
        delete chat.window;
        delete chat.customerId;
        delete chat.snooze;
        delete chat.botId;
      }
      assert.equal(canonical(channel.body), canonical(expected), query);
    }
    const all = (await channelApi('/channel-api/chats?limit=100')).body as {
      chats: { id: string; createdAt: string; lastMessage: unknown; contact: { name: string } }[];
    };
    assert.equal(all.chats.find((c) => c.id === quoted)?.createdAt, '2026-01-02T03:04:05.999Z');
    assert.equal(all.chats.find((c) => c.id === unnamed)?.lastMessage, null);
    assert.deepEqual(all.chats.find((c) => c.id === emoji)?.lastMessage, {
      id: 'm1',
      origin: 'user',
      type: 'text',
      content: 'x',
      createdAt: '2026-01-02T03:04:05.000Z',
      userId: 'u1',
    });
  });

  it('answers an empty page with its exact total and no chats', async () => {
    const res = await channelApi('/channel-api/chats?page=1000');
    const agent = await agentApi('/api/chats?page=1000');
    assert.equal(res.status, 200);
    assert.equal(canonical(res.body), canonical(agent.body));
    assert.equal((res.body as { chats: unknown[] }).chats.length, 0);
    assert.ok((res.body as { total: number }).total > 0);
    const none = await channelApi(`/channel-api/chats?teamId=${'0'.repeat(24)}`);
    assert.deepEqual(none.body, {
      total: 0,
      page: 1,
      limit: 20,
      hasNextPage: false,
      nextPage: null,
      chats: [],
    });
  });

  it('answers users as the schema serializer writes them, cancelled users left out', async () => {
    const mk = (name: string, status: 'active' | 'onboarding' | 'cancelled') =>
      f.services.users.create(f.admin, {
        name,
        email: `${status}-${Date.now().toString(36)}-${++phoneSeq}@example.com`,
        password: 'secret-password',
        role: 'agent',
        status,
      });
    await mk('Nome "citado" \\ ção 😀', 'active');
    await mk('Em integração', 'onboarding');
    const cancelled = await mk('Cancelado', 'cancelled');
    const channel = await channelApi('/channel-api/users');
    const agent = await agentApi('/api/users');
    assert.equal(channel.status, 200);
    assert.equal(channel.headers.get('content-type'), agent.headers.get('content-type'));
    const expected = (agent.body as { id: string; status: string }[]).filter((u) => u.status !== 'cancelled');
    assert.ok(expected.length >= 5);
    assert.equal(canonical(channel.body), canonical(expected));
    assert.ok(!(channel.body as { id: string }[]).some((u) => u.id === cancelled.id));
  });
});
