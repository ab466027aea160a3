import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import pg from 'pg';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// POST /channel-api/chats/:id/transfer/team and /transfer/user: effects, history, errors, concurrency.

interface Chat {
  id: string;
  status: string;
  queue: string;
  channelId: string;
  teamId: string;
  userId: string | null;
  contact: { id: string; name: string; value: string };
  unreadMessages: number;
  lastMessage: Record<string, unknown> | null;
  createdAt: string;
  updatedAt: string;
}
interface TransferRow {
  from_team_id: string | null;
  to_team_id: string;
  from_user_id: string | null;
  to_user_id: string | null;
  reason_code: string | null;
  reason: string | null;
  actor_type: string;
  actor_id: string;
}

const UNAUTHORIZED = { statusCode: 401, message: 'Credencial ausente ou inválida', error: 'Unauthorized' };
const NOT_FOUND = { statusCode: 404, message: 'Not Found', error: 'Not Found' };
const CONFLICT = { statusCode: 409, message: 'O chat ja esta sendo processado.', error: 'Conflict' };
const TEAM_NOT_FOUND = { statusCode: 400, message: 'Equipe não encontrada', error: 'Bad Request' };
const USER_NOT_FOUND = { statusCode: 400, message: 'Usuário não encontrado', error: 'Bad Request' };
const badRequest = (...message: string[]) => ({ statusCode: 400, message, error: 'Bad Request' });
const UNKNOWN_ID = '0123456789abcdef01234567';

let phoneSeq = 0;
const phone = () => `5511986${String(++phoneSeq).padStart(6, '0')}`;
const keyIdOf = (token: string) => token.split('_')[1]!;
const isIso = (s: string) => new Date(s).toISOString() === s;
let emailSeq = 0;

describe('Channel API transfers', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;

  const transfer = (kind: 'team' | 'user', chatId: string, body: unknown, key = f.apiKey) =>
    t.request('POST', `/channel-api/chats/${chatId}/transfer/${kind}`, {
      headers: { authorization: `ApiKey ${key}` },
      body,
    });
  /**
   * The stored chat as the Channel API shows it (the agent view's `window`, `customerId`, `snooze` and
   * `botId` left out).
   */
  const stored = async (chatId: string, fx = f): Promise<Chat> => {
    const {
      window: _window,
      customerId: _customer,
      snooze: _snooze,
      botId: _bot,
      ...chat
    } = await fx.services.chats.getForUser(fx.admin, chatId);
    return chat;
  };
  const history = async (chatId: string) =>
    (
      await db.query<TransferRow>(
        `SELECT from_team_id, to_team_id, from_user_id, to_user_id, reason_code, reason, actor_type, actor_id
           FROM chat_transfers WHERE chat_id = $1 ORDER BY created_at, id`,
        [chatId],
      )
    ).rows;
  const newAgent = async (fx = f, status: 'active' | 'onboarding' = 'active') => {
    const user = await fx.services.users.create(fx.admin, {
      name: `Extra ${++emailSeq}`,
      email: `extra-${Date.now().toString(36)}-${emailSeq}@example.com`,
      password: 'agent-password',
      role: 'agent',
      status,
    });
    return user.id;
  };
  /** A pg client on the test database, for holding locks the way another operation would. */
  const client = async () => {
    const c = new pg.Client({ connectionString: t.databaseUrl });
    await c.connect();
    return c;
  };
  /**
   * Resolves once `n` sessions of the test database wait on a lock (the requests under test), or
   * once one of `pending` has answered, since an answered request waits on nothing.
   */
  const lockWaiters = async (n: number, pending: Promise<unknown>[]) => {
    let answered = false;
    for (const p of pending) void p.finally(() => (answered = true)).catch(() => undefined);
    while (!answered) {
      const { rows } = await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      if (rows[0]!.n >= n) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const assertUnchanged = async (chatId: string, before: Chat) => {
    assert.deepEqual(await stored(chatId), before);
    assert.deepEqual(await history(chatId), []);
  };

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 3 });
  });
  after(async () => {
    await db?.end();
    await t?.close();
  });

  describe('to a team', () => {
    it('puts the chat in the target team’s Espera queue, without attendant, and records it', async () => {
      const chatId = await f.inbound(0, phone(), 'Quero falar com o financeiro');
      const before = await stored(chatId);
      assert.deepEqual([before.queue, before.teamId, before.userId], ['Espera', f.teams[0]!.id, null]);

      const res = await transfer('team', chatId, {
        teamId: f.teams[1]!.id,
        reasonCode: 'FINANCEIRO',
        reason: 'Cliente pediu o financeiro',
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const chat = res.body as Chat;
      assert.deepEqual(chat, {
        ...before,
        queue: 'Espera',
        teamId: f.teams[1]!.id,
        userId: null,
        updatedAt: chat.updatedAt,
      });
      assert.ok(isIso(chat.updatedAt) && chat.updatedAt >= before.updatedAt);
      assert.deepEqual(await stored(chatId), chat);
      assert.deepEqual(await history(chatId), [
        {
          from_team_id: f.teams[0]!.id,
          to_team_id: f.teams[1]!.id,
          from_user_id: null,
          to_user_id: null,
          reason_code: 'FINANCEIRO',
          reason: 'Cliente pediu o financeiro',
          actor_type: 'api_key',
          actor_id: keyIdOf(f.apiKey),
        },
      ]);
    });

    it('takes the chat from its attendant: user first, then team', async () => {
      const chatId = await f.inbound(0, phone());
      const toUser = await transfer('user', chatId, { userId: f.agents[0]!.id });
      assert.equal(toUser.status, 200, JSON.stringify(toUser.body));
      assert.deepEqual(
        [toUser.json.queue, toUser.json.teamId, toUser.json.userId],
        ['Em Atendimento', f.teams[0]!.id, f.agents[0]!.id],
      );

      const key = await f.makeKey(['chats:transfer']);
      const toTeam = await transfer('team', chatId, { teamId: f.teams[1]!.id }, key);
      assert.equal(toTeam.status, 200, JSON.stringify(toTeam.body));
      assert.deepEqual(
        [toTeam.json.queue, toTeam.json.teamId, toTeam.json.userId],
        ['Espera', f.teams[1]!.id, null],
      );
      assert.deepEqual(await stored(chatId), toTeam.body);
      assert.deepEqual(await history(chatId), [
        {
          from_team_id: f.teams[0]!.id,
          to_team_id: f.teams[0]!.id,
          from_user_id: null,
          to_user_id: f.agents[0]!.id,
          reason_code: null,
          reason: null,
          actor_type: 'api_key',
          actor_id: keyIdOf(f.apiKey),
        },
        {
          from_team_id: f.teams[0]!.id,
          to_team_id: f.teams[1]!.id,
          from_user_id: f.agents[0]!.id,
          to_user_id: null,
          reason_code: null,
          reason: null,
          actor_type: 'api_key',
          actor_id: keyIdOf(key),
        },
      ]);
    });

    it('returns an attended chat to its own team’s queue', async () => {
      const chatId = await f.inbound(0, phone());
      assert.equal((await transfer('user', chatId, { userId: f.agents[0]!.id })).status, 200);
      const res = await transfer('team', chatId, { teamId: f.teams[0]!.id });
      assert.equal(res.status, 200);
      assert.deepEqual([res.json.queue, res.json.teamId, res.json.userId], ['Espera', f.teams[0]!.id, null]);
      assert.equal((await history(chatId)).length, 2);
    });

    it('answers 400 Equipe não encontrada for an unknown, inactive or foreign team', async () => {
      const inactive = await f.services.teams.create(f.admin, { name: 'Inativa' });
      const patched = await t.request('PATCH', `/api/teams/${inactive.id}`, {
        headers: { authorization: `Bearer ${f.adminToken}` },
        body: { status: 'inactive' },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      assert.equal(patched.json.status, 'inactive');

      const chatId = await f.inbound(0, phone());
      const before = await stored(chatId);
      for (const teamId of [UNKNOWN_ID, inactive.id, other.teams[0]!.id]) {
        const res = await transfer('team', chatId, { teamId, reason: 'x' });
        assert.equal(res.status, 400, teamId);
        assert.deepEqual(res.body, TEAM_NOT_FOUND);
      }
      await assertUnchanged(chatId, before);
    });
  });

  describe('to a user', () => {
    it('puts the chat in Em Atendimento with the user, keeping the team, and records it', async () => {
      const chatId = await f.inbound(0, phone());
      const before = await stored(chatId);
      // Agent 1 belongs to team 1, not to the chat's team 0: the chat still keeps team 0.
      const res = await transfer('user', chatId, {
        userId: f.agents[1]!.id,
        reasonCode: 'VIP',
        reason: 'Cliente da carteira do agente 1',
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const chat = res.body as Chat;
      assert.deepEqual(chat, {
        ...before,
        queue: 'Em Atendimento',
        teamId: f.teams[0]!.id,
        userId: f.agents[1]!.id,
        updatedAt: chat.updatedAt,
      });
      assert.ok(isIso(chat.updatedAt) && chat.updatedAt >= before.updatedAt);
      assert.deepEqual(await stored(chatId), chat);
      assert.deepEqual(await history(chatId), [
        {
          from_team_id: f.teams[0]!.id,
          to_team_id: f.teams[0]!.id,
          from_user_id: null,
          to_user_id: f.agents[1]!.id,
          reason_code: 'VIP',
          reason: 'Cliente da carteira do agente 1',
          actor_type: 'api_key',
          actor_id: keyIdOf(f.apiKey),
        },
      ]);
    });

    it('replaces the attendant', async () => {
      const chatId = await f.inbound(1, phone());
      assert.equal((await transfer('user', chatId, { userId: f.agents[1]!.id })).status, 200);
      const res = await transfer('user', chatId, { userId: f.agents[0]!.id });
      assert.equal(res.status, 200);
      assert.deepEqual(
        [res.json.queue, res.json.teamId, res.json.userId],
        ['Em Atendimento', f.teams[1]!.id, f.agents[0]!.id],
      );
      const rows = await history(chatId);
      assert.deepEqual(
        rows.map((r) => [r.from_user_id, r.to_user_id, r.from_team_id, r.to_team_id]),
        [
          [null, f.agents[1]!.id, f.teams[1]!.id, f.teams[1]!.id],
          [f.agents[1]!.id, f.agents[0]!.id, f.teams[1]!.id, f.teams[1]!.id],
        ],
      );
    });

    it('accepts a user in onboarding and the admin', async () => {
      const onboarding = await newAgent(f, 'onboarding');
      for (const userId of [onboarding, f.admin.userId]) {
        const chatId = await f.inbound(0, phone());
        const res = await transfer('user', chatId, { userId });
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.json.userId, userId);
      }
    });

    it('answers 400 Usuário não encontrado for an unknown, cancelled or foreign user', async () => {
      const cancelled = await newAgent();
      await f.services.users.update(f.admin, cancelled, { status: 'cancelled' });
      const chatId = await f.inbound(0, phone());
      const before = await stored(chatId);
      for (const userId of [UNKNOWN_ID, cancelled, other.agents[0]!.id, other.admin.userId]) {
        const res = await transfer('user', chatId, { userId });
        assert.equal(res.status, 400, userId);
        assert.deepEqual(res.body, USER_NOT_FOUND);
      }
      await assertUnchanged(chatId, before);
    });
  });

  describe('chats the key cannot reach', () => {
    it('answers 404 for a closed chat', async () => {
      const chatId = await f.inbound(0, phone());
      await db.query(`UPDATE chats SET status = 'closed', closed_at = now() WHERE id = $1`, [chatId]);
      for (const [kind, body] of [
        ['team', { teamId: f.teams[1]!.id }],
        ['user', { userId: f.agents[0]!.id }],
      ] as const) {
        const res = await transfer(kind, chatId, body);
        assert.equal(res.status, 404, kind);
        assert.deepEqual(res.body, NOT_FOUND);
      }
      const row = await db.query('SELECT status, queue, team_id, user_id FROM chats WHERE id = $1', [chatId]);
      assert.deepEqual(row.rows[0], {
        status: 'closed',
        queue: 'Espera',
        team_id: f.teams[0]!.id,
        user_id: null,
      });
      assert.deepEqual(await history(chatId), []);
    });

    it('answers 404 for an unknown chat and for a chat of another account', async () => {
      const foreign = await other.inbound(0, phone());
      const before = await stored(foreign, other);
      for (const chatId of [UNKNOWN_ID, foreign]) {
        for (const [kind, body] of [
          ['team', { teamId: f.teams[1]!.id }],
          ['user', { userId: f.agents[0]!.id }],
        ] as const) {
          const res = await transfer(kind, chatId, body);
          assert.equal(res.status, 404, `${kind} ${chatId}`);
          assert.deepEqual(res.body, NOT_FOUND);
        }
      }
      // Even with the other account's own team and user in the body.
      const withTheirIds = [
        await transfer('team', foreign, { teamId: other.teams[1]!.id }),
        await transfer('user', foreign, { userId: other.agents[0]!.id }),
      ];
      for (const res of withTheirIds) assert.deepEqual([res.status, res.body], [404, NOT_FOUND]);
      assert.deepEqual(await stored(foreign, other), before);
      assert.deepEqual(await history(foreign), []);
    });

    it('limits a channel-limited key to its channels', async () => {
      const limited = await f.makeKey(['chats:read', 'chats:transfer'], [f.channels[0]!.id]);
      const onA = await f.inbound(0, phone());
      const onB = await f.inbound(1, phone());
      const beforeB = await stored(onB);

      const ok = await transfer('user', onA, { userId: f.agents[0]!.id }, limited);
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      // The target team may be any team of the account: the limit is on channels, not teams.
      const okTeam = await transfer('team', onA, { teamId: f.teams[1]!.id }, limited);
      assert.equal(okTeam.status, 200, JSON.stringify(okTeam.body));
      assert.equal(okTeam.json.teamId, f.teams[1]!.id);

      for (const [kind, body] of [
        ['team', { teamId: f.teams[1]!.id }],
        ['user', { userId: f.agents[0]!.id }],
        ['team', {}],
        ['user', { userId: 'x', foo: 1 }],
      ] as const) {
        const res = await transfer(kind, onB, body, limited);
        assert.equal(res.status, 404, `${kind} ${JSON.stringify(body)}`);
        assert.deepEqual(res.body, NOT_FOUND);
      }
      await assertUnchanged(onB, beforeB);
    });
  });

  describe('credentials, scope and validation', () => {
    let chatId: string;
    before(async () => {
      chatId = await f.inbound(0, phone());
    });

    it('answers 401 for a missing or invalid credential, before validating', async () => {
      const revoked = await f.services.apiKeys.create(f.admin, {
        name: 'revogada',
        scopes: ['chats:transfer'],
        channelIds: null,
      });
      await f.services.apiKeys.revoke(f.admin, revoked.id);
      const [, id, secret] = f.apiKey.split('_') as [string, string, string];
      const wrongSecret = `ak_${id}_${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
      const credentials: Record<string, string>[] = [
        {},
        { authorization: `Bearer ${f.apiKey}` },
        { authorization: 'ApiKey garbage' },
        { authorization: `ApiKey ${wrongSecret}` },
        { authorization: `ApiKey ${revoked.token}` },
      ];
      for (const kind of ['team', 'user'] as const) {
        for (const headers of credentials) {
          for (const [path, body] of [
            [chatId, kind === 'team' ? { teamId: f.teams[1]!.id } : { userId: f.agents[0]!.id }],
            [chatId, { foo: 1 }],
            ['abc', {}],
          ] as const) {
            const res = await t.request('POST', `/channel-api/chats/${path}/transfer/${kind}`, {
              headers,
              body,
            });
            assert.equal(res.status, 401, `${kind} ${JSON.stringify(headers)} ${path}`);
            assert.deepEqual(res.body, UNAUTHORIZED);
          }
        }
      }
    });

    it('answers 404 to a key without chats:transfer, before validating', async () => {
      const key = await f.makeKey(['chats:read', 'users:read', 'teams:read']);
      for (const kind of ['team', 'user'] as const) {
        for (const [path, body] of [
          [chatId, kind === 'team' ? { teamId: f.teams[1]!.id } : { userId: f.agents[0]!.id }],
          [chatId, {}],
          [chatId, { foo: 1 }],
          ['abc', { teamId: 'x' }],
          [UNKNOWN_ID, {}],
        ] as const) {
          const res = await transfer(kind, path, body, key);
          assert.equal(res.status, 404, `${kind} ${path} ${JSON.stringify(body)}`);
          assert.deepEqual(res.body, NOT_FOUND);
        }
      }
      assert.deepEqual(await history(chatId), []);
    });

    const cases: ['team' | 'user', string, unknown, string[]][] = [
      ['team', 'abc', { teamId: UNKNOWN_ID }, ['id must be a 24-character hexadecimal id']],
      ['user', 'abc', { userId: UNKNOWN_ID }, ['id must be a 24-character hexadecimal id']],
      [
        'team',
        '0123456789abcdef0123456z',
        { teamId: UNKNOWN_ID },
        ['id must be a 24-character hexadecimal id'],
      ],
      ['team', '', {}, ['teamId should not be empty']],
      ['user', '', {}, ['userId should not be empty']],
      ['team', '', { teamId: 'equipe' }, ['teamId must be a 24-character hexadecimal id']],
      // JSON bodies are taken as typed: a number is not turned into a string.
      ['user', '', { userId: 42 }, ['userId must be a string']],
      ['team', '', { teamId: UNKNOWN_ID, reason: 5 }, ['reason must be a string']],
      ['user', '', { userId: { id: UNKNOWN_ID } }, ['userId must be a string']],
      ['team', '', { teamId: UNKNOWN_ID, foo: 1 }, ['property foo should not exist']],
      ['user', '', { userId: UNKNOWN_ID, foo: 1 }, ['property foo should not exist']],
      [
        'team',
        '',
        { teamId: UNKNOWN_ID, reasonCode: 'x'.repeat(65) },
        ['reasonCode must be shorter than or equal to 64 characters'],
      ],
      [
        'user',
        '',
        { userId: UNKNOWN_ID, reason: 'x'.repeat(1001) },
        ['reason must be shorter than or equal to 1000 characters'],
      ],
      ['team', '', { teamId: UNKNOWN_ID, reason: ['a', 'b'] }, ['reason must be a string']],
      [
        'team',
        '',
        { userId: UNKNOWN_ID },
        ['teamId should not be empty', 'property userId should not exist'],
      ],
    ];
    for (const [kind, path, body, message] of cases) {
      it(`answers 400 to ${kind} ${path || ':id'} ${JSON.stringify(body).slice(0, 60)}`, async () => {
        const res = await transfer(kind, path || chatId, body);
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.deepEqual(res.body, badRequest(...message));
      });
    }

    it('answers 400 to a body that is not JSON', async () => {
      const res = await t.request('POST', `/channel-api/chats/${chatId}/transfer/team`, {
        headers: { authorization: `ApiKey ${f.apiKey}`, 'content-type': 'application/json' },
        raw: '{"teamId":',
      });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, { statusCode: 400, message: 'Malformed JSON body', error: 'Bad Request' });
      assert.deepEqual(await history(chatId), []);
    });
  });

  describe('concurrency', () => {
    /** Whether the recorded transfers chain from `start` to `end`, each starting where another ended. */
    const chains = (rows: TransferRow[], start: string, end: string): boolean => {
      const state = (team: string | null, user: string | null) => `${team}|${user}`;
      const walk = (at: string, left: TransferRow[]): boolean =>
        left.length === 0
          ? at === end
          : left.some(
              (r, i) =>
                state(r.from_team_id, r.from_user_id) === at &&
                walk(state(r.to_team_id, r.to_user_id), [...left.slice(0, i), ...left.slice(i + 1)]),
            );
      return walk(start, rows);
    };

    const check = async (
      chatId: string,
      requests: { kind: 'team' | 'user'; target: string }[],
      results: TestResponse[],
    ) => {
      const oks: { kind: 'team' | 'user'; target: string; chat: Chat }[] = [];
      results.forEach((res, i) => {
        assert.ok(res.status === 200 || res.status === 409, `${res.status} ${JSON.stringify(res.body)}`);
        if (res.status === 409) assert.deepEqual(res.body, CONFLICT);
        else oks.push({ ...requests[i]!, chat: res.body as Chat });
      });
      assert.ok(oks.length >= 1);
      // Each 200 reports the chat after its own transfer.
      for (const ok of oks) {
        if (ok.kind === 'team') {
          assert.deepEqual([ok.chat.queue, ok.chat.teamId, ok.chat.userId], ['Espera', ok.target, null]);
        } else {
          assert.deepEqual([ok.chat.queue, ok.chat.userId], ['Em Atendimento', ok.target]);
        }
      }
      const final = await stored(chatId);
      assert.ok(
        oks.some((ok) => isDeepStrictEqual(ok.chat, final)),
        `final state ${JSON.stringify(final)} was reported by no 200`,
      );
      const rows = await history(chatId);
      assert.equal(rows.length, oks.length);
      assert.deepEqual(
        rows.map((r) => (r.to_user_id ? `user:${r.to_user_id}` : `team:${r.to_team_id}`)).sort(),
        oks.map((ok) => `${ok.kind}:${ok.target}`).sort(),
      );
      return { oks, rows, final };
    };

    it('ten concurrent transfers to users: 200 or 409, one history row per 200', async () => {
      const users: string[] = [];
      for (let i = 0; i < 10; i++) users.push(await newAgent());
      const chatId = await f.inbound(0, phone());
      const requests = users.map((target) => ({ kind: 'user' as const, target }));
      const results = await Promise.all(requests.map((r) => transfer('user', chatId, { userId: r.target })));
      const { rows, final } = await check(chatId, requests, results);
      assert.ok(chains(rows, `${f.teams[0]!.id}|null`, `${final.teamId}|${final.userId}`));
    });

    it('ten concurrent mixed team and user transfers: no update is lost or interleaved', async () => {
      const users = [f.agents[0]!.id, f.agents[1]!.id, await newAgent(), await newAgent(), await newAgent()];
      const chatId = await f.inbound(1, phone());
      const requests = users.flatMap((user, i) => [
        { kind: 'team' as const, target: f.teams[i % 2]!.id },
        { kind: 'user' as const, target: user },
      ]);
      const results = await Promise.all(
        requests.map((r) =>
          transfer(r.kind, chatId, r.kind === 'team' ? { teamId: r.target } : { userId: r.target }),
        ),
      );
      const { rows, final } = await check(chatId, requests, results);
      assert.ok(
        chains(rows, `${f.teams[1]!.id}|null`, `${final.teamId}|${final.userId}`),
        JSON.stringify(rows),
      );
    });

    it('answers 409 while another operation holds the chat, and succeeds once it lets go', async () => {
      const chatId = await f.inbound(0, phone());
      const before = await stored(chatId);
      const holder = await client();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT id FROM chats WHERE id = $1 FOR UPDATE', [chatId]);
        const toUser = await transfer('user', chatId, { userId: f.agents[0]!.id });
        assert.equal(toUser.status, 409);
        assert.deepEqual(toUser.body, CONFLICT);
        // The team transfer waits for the hold (up to 2 s) before giving up.
        const toTeam = await transfer('team', chatId, { teamId: f.teams[1]!.id });
        assert.equal(toTeam.status, 409);
        assert.deepEqual(toTeam.body, CONFLICT);
        await holder.query('ROLLBACK');
      } finally {
        await holder.end();
      }
      await assertUnchanged(chatId, before);
      assert.equal((await transfer('user', chatId, { userId: f.agents[0]!.id })).status, 200);
      assert.equal((await transfer('team', chatId, { teamId: f.teams[1]!.id })).status, 200);
      assert.equal((await history(chatId)).length, 2);
    });

    /** A team's `Espera` totals: as counted, as listed, and how many slots count `chatId`'s combination. */
    const esperaTotals = async (team: string, chatId: string) =>
      (
        await db.query<{ counted: number; actual: number; slots: number }>(
          `SELECT (SELECT coalesce(sum(n), 0) FROM chat_counts
                    WHERE account_id = $1 AND status = 'open' AND team_id = $2 AND queue = 'Espera')::int AS counted,
                  (SELECT count(*) FROM chat_counts
                    WHERE account_id = $1 AND status = 'open' AND team_id = $2 AND queue = 'Espera'
                      AND channel_id = (SELECT channel_id FROM chats WHERE id = $3) AND user_id = '')::int AS slots,
                  (SELECT count(*) FROM chats
                    WHERE account_id = $1 AND status = 'open' AND team_id = $2 AND queue = 'Espera')::int AS actual`,
          [f.accountId, team, chatId],
        )
      ).rows[0]!;
    /**
     * Transfers `transferred` into the team's `Espera` while another change, still open, has moved
     * `moved` there (the same list totals) and, when `counted`, has already counted it, as it does
     * while it commits. Answers the transfer's status.
     */
    const transferBesideOpenMove = async (
      moved: string,
      transferred: string,
      team: string,
      counted: boolean,
    ) => {
      const holder = await client();
      try {
        await holder.query('BEGIN');
        await holder.query("UPDATE chats SET team_id = $1, user_id = NULL, queue = 'Espera' WHERE id = $2", [
          team,
          moved,
        ]);
        if (counted) await holder.query('SET CONSTRAINTS ALL IMMEDIATE');
        const res = await transfer('team', transferred, { teamId: team });
        await holder.query('COMMIT');
        return res.status;
      } finally {
        await holder.end();
      }
    };

    it('does not wait for another change that moved a chat into the same list totals and has not committed', async () => {
      const [moved, transferred] = [await f.inbound(0, phone()), await f.inbound(0, phone())];
      const team = f.teams[1]!.id;
      assert.equal(await transferBesideOpenMove(moved, transferred, team, false), 200);
      const { counted, actual } = await esperaTotals(team, moved);
      assert.equal(counted, actual);
      assert.ok(actual >= 2, `both chats are in the team's Espera (${actual})`);
    });

    it('does not wait for another change whose list totals are being counted, and housekeeping folds the slots', async () => {
      const [moved, transferred] = [await f.inbound(0, phone()), await f.inbound(0, phone())];
      const team = f.teams[1]!.id;
      assert.equal(await transferBesideOpenMove(moved, transferred, team, true), 200);
      const totals = () => esperaTotals(team, moved);
      const counted = await totals();
      assert.equal(counted.counted, counted.actual);
      assert.ok(counted.actual >= 2, `both chats are in the team's Espera (${counted.actual})`);
      assert.ok(counted.slots >= 2, `the transfer counted in a slot of its own (${counted.slots})`);

      // A combination every chat has left (a +1 and a -1 in two slots) counts nothing: folding drops it.
      const empty = [f.accountId, 'open', f.channels[1]!.id, team, 'Automação', f.agents[1]!.id];
      await db.query(
        `INSERT INTO chat_counts (account_id, status, channel_id, team_id, queue, user_id, slot, n)
         VALUES ($1, $2, $3, $4, $5, $6, -1, 1), ($1, $2, $3, $4, $5, $6, -2, -1)`,
        empty,
      );
      assert.ok((await f.services.chats.foldCounts()) >= 3, 'housekeeping folded slots');
      const folded = await totals();
      assert.deepEqual(folded, { ...counted, slots: 1 });
      const left = await db.query(
        `SELECT 1 FROM chat_counts WHERE (account_id, status, channel_id, team_id, queue, user_id)
           = ($1, $2, $3, $4, $5, $6)`,
        empty,
      );
      assert.equal(left.rowCount, 0, 'the empty combination is gone');
    });

    it('lets a team transfer through when the hold ends within its wait', async () => {
      const chatId = await f.inbound(0, phone());
      const holder = await client();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT id FROM chats WHERE id = $1 FOR UPDATE', [chatId]);
        const pending = transfer('team', chatId, { teamId: f.teams[1]!.id });
        await lockWaiters(1, [pending]);
        await holder.query('ROLLBACK');
        const res = await pending;
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assert.equal(res.json.teamId, f.teams[1]!.id);
      } finally {
        await holder.end();
      }
    });

    it('transfers of different chats arriving together share commits, each answered with its own chat', async () => {
      const chats: string[] = [];
      for (let i = 0; i < 30; i++) chats.push(await f.inbound(i % 2, phone()));
      const targets = chats.map((_, i) => (i % 2 === 0 ? f.teams[1]!.id : f.agents[i % 4 === 1 ? 0 : 1]!.id));
      const results = await Promise.all(
        chats.map((chatId, i) =>
          i % 2 === 0
            ? transfer('team', chatId, { teamId: targets[i] })
            : transfer('user', chatId, { userId: targets[i] }),
        ),
      );
      for (const [i, res] of results.entries()) {
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const chat = res.body as Chat;
        assert.equal(chat.id, chats[i]);
        assert.equal(i % 2 === 0 ? chat.teamId : chat.userId, targets[i]);
        assert.deepEqual(chat, await stored(chats[i]!));
        assert.equal((await history(chats[i]!)).length, 1);
      }
      // Rows written by one transaction share its id (xmin): fewer transactions than transfers.
      const { rows } = await db.query<{ commits: number }>(
        'SELECT count(DISTINCT xmin::text)::int AS commits FROM chat_transfers WHERE chat_id = ANY($1)',
        [chats],
      );
      assert.ok(rows[0]!.commits < chats.length, `${rows[0]!.commits} commits for ${chats.length} transfers`);
      // One chat.transfer event per transfer, the chat as answered.
      const events = await db.query<{ chat_id: string; updated_at: string }>(
        `SELECT data->'chat'->>'id' AS chat_id, data->'chat'->>'updatedAt' AS updated_at FROM events
          WHERE event = 'chat.transfer' AND data->'chat'->>'id' = ANY($1)`,
        [chats],
      );
      assert.deepEqual(
        events.rows.map((e) => `${e.chat_id} ${e.updated_at}`).sort(),
        results.map((r) => `${(r.body as Chat).id} ${(r.body as Chat).updatedAt}`).sort(),
      );
    });

    it('a chat held by another transaction does not hold up the transfers written with it', async () => {
      const held = await f.inbound(0, phone());
      const others: string[] = [];
      for (let i = 0; i < 10; i++) others.push(await f.inbound(0, phone()));
      const holder = await client();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT id FROM chats WHERE id = $1 FOR UPDATE', [held]);
        const results = await Promise.all([
          transfer('user', held, { userId: f.agents[1]!.id }),
          ...others.map((chatId) => transfer('user', chatId, { userId: f.agents[1]!.id })),
        ]);
        assert.deepEqual(results[0]!.body, CONFLICT);
        for (const res of results.slice(1)) assert.equal(res.status, 200, JSON.stringify(res.body));
        await holder.query('ROLLBACK');
      } finally {
        await holder.end();
      }
      assert.equal((await history(held)).length, 0);
    });

    it('the same chat twice among transfers arriving together: both applied, one after the other', async () => {
      const chatId = await f.inbound(1, phone());
      const fillers: string[] = [];
      for (let i = 0; i < 6; i++) fillers.push(await f.inbound(1, phone()));
      const [toTeam, toUser] = await Promise.all([
        transfer('team', chatId, { teamId: f.teams[0]!.id }),
        transfer('user', chatId, { userId: f.agents[0]!.id }),
        ...fillers.map((c) => transfer('team', c, { teamId: f.teams[0]!.id })),
      ]);
      assert.equal(toTeam!.status, 200);
      assert.equal(toUser!.status, 200);
      const rows = await history(chatId);
      assert.equal(rows.length, 2);
      assert.ok(
        chains(
          rows,
          `${f.teams[1]!.id}|null`,
          `${(await stored(chatId)).teamId}|${(await stored(chatId)).userId}`,
        ),
      );
    });

    it('reports its own transfer even when another one commits right after it', async () => {
      const chatId = await f.inbound(0, phone());
      const [first, second] = [f.agents[0]!.id, f.agents[1]!.id];
      // Holding the contacts table stalls any read of a chat (the Chat resource joins its contact)
      // while transfers themselves can still lock and update the chat row.
      const blocker = await client();
      let results: TestResponse[];
      try {
        await blocker.query('BEGIN');
        await blocker.query('LOCK TABLE contacts IN ACCESS EXCLUSIVE MODE');
        const a = transfer('user', chatId, { userId: first });
        await lockWaiters(1, [a]);
        const b = transfer('user', chatId, { userId: second });
        // The second either answers (the chat is still held by the first) or stalls the same way.
        await lockWaiters(2, [a, b]);
        await blocker.query('ROLLBACK');
        results = await Promise.all([a, b]);
      } finally {
        await blocker.end();
      }
      await check(
        chatId,
        [
          { kind: 'user', target: first },
          { kind: 'user', target: second },
        ],
        results,
      );
    });
  });
});
