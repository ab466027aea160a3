import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';

// Bulk actions over HTTP (POST /api/chats/bulk, bulkUpdateChats): the contract (bounded selection, the
// error body), a result per chat in input order, per-chat permissions (an agent only their own and
// their teams' waiting chats; a supervisor their teams'), another account's chats 404 per item, and
// the single actions' events.

const bearer = (token: string, lang = 'en') => ({
  authorization: `Bearer ${token}`,
  'accept-language': lang,
});
let phoneSeq = 0;
const phone = () => `5511933${String(++phoneSeq).padStart(6, '0')}`;
const fakeId = (i: number) => `ffffffffffff${String(i).padStart(12, '0')}`;

interface Result {
  chatId: string;
  ok: boolean;
  status?: number;
  error?: string;
}

describe('bulk actions', () => {
  let t: TestApp;
  let f: Fixture;
  let g: Fixture; // another account
  let supervisor: { id: string; token: string }; // supervisor of team 0
  let teammate: { id: string; token: string }; // a second agent of team 0
  const clients: GatewayClient[] = [];

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
    g = await seedAccount(t.server.services);
    const s = t.server.services;
    const stamp = Date.now().toString(36);
    const sup = await s.users.create(f.admin, {
      name: 'Maria',
      email: `maria.${stamp}@example.com`,
      password: 'sup-password',
      role: 'supervisor',
    });
    const mate = await s.users.create(f.admin, {
      name: 'Joana',
      email: `joana.${stamp}@example.com`,
      password: 'mate-password',
      role: 'agent',
    });
    await s.teams.update(f.admin, f.teams[0]!.id, { members: [f.agents[0]!.id, sup.id, mate.id] });
    supervisor = {
      id: sup.id,
      token: (await s.auth.login(`maria.${stamp}@example.com`, 'sup-password')).accessToken,
    };
    teammate = {
      id: mate.id,
      token: (await s.auth.login(`joana.${stamp}@example.com`, 'mate-password')).accessToken,
    };
  });
  after(async () => {
    for (const c of clients) c.close();
    await t?.close();
  });

  const bulk = (token: string, body: unknown, lang = 'en') =>
    t.request('POST', '/api/chats/bulk', { headers: bearer(token, lang), body });
  const results = (res: { status: number; json: Record<string, unknown>; body: unknown }) => {
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.json.results as Result[];
  };
  /** A chat of team `team` (channel = team) attended by `userId`, or waiting when null. */
  const chat = async (fx: Fixture, team: number, userId: string | null) => {
    const id = await fx.inbound(team, phone(), 'Oi');
    if (userId !== null) await fx.services.chatMoves.transferToUser(fx.admin, id, { userId });
    return id;
  };
  const get = async (id: string) =>
    (await t.request('GET', `/api/chats/${id}`, { headers: bearer(f.adminToken) })).json;

  describe('the contract', () => {
    it('501 ids, none, a repeated id or an unknown action → 400 in the contract’s body', async () => {
      const many = Array.from({ length: 501 }, (_, i) => fakeId(i));
      const tooMany = await bulk(f.adminToken, { chatIds: many, action: { type: 'close' } });
      assert.equal(tooMany.status, 400);
      assert.deepEqual(tooMany.json, {
        statusCode: 400,
        message: ['chatIds must contain no more than 500 elements'],
        error: 'Bad Request',
      });
      for (const body of [
        { chatIds: [], action: { type: 'close' } },
        { chatIds: [fakeId(1), fakeId(1)], action: { type: 'close' } },
        { chatIds: [fakeId(1)], action: { type: 'explode' } },
        { chatIds: [fakeId(1)], action: { type: 'assign' } },
        { chatIds: [fakeId(1)], action: { type: 'close', extra: 1 } },
        { chatIds: ['nope'], action: { type: 'close' } },
      ]) {
        const res = await bulk(f.adminToken, body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.json.statusCode, 400);
        assert.equal(res.json.error, 'Bad Request');
        assert.ok(Array.isArray(res.json.message) && res.json.message.length > 0, JSON.stringify(res.json));
      }
      const unknownLabel = await bulk(f.adminToken, {
        chatIds: [fakeId(1)],
        action: { type: 'label', add: [fakeId(2)] },
      });
      assert.deepEqual(unknownLabel.json, {
        statusCode: 400,
        message: 'Label not found in this account',
        error: 'Bad Request',
      });
      const nothing = await bulk(f.adminToken, { chatIds: [fakeId(1)], action: { type: 'label' } });
      assert.equal(nothing.status, 400);
      assert.equal(nothing.json.message, 'Name at least one label in add or remove');
      assert.equal(
        (
          await t.request('POST', '/api/chats/bulk', {
            body: { chatIds: [fakeId(1)], action: { type: 'close' } },
          })
        ).status,
        401,
      );
    });

    it('another account’s chats and unknown ids are a 404 each, in input order, the rest done', async () => {
      const mine = [await chat(f, 0, null), await chat(f, 1, null)];
      const theirs = await chat(g, 0, null);
      const ids = [mine[0]!, theirs, fakeId(7), mine[1]!];
      const out = results(await bulk(f.adminToken, { chatIds: ids, action: { type: 'close' } }));
      assert.deepEqual(
        out.map((r) => [r.chatId, r.ok, r.status ?? null]),
        [
          [ids[0], true, null],
          [ids[1], false, 404],
          [ids[2], false, 404],
          [ids[3], true, null],
        ],
      );
      assert.equal(out[1]!.error, 'Not Found');
      assert.equal((await get(mine[0]!)).status, 'closed');
      const untouched = await t.request('GET', `/api/chats/${theirs}`, { headers: bearer(g.adminToken) });
      assert.equal(untouched.json.status, 'open');
    });
  });

  describe('who may act on which chat', () => {
    it('an agent: their own and their teams’ waiting chats; a teammate’s → 403, another team’s → 404', async () => {
      const own = await chat(f, 0, f.agents[0]!.id);
      const waiting = await chat(f, 0, null);
      const mates = await chat(f, 0, teammate.id);
      const otherTeam = await chat(f, 1, f.agents[1]!.id);
      const out = results(
        await bulk(f.agents[0]!.token, {
          chatIds: [own, waiting, mates, otherTeam],
          action: { type: 'transfer', teamId: f.teams[1]!.id },
        }),
      );
      assert.deepEqual(
        out.map((r) => r.status ?? 200),
        [200, 200, 403, 404],
      );
      assert.match(out[2]!.error!, /^In bulk, only your own chats/);
      assert.equal((await get(mates)).userId, teammate.id);
      assert.equal((await get(own)).teamId, f.teams[1]!.id);
      // Portuguese when asked for.
      const pt = results(
        await bulk(f.agents[0]!.token, { chatIds: [mates], action: { type: 'close' } }, 'pt-BR'),
      );
      assert.match(pt[0]!.error!, /^Em massa, somente os seus chats/);
    });

    it('a supervisor: every chat of their teams, not another team’s; an admin: every chat', async () => {
      const agents = await chat(f, 0, f.agents[0]!.id);
      const mates = await chat(f, 0, teammate.id);
      const otherTeam = await chat(f, 1, f.agents[1]!.id);
      const otherWaiting = await chat(f, 1, null);
      const ids = [agents, mates, otherTeam, otherWaiting];
      const out = results(
        await bulk(supervisor.token, { chatIds: ids, action: { type: 'assign', userId: supervisor.id } }),
      );
      // A supervisor sees every chat (chats:read_all), so another team's is 403, not 404.
      assert.deepEqual(
        out.map((r) => r.status ?? 200),
        [200, 200, 403, 403],
      );
      assert.equal((await get(agents)).userId, supervisor.id);
      const byAdmin = results(await bulk(f.adminToken, { chatIds: ids, action: { type: 'close' } }));
      assert.deepEqual(
        byAdmin.map((r) => r.ok),
        [true, true, true, true],
      );
    });

    it('each chat keeps the single action’s rules: closing a closed chat → 409, assigning to a stranger → 400', async () => {
      const a = await chat(f, 0, null);
      const b = await chat(f, 0, null);
      assert.deepEqual(results(await bulk(f.adminToken, { chatIds: [a], action: { type: 'close' } })), [
        { chatId: a, ok: true },
      ]);
      const again = results(await bulk(f.adminToken, { chatIds: [a, b], action: { type: 'close' } }));
      assert.deepEqual(again, [
        { chatId: a, ok: false, status: 409, error: 'The chat is closed' },
        { chatId: b, ok: true },
      ]);
      const stranger = results(
        await bulk(f.adminToken, {
          chatIds: [await chat(f, 0, null)],
          action: { type: 'assign', userId: g.agents[0]!.id },
        }),
      );
      assert.equal(stranger[0]!.status, 400);
    });
  });

  describe('the actions', () => {
    it('label: adds and removes on every chat, with a chat.labels event per change to whoever watches', async () => {
      const mk = async (name: string) =>
        (
          await t.request('POST', '/api/labels', {
            headers: bearer(f.adminToken),
            body: { name, color: '#123456' },
          })
        ).json.id as string;
      const [vip, old] = [await mk('VIP'), await mk('Antigo')];
      const ids = [await chat(f, 0, f.agents[0]!.id), await chat(f, 0, null)];
      await t.request('PUT', `/api/chats/${ids[0]}/labels/${old}`, { headers: bearer(f.adminToken) });
      const watcher = await connect(t.gatewayUrl!, { token: f.agents[0]!.token });
      clients.push(watcher);
      assert.deepEqual((await watcher.ack('user_start_watch_chats', ids)).watching, ids);

      const out = results(
        await bulk(f.agents[0]!.token, {
          chatIds: ids,
          action: { type: 'label', add: [vip], remove: [old] },
        }),
      );
      assert.deepEqual(
        out.map((r) => r.ok),
        [true, true],
      );
      for (const id of ids) {
        const labels = (await get(id)).labels as { id: string }[];
        assert.deepEqual(
          labels.map((l) => l.id),
          [vip],
        );
      }
      const added = await watcher.next(
        'chat.labels',
        (e) => (e.data as { action: string }).action === 'added',
      );
      assert.equal((added.data as { label: { id: string } }).label.id, vip);
      const removed = await watcher.next(
        'chat.labels',
        (e) => (e.data as { action: string }).action === 'removed',
      );
      assert.equal((removed.data as { chat: { id: string } }).chat.id, ids[0]);
      // Once more: nothing changes, every chat still ok.
      const again = results(
        await bulk(f.agents[0]!.token, { chatIds: ids, action: { type: 'label', add: [vip] } }),
      );
      assert.ok(again.every((r) => r.ok));
    });

    it('transfer: the whole selection moves, each with a chat.transfer event and its reason', async () => {
      const ids = [await chat(f, 0, f.agents[0]!.id), await chat(f, 0, null), await chat(f, 0, null)];
      const team1 = await connect(t.gatewayUrl!, { token: f.agents[1]!.token });
      clients.push(team1);
      assert.equal((await team1.ack('user_join_team', [f.teams[1]!.id])).ok, true);
      const out = results(
        await bulk(f.adminToken, {
          chatIds: ids,
          action: { type: 'transfer', teamId: f.teams[1]!.id, reasonCode: 'triage', reason: 'Fila errada' },
        }),
      );
      assert.ok(
        out.every((r) => r.ok),
        JSON.stringify(out),
      );
      const seen = new Set<string>();
      for (let i = 0; i < ids.length; i++) {
        const e = await team1.next('chat.transfer');
        const d = e.data as {
          chat: { id: string; queue: string; userId: string | null };
          reasonCode: string;
        };
        assert.equal(d.reasonCode, 'triage');
        assert.equal(d.chat.queue, 'Espera');
        assert.equal(d.chat.userId, null);
        seen.add(d.chat.id);
      }
      assert.deepEqual([...seen].sort(), [...ids].sort());
    });

    it('snooze: every chat of the selection snoozed, an end in the past refused once for all', async () => {
      const ids = [await chat(f, 0, f.agents[0]!.id), await chat(f, 0, null)];
      const past = await bulk(f.adminToken, {
        chatIds: ids,
        action: { type: 'snooze', until: new Date(Date.now() - 60_000).toISOString() },
      });
      assert.equal(past.status, 400);
      assert.equal(past.json.statusCode, 400);
      for (const id of ids)
        assert.equal((await get(id)).snooze ?? null, null, 'nothing snoozed by a refusal');

      const until = new Date(Date.now() + 3_600_000).toISOString();
      const out = results(await bulk(f.adminToken, { chatIds: ids, action: { type: 'snooze', until } }));
      assert.ok(
        out.every((r) => r.ok),
        JSON.stringify(out),
      );
      for (const id of ids) {
        const snooze = (await get(id)).snooze as { until: string | null } | null;
        assert.equal(snooze?.until, until);
      }
    });
  });
});
