import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// Conversation lists that organise the day: the agent list's status (open, pending, closed), assignee,
// channel, team, label and queue filters, its three orders and exact totals; and each user's saved
// views with their counts.

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
let phoneSeq = 0;
const phone = () => `5511944${String(++phoneSeq).padStart(6, '0')}`;

interface Page {
  total: number;
  chats: { id: string }[];
}

describe('chat lists', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ env: { ATENDE_ROLES: 'api' } });
  });
  after(async () => {
    await t?.close();
  });

  const list = async (token: string, query: string, status = 200) => {
    const res = await t.request('GET', `/api/chats?${query}`, { headers: bearer(token) });
    assert.equal(res.status, status, `${query}: ${JSON.stringify(res.body)}`);
    return res.json as unknown as Page;
  };
  const ids = (p: Page) => p.chats.map((c) => c.id);
  /** A label of the token's account; its id. */
  const createLabel = async (token: string, name: string, color = '#000000') => {
    const res = await t.request('POST', '/api/labels', { headers: bearer(token), body: { name, color } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return (res.body as { id: string }).id;
  };
  const ok = async (res: Promise<{ status: number; body: unknown }>, status = 200) => {
    const r = await res;
    assert.equal(r.status, status, JSON.stringify(r.body));
    return r;
  };

  /**
   * c1 (channel 0) waits since first; c2 (channel 0) captured and answered by agent 0; c3 (channel 1)
   * waits; then c1's customer writes again; c4 (channel 0) is closed. Label L on c1 and c3.
   */
  describe('filters, orders and totals', () => {
    let f: Fixture;
    let c1: string, c2: string, c3: string, c4: string;
    let label: string;
    before(async () => {
      f = await seedAccount(t.server.services);
      const p1 = phone();
      c1 = await f.inbound(0, p1, 'primeira');
      c2 = await f.inbound(0, phone(), 'segunda');
      await ok(t.request('POST', `/api/chats/${c2}/capture`, { headers: bearer(f.agents[0]!.token) }));
      await ok(
        t.request('POST', `/api/chats/${c2}/messages`, {
          headers: bearer(f.agents[0]!.token),
          body: { text: 'Olá, já vejo' },
        }),
        201,
      );
      c3 = await f.inbound(1, phone(), 'terceira');
      assert.equal(await f.inbound(0, p1, 'de novo'), c1);
      c4 = await f.inbound(0, phone(), 'quarta');
      await ok(t.request('POST', `/api/chats/${c4}/close`, { headers: bearer(f.adminToken) }));
      label = await createLabel(f.adminToken, 'L');
      for (const c of [c1, c3]) {
        await ok(t.request('PUT', `/api/chats/${c}/labels/${label}`, { headers: bearer(f.adminToken) }));
      }
    });

    it('status: open (default), pending (open, no attendant), closed — with exact totals', async () => {
      const admin = f.adminToken;
      assert.deepEqual(ids(await list(admin, '')), [c3, c2, c1]);
      const pending = await list(admin, 'status=pending');
      assert.deepEqual([pending.total, ids(pending)], [2, [c3, c1]]);
      const closed = await list(admin, 'status=closed');
      assert.deepEqual([closed.total, ids(closed)], [1, [c4]]);
      // Agent 1 (team 1) sees only its team's pending chat.
      const theirs = await list(f.agents[1]!.token, 'status=pending');
      assert.deepEqual([theirs.total, ids(theirs)], [1, [c3]]);
    });

    it('assignee: mine, unassigned, a given agent (supervisors and admins only)', async () => {
      const a0 = f.agents[0]!;
      assert.deepEqual(ids(await list(a0.token, 'assignee=mine')), [c2]);
      const unassigned = await list(a0.token, 'assignee=unassigned');
      assert.deepEqual([unassigned.total, ids(unassigned)], [1, [c1]]);
      assert.deepEqual(ids(await list(f.adminToken, `assignee=${a0.id}`)), [c2]);
      assert.deepEqual(ids(await list(a0.token, `assignee=${a0.id}`)), [c2]);
      const denied = await list(f.agents[1]!.token, `assignee=${a0.id}`, 403);
      assert.equal((denied as unknown as { statusCode: number }).statusCode, 403);
      assert.deepEqual(ids(await list(f.adminToken, 'assignee=mine')), []);
    });

    it('label, channel, team and queue, alone and together', async () => {
      const admin = f.adminToken;
      const byLabel = await list(admin, `label=${label}`);
      assert.deepEqual([byLabel.total, ids(byLabel)], [2, [c3, c1]]);
      // An agent of team 0 sees the label only where they may see the chat.
      const mine = await list(f.agents[0]!.token, `label=${label}`);
      assert.deepEqual([mine.total, ids(mine)], [1, [c1]]);
      const both = await list(admin, `label=${label}&channelId=${f.channels[1]!.id}`);
      assert.deepEqual([both.total, ids(both)], [1, [c3]]);
      const team = await list(admin, `teamId=${f.teams[0]!.id}&status=pending`);
      assert.deepEqual([team.total, ids(team)], [1, [c1]]);
      const queue = await list(admin, `queue=${encodeURIComponent('Em Atendimento')}`);
      assert.deepEqual([queue.total, ids(queue)], [1, [c2]]);
      const closedLabelled = await list(admin, `label=${label}&status=closed`);
      assert.equal(closedLabelled.total, 0);
      // The search and the label together.
      const searched = await list(admin, `label=${label}&q=5511944`);
      assert.deepEqual(ids(searched), [c3, c1]);
    });

    it('orders: newest, longest waiting (answered last), last customer message', async () => {
      const admin = f.adminToken;
      assert.deepEqual(ids(await list(admin, 'sort=newest')), [c3, c2, c1]);
      assert.deepEqual(ids(await list(admin, 'sort=longest_waiting')), [c1, c3, c2]);
      assert.deepEqual(ids(await list(admin, 'sort=last_customer_message')), [c1, c3, c2]);
      // Pages of a sort follow one another.
      const p1 = await list(admin, 'sort=longest_waiting&limit=2');
      const p2 = await list(admin, 'sort=longest_waiting&limit=2&page=2');
      assert.deepEqual([...ids(p1), ...ids(p2)], [c1, c3, c2]);
      assert.equal(p1.total, 3);
    });

    it('another account’s label matches nothing; bad values are 400 with the contract body', async () => {
      const g = await seedAccount(t.server.services);
      const id = await createLabel(g.adminToken, 'L');
      const none = await list(f.adminToken, `label=${id}`);
      assert.deepEqual([none.total, ids(none)], [0, []]);
      const api = await t.request('GET', `/channel-api/chats?label=${id}`, { headers: f.authHeader() });
      assert.equal(api.json.total, 0);
      for (const q of ['sort=oldest', 'assignee=someone', 'label=x', 'status=waiting']) {
        const res = await t.request('GET', `/api/chats?${q}`, { headers: bearer(f.adminToken) });
        assert.equal(res.status, 400, q);
        assert.equal(res.json.error, 'Bad Request');
        assert.ok(Array.isArray(res.json.message), q);
      }
      const api400 = await t.request('GET', '/channel-api/chats?label=x', { headers: f.authHeader() });
      assert.equal(api400.status, 400);
    });

    describe('saved views', () => {
      interface View {
        id: string;
        name: string;
        filters: Record<string, unknown>;
        position: number;
      }
      const create = async (token: string, body: unknown, status = 201) => {
        const res = await t.request('POST', '/api/chat-views', { headers: bearer(token), body });
        assert.equal(res.status, status, JSON.stringify(res.body));
        return res.json as unknown as View;
      };

      it('a user saves, lists, counts, reorders, renames and deletes their own views', async () => {
        const a0 = f.agents[0]!.token;
        const pending = await create(a0, { name: ' Pendentes ', filters: { status: 'pending' } });
        assert.equal(pending.name, 'Pendentes');
        assert.deepEqual(pending.filters, { status: 'pending' });
        assert.equal(pending.position, 0);
        const labelled = await create(a0, {
          name: 'Etiqueta L',
          filters: { label, sort: 'longest_waiting' },
        });
        const mine = await create(a0, { name: 'Meus', filters: { assignee: 'mine' } });
        const counts = await t.request('GET', '/api/chat-views/counts', { headers: bearer(a0) });
        assert.deepEqual(counts.json, {
          counts: [
            { id: pending.id, total: 1 },
            { id: labelled.id, total: 1 },
            { id: mine.id, total: 1 },
          ],
        });
        // Each count is the list's exact total for the same filters.
        assert.equal((await list(a0, `label=${label}&sort=longest_waiting`)).total, 1);

        const moved = await t.request('PATCH', `/api/chat-views/${mine.id}`, {
          headers: bearer(a0),
          body: { position: 0, name: 'Meus atendimentos' },
        });
        assert.equal(moved.status, 200);
        const listed = (await t.request('GET', '/api/chat-views', { headers: bearer(a0) })).body as View[];
        assert.deepEqual(
          listed.map((v) => [v.name, v.position]),
          [
            ['Meus atendimentos', 0],
            ['Pendentes', 1],
            ['Etiqueta L', 2],
          ],
        );
        const gone = await t.request('DELETE', `/api/chat-views/${pending.id}`, { headers: bearer(a0) });
        assert.equal(gone.status, 204);
        const left = (await t.request('GET', '/api/chat-views', { headers: bearer(a0) })).body as View[];
        assert.deepEqual(
          left.map((v) => [v.id, v.position]),
          [
            [mine.id, 0],
            [labelled.id, 1],
          ],
        );
      });

      it('views are their user’s own: another user’s (or account’s) view is 404 and not listed', async () => {
        const view = await create(f.agents[0]!.token, { name: 'Só meu', filters: {} });
        const g = await seedAccount(t.server.services);
        for (const token of [f.agents[1]!.token, f.adminToken, g.adminToken]) {
          for (const [method, body] of [
            ['PATCH', { name: 'x' }],
            ['DELETE', undefined],
          ] as const) {
            const res = await t.request(method, `/api/chat-views/${view.id}`, {
              headers: bearer(token),
              body,
            });
            assert.equal(res.status, 404, method);
          }
          const listed = (await t.request('GET', '/api/chat-views', { headers: bearer(token) }))
            .body as View[];
          assert.ok(!listed.some((v) => v.id === view.id));
        }
      });

      it('filters are checked as the list checks them: another agent’s desk is 403; bad input 400', async () => {
        await create(f.agents[1]!.token, { name: 'Do colega', filters: { assignee: f.agents[0]!.id } }, 403);
        const sup = await create(f.adminToken, { name: 'Agente 0', filters: { assignee: f.agents[0]!.id } });
        assert.equal(sup.filters.assignee, f.agents[0]!.id);
        for (const body of [
          { name: 'x', filters: { page: 2 } },
          { name: 'x', filters: { sort: 'random' } },
          { name: '  ', filters: {} },
          { name: 'x'.repeat(51), filters: {} },
          { filters: {} },
          { name: 'x', filters: {}, extra: true },
        ]) {
          const res = await t.request('POST', '/api/chat-views', { headers: bearer(f.adminToken), body });
          assert.equal(res.status, 400, JSON.stringify(body));
        }
      });

      it('a user keeps at most 20 views', async () => {
        const g = await seedAccount(t.server.services);
        for (let i = 0; i < 20; i++) await create(g.adminToken, { name: `V${i}`, filters: {} });
        const res = await t.request('POST', '/api/chat-views', {
          headers: bearer(g.adminToken),
          body: { name: 'V20', filters: {} },
        });
        assert.equal(res.status, 400);
        assert.deepEqual(res.json.message, 'Você já tem 20 visões salvas, o máximo');
      });
    });
  });

  // A label's list is cut from its links in list order (migration 064): each link carries its chat's
  // status and creation instant, which follow the chat as it closes and reopens.
  describe('a label’s chats in list order', () => {
    it('pages newest first whatever order the label was put on, and follows chats closed and reopened', async () => {
      const f = await seedAccount(t.server.services);
      const chats: string[] = [];
      for (let i = 0; i < 5; i++) chats.push(await f.inbound(i % 2, phone(), `conversa ${i}`));
      const [c1, c2, c3, c4, c5] = chats as [string, string, string, string, string];
      const label = await createLabel(f.adminToken, 'Ordem', '#112233');
      // Labelled oldest last, and one chat left without it.
      for (const c of [c5, c2, c4, c1]) {
        await ok(t.request('PUT', `/api/chats/${c}/labels/${label}`, { headers: bearer(f.adminToken) }));
      }
      const pages = [];
      for (let page = 1; page <= 3; page++)
        pages.push(await list(f.adminToken, `label=${label}&limit=2&page=${page}`));
      assert.deepEqual(pages.map(ids), [[c5, c4], [c2, c1], []]);
      assert.deepEqual(
        pages.map((p) => p.total),
        [4, 4, 4],
      );
      const api = await t.request('GET', `/channel-api/chats?label=${label}&limit=3`, {
        headers: f.authHeader(),
      });
      assert.deepEqual(
        [api.json.total, (api.json.chats as { id: string }[]).map((c) => c.id)],
        [4, [c5, c4, c2]],
      );

      await ok(t.request('POST', `/api/chats/${c4}/close`, { headers: bearer(f.adminToken) }));
      const open = await list(f.adminToken, `label=${label}`);
      assert.deepEqual([open.total, ids(open)], [3, [c5, c2, c1]]);
      const closed = await list(f.adminToken, `label=${label}&status=closed`);
      assert.deepEqual([closed.total, ids(closed)], [1, [c4]]);

      await ok(t.request('POST', `/api/chats/${c4}/reopen`, { headers: bearer(f.adminToken) }));
      const reopened = await list(f.adminToken, `label=${label}`);
      assert.deepEqual([reopened.total, ids(reopened)], [4, [c5, c4, c2, c1]]);
      assert.equal((await list(f.adminToken, `label=${label}&status=closed`)).total, 0);
      assert.ok(!ids(reopened).includes(c3));
    });
  });
});
