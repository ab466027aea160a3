import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// GET /channel-api/chats: credentials, scope, validation, pagination, filters, channel limits, tenancy.

interface Chat {
  id: string;
  status: string;
  queue: string;
  channelId: string;
  teamId: string;
  userId: string | null;
  contact: { id: string; name: string; value: string };
  unreadMessages: number;
  lastMessage: ({ origin: string; content: string } & Record<string, unknown>) | null;
  createdAt: string;
  updatedAt: string;
}
interface ChatPage {
  total: number;
  page: number;
  limit: number;
  hasNextPage: boolean;
  nextPage: number | null;
  chats: Chat[];
}

const CHAT_FIELDS = [
  'channelId',
  'contact',
  'createdAt',
  'id',
  'labels',
  'lastMessage',
  'queue',
  'sla',
  'status',
  'teamId',
  'unreadMessages',
  'updatedAt',
  'userId',
];
const OBJECT_ID = /^[0-9a-f]{24}$/;
const UNAUTHORIZED = { statusCode: 401, message: 'Credencial ausente ou inválida', error: 'Unauthorized' };
const NOT_FOUND = { statusCode: 404, message: 'Not Found', error: 'Not Found' };
const badRequest = (...message: string[]) => ({ statusCode: 400, message, error: 'Bad Request' });

let phoneSeq = 0;
/** A distinct valid Brazilian mobile number per call. */
const phone = () => `5511987${String(++phoneSeq).padStart(6, '0')}`;

const isIso = (s: string) => new Date(s).toISOString() === s;
const page = (res: TestResponse) => res.body as ChatPage;
const ids = (res: TestResponse) => page(res).chats.map((c) => c.id);

describe('GET /channel-api/chats', () => {
  let t: TestApp;
  let f: Fixture;
  let db: pg.Pool;

  const list = (key: string, query = '') =>
    t.request('GET', `/channel-api/chats${query ? `?${query}` : ''}`, {
      headers: { authorization: `ApiKey ${key}` },
    });
  const moveToQueue = async (fx: Fixture, chatId: string, queue: string) => {
    const res = await t.request('POST', `/api/chats/${chatId}/queue`, {
      headers: { authorization: `Bearer ${fx.adminToken}` },
      body: { queue },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };
  /** A page answer compared whole: the counters and the ids of the chats, in order. */
  const assertPage = (
    res: TestResponse,
    expected: { total: number; page: number; limit: number; nextPage: number | null; ids: string[] },
  ) => {
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const { chats, ...rest } = page(res);
    assert.deepEqual(rest, {
      total: expected.total,
      page: expected.page,
      limit: expected.limit,
      hasNextPage: expected.nextPage !== null,
      nextPage: expected.nextPage,
    });
    assert.deepEqual(
      chats.map((c) => c.id),
      expected.ids,
    );
  };

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
  });
  after(async () => {
    await db?.end();
    await t?.close();
  });

  describe('credentials and scope', () => {
    it('answers 401 with the contract body for a missing or invalid credential', async () => {
      const revoked = await f.services.apiKeys.create(f.admin, {
        name: 'revogada',
        scopes: ['chats:read'],
        channelIds: null,
      });
      assert.equal((await list(revoked.token)).status, 200);
      await f.services.apiKeys.revoke(f.admin, revoked.id);

      const [, id, secret] = f.apiKey.split('_') as [string, string, string];
      const wrongSecret = `ak_${id}_${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
      const unknownId = `ak_${'0'.repeat(24)}_${secret}`;
      const cases: [string, Record<string, string>][] = [
        ['missing header', {}],
        ['empty header', { authorization: '' }],
        ['wrong scheme', { authorization: `Bearer ${f.apiKey}` }],
        ['scheme only', { authorization: 'ApiKey' }],
        ['garbage token', { authorization: 'ApiKey not-a-key' }],
        ['token of another prefix', { authorization: `ApiKey xk_${id}_${secret}` }],
        ['well-formed token, wrong secret', { authorization: `ApiKey ${wrongSecret}` }],
        ['well-formed token, unknown key', { authorization: `ApiKey ${unknownId}` }],
        ['revoked key', { authorization: `ApiKey ${revoked.token}` }],
        ['agent JWT', { authorization: `Bearer ${f.adminToken}` }],
        ['key in the channel-key header', { 'x-channel-api-key': f.apiKey }],
      ];
      for (const [name, headers] of cases) {
        const res = await t.request('GET', '/channel-api/chats', { headers });
        assert.equal(res.status, 401, name);
        assert.deepEqual(res.body, UNAUTHORIZED, name);
      }
    });

    it('checks the credential before validating the query', async () => {
      const res = await t.request('GET', '/channel-api/chats?limit=0&foo=1', {
        headers: { authorization: 'ApiKey nope' },
      });
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, UNAUTHORIZED);
    });

    it('answers 404 to a key without chats:read, even for an invalid query', async () => {
      const key = await f.makeKey(['chats:transfer', 'users:read', 'teams:read']);
      for (const query of [
        '',
        'limit=101',
        'page=0&foo=1',
        'channelId=xyz',
        `channelId=${f.channels[0]!.id}`,
      ]) {
        const res = await list(key, query);
        assert.equal(res.status, 404, query);
        assert.deepEqual(res.body, NOT_FOUND, query);
      }
    });
  });

  describe('validation', () => {
    const cases: [string, string[]][] = [
      ['limit=101', ['limit must not be greater than 100']],
      ['limit=1000', ['limit must not be greater than 100']],
      ['limit=0', ['limit must not be less than 1']],
      ['limit=-5', ['limit must not be less than 1']],
      ['page=0', ['page must not be less than 1']],
      ['limit=1.5', ['limit must be an integer number']],
      ['limit=abc', ['limit must be an integer number']],
      ['page=2.5', ['page must be an integer number']],
      ['page=x', ['page must be an integer number']],
      ['channelId=xyz', ['channelId must be a 24-character hexadecimal id']],
      ['channelId=6b0281f95179c1a813a198a', ['channelId must be a 24-character hexadecimal id']],
      ['teamId=1', ['teamId must be a 24-character hexadecimal id']],
      ['userId=zzzzzzzzzzzzzzzzzzzzzzzz', ['userId must be a 24-character hexadecimal id']],
      ['queue=', ['queue should not be empty']],
      ['foo=1', ['property foo should not exist']],
      ['status=open', ['property status should not exist']],
      ['page=0&limit=0', ['page must not be less than 1', 'limit must not be less than 1']],
      ['limit=101&foo=1', ['property foo should not exist', 'limit must not be greater than 100']],
    ];
    for (const [query, message] of cases) {
      it(`answers 400 to ?${query}`, async () => {
        const res = await list(f.apiKey, query);
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.deepEqual(res.body, badRequest(...message));
      });
    }
  });

  describe('items', () => {
    it('has every Chat field with the contract shape', async () => {
      const fx = await seedAccount(t.server.services);
      const value = phone();
      const chatId = await fx.inbound(0, value, 'primeira', 'Maria');
      await fx.inbound(0, value, 'segunda');
      const anonymous = await fx.inbound(1, phone(), 'sem nome');

      const res = await list(fx.apiKey);
      assertPage(res, { total: 2, page: 1, limit: 20, nextPage: null, ids: [anonymous, chatId] });
      const [second, first] = page(res).chats as [Chat, Chat];

      const stored = await db.query<{ contact_id: string; message_id: string }>(
        `SELECT c.contact_id, (SELECT m.id FROM messages m WHERE m.chat_id = c.id
           ORDER BY m.created_at DESC, m.id DESC LIMIT 1) AS message_id
         FROM chats c WHERE c.id = $1`,
        [chatId],
      );
      const row = stored.rows[0]!;
      for (const chat of [first, second]) {
        assert.deepEqual(Object.keys(chat).sort(), CHAT_FIELDS);
        assert.match(chat.id, OBJECT_ID);
        assert.match(chat.contact.id, OBJECT_ID);
        assert.deepEqual(Object.keys(chat.contact).sort(), ['id', 'name', 'value']);
        assert.ok(isIso(chat.createdAt), chat.createdAt);
        assert.ok(isIso(chat.updatedAt), chat.updatedAt);
        assert.ok(chat.updatedAt >= chat.createdAt);
      }
      assert.deepEqual(first, {
        id: chatId,
        status: 'open',
        queue: 'Espera',
        channelId: fx.channels[0]!.id,
        teamId: fx.teams[0]!.id,
        userId: null,
        contact: { id: row.contact_id, name: 'Maria', value },
        unreadMessages: 2,
        lastMessage: {
          id: row.message_id,
          origin: 'contact',
          type: 'text',
          content: 'segunda',
          createdAt: first.lastMessage!.createdAt,
        },
        createdAt: first.createdAt,
        updatedAt: first.updatedAt,
        // Additive to the contract's Chat: the chat's labels (none yet) and its SLA (its team has none).
        labels: [],
        sla: null,
      });
      assert.ok(isIso(String(first.lastMessage!.createdAt)));
      // A contact without a name is shown by its number.
      assert.equal(second.contact.name, second.contact.value);
      assert.equal(second.channelId, fx.channels[1]!.id);
      assert.equal(second.teamId, fx.teams[1]!.id);
      assert.deepEqual([second.lastMessage?.origin, second.lastMessage?.content], ['contact', 'sem nome']);
    });

    it('shows the attendant once a chat is attended', async () => {
      const fx = await seedAccount(t.server.services);
      const chatId = await fx.inbound(0, phone());
      await fx.services.chatMoves.transferToUser(fx.admin, chatId, { userId: fx.agents[0]!.id });
      const [chat] = page(await list(fx.apiKey)).chats;
      assert.equal(chat?.userId, fx.agents[0]!.id);
      assert.equal(chat?.queue, 'Em Atendimento');
    });

    it('orders newest first: createdAt descending, then id descending', async () => {
      const fx = await seedAccount(t.server.services);
      const phones = Array.from({ length: 5 }, phone);
      const created: string[] = [];
      for (const [i, value] of phones.entries()) created.push(await fx.inbound(i % 2, value));
      assertPage(await list(fx.apiKey), {
        total: 5,
        page: 1,
        limit: 20,
        nextPage: null,
        ids: [...created].reverse(),
      });

      // A message on an old chat does not move it: the order is by creation, not by activity.
      assert.equal(await fx.inbound(0, phones[0]!, 'de novo'), created[0]);
      assert.deepEqual(ids(await list(fx.apiKey)), [...created].reverse());

      // Equal creation times fall back to the id, descending; a later creation time comes first.
      const [c0, c1, c2, c3, c4] = created as [string, string, string, string, string];
      await db.query(`UPDATE chats SET created_at = '2030-01-01T00:00:00Z' WHERE id = ANY($1)`, [
        [c1, c3, c4],
      ]);
      await db.query(`UPDATE chats SET created_at = '2031-01-01T00:00:00Z' WHERE id = $1`, [c0]);
      const byId = [c1, c3, c4].sort().reverse();
      assertPage(await list(fx.apiKey), {
        total: 5,
        page: 1,
        limit: 20,
        nextPage: null,
        ids: [c0, ...byId, c2],
      });
      // Paging walks the same order without skipping or repeating a chat.
      const walked: string[] = [];
      for (let p = 1; p <= 5; p++) walked.push(...ids(await list(fx.apiKey, `limit=1&page=${p}`)));
      assert.deepEqual(walked, [c0, ...byId, c2]);
      const chats = page(await list(fx.apiKey)).chats;
      assert.equal(chats[0]!.createdAt, '2031-01-01T00:00:00.000Z');
    });
  });

  describe('pagination', () => {
    let fx: Fixture;
    let newestFirst: string[];
    before(async () => {
      fx = await seedAccount(t.server.services);
      const created: string[] = [];
      for (let i = 0; i < 101; i++) created.push(await fx.inbound(i % 2, phone()));
      newestFirst = created.reverse();
    });

    it('pages 20 at a time by default', async () => {
      assertPage(await list(fx.apiKey), {
        total: 101,
        page: 1,
        limit: 20,
        nextPage: 2,
        ids: newestFirst.slice(0, 20),
      });
      assertPage(await list(fx.apiKey, 'page=2'), {
        total: 101,
        page: 2,
        limit: 20,
        nextPage: 3,
        ids: newestFirst.slice(20, 40),
      });
      assertPage(await list(fx.apiKey, 'page=6'), {
        total: 101,
        page: 6,
        limit: 20,
        nextPage: null,
        ids: newestFirst.slice(100),
      });
    });

    it('accepts limit 1 and limit 100', async () => {
      assertPage(await list(fx.apiKey, 'limit=1'), {
        total: 101,
        page: 1,
        limit: 1,
        nextPage: 2,
        ids: newestFirst.slice(0, 1),
      });
      assertPage(await list(fx.apiKey, 'limit=1&page=101'), {
        total: 101,
        page: 101,
        limit: 1,
        nextPage: null,
        ids: newestFirst.slice(100),
      });
      assertPage(await list(fx.apiKey, 'limit=100'), {
        total: 101,
        page: 1,
        limit: 100,
        nextPage: 2,
        ids: newestFirst.slice(0, 100),
      });
      assertPage(await list(fx.apiKey, 'limit=100&page=2'), {
        total: 101,
        page: 2,
        limit: 100,
        nextPage: null,
        ids: newestFirst.slice(100),
      });
    });

    it('answers an empty page past the end with the exact total', async () => {
      for (const query of ['page=7', 'limit=100&page=3', 'page=1000']) {
        const res = await list(fx.apiKey, query);
        const p = Number(/page=(\d+)/.exec(query)![1]);
        const l = Number(/limit=(\d+)/.exec(query)?.[1] ?? 20);
        assertPage(res, { total: 101, page: p, limit: l, nextPage: null, ids: [] });
      }
    });
  });

  describe('filters', () => {
    interface Model {
      id: string;
      channelId: string;
      teamId: string;
      userId: string | null;
      queue: string;
    }
    let fx: Fixture;
    let model: Model[];
    before(async () => {
      fx = await seedAccount(t.server.services);
      const [ch0, ch1] = fx.channels.map((c) => c.id) as [string, string];
      const [team0, team1] = fx.teams.map((c) => c.id) as [string, string];
      const [agent0, agent1] = fx.agents.map((a) => a.id) as [string, string];
      const chats = fx.services.chatMoves;
      model = [];
      const add = async (channel: number, change?: (id: string) => Promise<unknown>) => {
        const id = await fx.inbound(channel, phone());
        if (change) await change(id);
        const [row] = page(await list(fx.apiKey, 'limit=1')).chats;
        assert.equal(row?.id, id);
        model.push({
          id,
          channelId: row.channelId,
          teamId: row.teamId,
          userId: row.userId,
          queue: row.queue,
        });
      };
      await add(0);
      await add(0, (id) => chats.transferToUser(fx.admin, id, { userId: agent0 }));
      await add(1);
      await add(1, (id) => chats.transferToUser(fx.admin, id, { userId: agent1 }));
      await add(1, (id) => chats.transferToTeam(fx.admin, id, { teamId: team0 }));
      await add(0, (id) => chats.transferToUser(fx.admin, id, { userId: agent1 }));
      await add(0, (id) => moveToQueue(fx, id, 'Automação'));
      // Two chats in Observação, which no list shows. (Observação is only reachable with a queue move.)
      const hidden1 = await fx.inbound(0, phone());
      await moveToQueue(fx, hidden1, 'Observação');
      const hidden2 = await fx.inbound(1, phone());
      await chats.transferToUser(fx.admin, hidden2, { userId: agent1 });
      await moveToQueue(fx, hidden2, 'Observação');
      model.push(
        { id: hidden1, channelId: ch0, teamId: team0, userId: null, queue: 'Observação' },
        { id: hidden2, channelId: ch1, teamId: team1, userId: agent1, queue: 'Observação' },
      );
      await add(1);
    });

    const expected = (filter: Partial<Omit<Model, 'id'>>) =>
      model
        .filter((m) => m.queue !== 'Observação')
        .filter((m) => (Object.keys(filter) as (keyof typeof filter)[]).every((k) => m[k] === filter[k]))
        .map((m) => m.id)
        .reverse();

    it('applies channelId, queue, teamId and userId alone and combined (AND)', async () => {
      const [ch0, ch1] = fx.channels.map((c) => c.id) as [string, string];
      const [team0, team1] = fx.teams.map((c) => c.id) as [string, string];
      const [agent0, agent1] = fx.agents.map((a) => a.id) as [string, string];
      const filters: Partial<Omit<Model, 'id'>>[] = [
        {},
        { channelId: ch0 },
        { channelId: ch1 },
        { queue: 'Espera' },
        { queue: 'Em Atendimento' },
        { queue: 'Automação' },
        { queue: 'API' },
        { teamId: team0 },
        { teamId: team1 },
        { userId: agent0 },
        { userId: agent1 },
        { channelId: ch1, teamId: team0 },
        { channelId: ch0, queue: 'Espera', teamId: team0 },
        { teamId: team0, userId: agent1 },
        { queue: 'Em Atendimento', channelId: ch1, userId: agent1 },
        { userId: agent1, channelId: ch0, queue: 'Espera' },
        { teamId: '0123456789abcdef01234567' },
      ];
      for (const filter of filters) {
        const query = new URLSearchParams(filter as Record<string, string>).toString();
        const want = expected(filter);
        assertPage(await list(fx.apiKey, query), {
          total: want.length,
          page: 1,
          limit: 20,
          nextPage: null,
          ids: want,
        });
      }
      // The model itself covers each kind of row, so the comparisons above are not vacuous.
      assert.equal(expected({}).length, 8);
      assert.deepEqual(expected({ channelId: ch1, teamId: team0 }).length, 1);
    });

    it('pages within a filter', async () => {
      const want = expected({ teamId: fx.teams[0]!.id });
      assert.ok(want.length >= 4);
      const res = await list(fx.apiKey, `teamId=${fx.teams[0]!.id}&limit=2&page=2`);
      assertPage(res, {
        total: want.length,
        page: 2,
        limit: 2,
        nextPage: want.length > 4 ? 3 : null,
        ids: want.slice(2, 4),
      });
    });

    it('leaves Observação out even when asked for by name', async () => {
      const res = await list(fx.apiKey, new URLSearchParams({ queue: 'Observação' }).toString());
      assertPage(res, { total: 0, page: 1, limit: 20, nextPage: null, ids: [] });
    });
  });

  describe('queue Observação', () => {
    it('leaves the chat out of the items and of the total, and back in when it leaves', async () => {
      const fx = await seedAccount(t.server.services);
      const a = await fx.inbound(0, phone());
      const b = await fx.inbound(0, phone());
      const c = await fx.inbound(1, phone());
      const limited = await fx.makeKey(['chats:read'], [fx.channels[0]!.id]);
      assertPage(await list(fx.apiKey), { total: 3, page: 1, limit: 20, nextPage: null, ids: [c, b, a] });

      await moveToQueue(fx, b, 'Observação');
      assertPage(await list(fx.apiKey), { total: 2, page: 1, limit: 20, nextPage: null, ids: [c, a] });
      assertPage(await list(fx.apiKey, 'limit=1'), { total: 2, page: 1, limit: 1, nextPage: 2, ids: [c] });
      assertPage(await list(fx.apiKey, 'limit=1&page=2'), {
        total: 2,
        page: 2,
        limit: 1,
        nextPage: null,
        ids: [a],
      });
      assertPage(await list(fx.apiKey, `channelId=${fx.channels[0]!.id}`), {
        total: 1,
        page: 1,
        limit: 20,
        nextPage: null,
        ids: [a],
      });
      assertPage(await list(fx.apiKey, `teamId=${fx.teams[0]!.id}`), {
        total: 1,
        page: 1,
        limit: 20,
        nextPage: null,
        ids: [a],
      });
      assertPage(await list(limited), { total: 1, page: 1, limit: 20, nextPage: null, ids: [a] });

      await moveToQueue(fx, b, 'Espera');
      assertPage(await list(fx.apiKey), { total: 3, page: 1, limit: 20, nextPage: null, ids: [c, b, a] });
    });
  });

  describe('closed chats', () => {
    it('are not listed', async () => {
      const fx = await seedAccount(t.server.services);
      const a = await fx.inbound(0, phone());
      const b = await fx.inbound(0, phone());
      await db.query(`UPDATE chats SET status = 'closed', closed_at = now() WHERE id = $1`, [b]);
      assertPage(await list(fx.apiKey), { total: 1, page: 1, limit: 20, nextPage: null, ids: [a] });
      assertPage(await list(fx.apiKey, 'queue=Espera'), {
        total: 1,
        page: 1,
        limit: 20,
        nextPage: null,
        ids: [a],
      });
    });
  });

  describe('channel-limited keys', () => {
    let fx: Fixture;
    let limited: string;
    let onA: string[];
    let onB: string[];
    before(async () => {
      fx = await seedAccount(t.server.services);
      onA = [];
      onB = [];
      for (let i = 0; i < 3; i++) {
        onA.push(await fx.inbound(0, phone()));
        onB.push(await fx.inbound(1, phone()));
      }
      limited = await fx.makeKey(['chats:read', 'chats:transfer'], [fx.channels[0]!.id]);
    });

    it('sees only its channels, with and without channelId', async () => {
      const want = [...onA].reverse();
      assertPage(await list(limited), { total: 3, page: 1, limit: 20, nextPage: null, ids: want });
      assertPage(await list(limited, `channelId=${fx.channels[0]!.id}`), {
        total: 3,
        page: 1,
        limit: 20,
        nextPage: null,
        ids: want,
      });
      assertPage(await list(limited, 'limit=2&page=2'), {
        total: 3,
        page: 2,
        limit: 2,
        nextPage: null,
        ids: want.slice(2),
      });
      // Filters never reach past the key's channels: team 1 is channel B's default team.
      assertPage(await list(limited, `teamId=${fx.teams[1]!.id}`), {
        total: 0,
        page: 1,
        limit: 20,
        nextPage: null,
        ids: [],
      });
      // The full key sees both channels.
      assert.equal(page(await list(fx.apiKey)).total, 6);
      const both = await fx.makeKey(
        ['chats:read'],
        fx.channels.map((c) => c.id),
      );
      assert.equal(page(await list(both)).total, 6);
    });

    it('answers 404 for a channelId outside its channels', async () => {
      for (const query of [
        `channelId=${fx.channels[1]!.id}`,
        `channelId=${fx.channels[1]!.id}&queue=Espera`,
      ]) {
        const res = await list(limited, query);
        assert.equal(res.status, 404, query);
        assert.deepEqual(res.body, NOT_FOUND);
      }
    });

    it('answers 404 for a channel outside its channels before validating the rest of the query', async () => {
      const res = await list(limited, `channelId=${fx.channels[1]!.id}&limit=0&foo=1`);
      assert.equal(res.status, 404, JSON.stringify(res.body));
      assert.deepEqual(res.body, NOT_FOUND);
    });
  });

  describe('tenancy', () => {
    it('never shows or reaches another account', async () => {
      const fx = await seedAccount(t.server.services);
      const fy = await seedAccount(t.server.services);
      const x = await fx.inbound(0, phone());
      const y = await fy.inbound(0, phone());
      assertPage(await list(fx.apiKey), { total: 1, page: 1, limit: 20, nextPage: null, ids: [x] });
      assertPage(await list(fy.apiKey), { total: 1, page: 1, limit: 20, nextPage: null, ids: [y] });

      // Another account's channel (or one that does not exist) is outside every key's channels.
      const foreign = [fy.channels[0]!.id, '0123456789abcdef01234567'];
      const limited = await fx.makeKey(['chats:read'], [fx.channels[0]!.id]);
      for (const key of [fx.apiKey, limited]) {
        for (const channelId of foreign) {
          const res = await list(key, `channelId=${channelId}`);
          assert.equal(res.status, 404, channelId);
          assert.deepEqual(res.body, NOT_FOUND);
        }
      }
      // Also before the rest of the query is refused by validation or the input guard.
      for (const rest of ['limit=0', 'foo=1', 'queue=a%00b', 'page=1e300']) {
        const res = await list(fx.apiKey, `channelId=${foreign[0]}&${rest}`);
        assert.equal(res.status, 404, rest);
        assert.deepEqual(res.body, NOT_FOUND);
      }
      // Team and attendant filters are filters: another account's ids simply match nothing.
      for (const query of [`teamId=${fy.teams[0]!.id}`, `userId=${fy.agents[0]!.id}`]) {
        assertPage(await list(fx.apiKey, query), { total: 0, page: 1, limit: 20, nextPage: null, ids: [] });
      }
    });
  });

  describe('exact totals', () => {
    it('every filter shape counts exactly what it lists, through transfers, captures, queue moves and closes, and after housekeeping', async () => {
      const restricted = await f.makeKey(['chats:read'], [f.channels[1]!.id]);
      const chats = await Promise.all(Array.from({ length: 8 }, (_, i) => f.inbound(i % 2, phone())));
      const agentApi = (path: string, body?: unknown, token = f.adminToken) =>
        t.request('POST', path, { headers: { authorization: `Bearer ${token}` }, ...(body ? { body } : {}) });
      const ok = (res: TestResponse) => assert.ok(res.status < 300, JSON.stringify(res.body));
      ok(await agentApi(`/api/chats/${chats[0]}/transfer`, { teamId: f.teams[1]!.id }));
      ok(await agentApi(`/api/chats/${chats[1]}/transfer`, { userId: f.agents[0]!.id }));
      ok(await agentApi(`/api/chats/${chats[2]}/capture`, undefined, f.agents[0]!.token));
      ok(await agentApi(`/api/chats/${chats[3]}/queue`, { queue: 'Automação' }));
      ok(await agentApi(`/api/chats/${chats[4]}/queue`, { queue: 'Observação' }));
      ok(await agentApi(`/api/chats/${chats[5]}/close`));
      ok(await agentApi(`/api/chats/${chats[6]}/transfer`, { userId: f.agents[1]!.id }));

      const shapes: [string, string, string][] = [
        ['every chat', f.apiKey, ''],
        ['one channel', f.apiKey, `channelId=${f.channels[1]!.id}`],
        ['one queue', f.apiKey, 'queue=Espera'],
        ['one team', f.apiKey, `teamId=${f.teams[1]!.id}`],
        ['one attendant', f.apiKey, `userId=${f.agents[0]!.id}`],
        ['a team in a queue', f.apiKey, `teamId=${f.teams[0]!.id}&queue=Em%20Atendimento`],
        ['a channel and a team', f.apiKey, `channelId=${f.channels[0]!.id}&teamId=${f.teams[1]!.id}`],
        ['a key limited to a channel', restricted, ''],
        ['a key limited to a channel, one queue', restricted, 'queue=Espera'],
        ['a key limited to a channel, one attendant', restricted, `userId=${f.agents[1]!.id}`],
      ];
      const check = async (when: string) => {
        for (const [name, key, query] of shapes) {
          const res = await list(key, `${query}${query ? '&' : ''}limit=100`);
          assert.equal(res.status, 200, JSON.stringify(res.body));
          assert.equal(page(res).total, page(res).chats.length, `${name} (${when})`);
        }
      };
      await check('after the changes');
      await f.services.chats.foldCounts();
      await check('after housekeeping');
    });

    it('an account deleted with its chats takes its counters with it', async () => {
      const gone = await seedAccount(t.server.services);
      await Promise.all([gone.inbound(0, phone()), gone.inbound(1, phone())]);
      await db.query('DELETE FROM accounts WHERE id = $1', [gone.accountId]);
      const left = await db.query(
        `SELECT (SELECT count(*) FROM chat_counts WHERE account_id = $1)::int AS counts,
                (SELECT count(*) FROM chat_totals WHERE account_id = $1)::int AS totals`,
        [gone.accountId],
      );
      assert.deepEqual(left.rows[0], { counts: 0, totals: 0 });
    });
  });
});
