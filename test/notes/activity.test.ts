import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';

// A conversation's activity (/api/chats/:id/activity), read from the event log: who captured it, who
// transferred it where and why (seen by the agent it reaches), queue moves, closing; kept past the
// log's retention.

interface Line {
  id: string;
  seq: number;
  at: string;
  kind: string;
  by: { type: string; id: string } | null;
  from: Record<string, unknown> | null;
  to: Record<string, unknown> | null;
  reasonCode: string | null;
  reason: string | null;
}
interface Page {
  activity: Line[];
  nextBeforeSeq: number | null;
}

const NOT_FOUND = { statusCode: 404, message: 'Not Found', error: 'Not Found' };
let phoneSeq = 0;
const phone = () => `5511966${String(++phoneSeq).padStart(6, '0')}`;

describe('activity in the timeline', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  const clients: GatewayClient[] = [];

  const as = (token: string) => ({ authorization: `Bearer ${token}` });
  const call = (token: string, method: string, path: string, body?: unknown) =>
    t.request(method, path, { headers: as(token), ...(body !== undefined ? { body } : {}) });
  const ok = async (token: string, method: string, path: string, body?: unknown) => {
    const res = await call(token, method, path, body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  const activity = async (token: string, chatId: string, query = '') =>
    (await ok(token, 'GET', `/api/chats/${chatId}/activity${query}`)) as Page;
  /** What a line says, without its ids and times. */
  const said = (l: Line) => ({
    kind: l.kind,
    by: l.by,
    from: l.from,
    to: l.to,
    reasonCode: l.reasonCode,
    reason: l.reason,
  });
  const agent = (i: number) => ({ type: 'user', id: f.agents[i]!.id });

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
  });
  after(async () => {
    for (const c of clients) c.close();
    await t?.close();
  });

  it('shows capture, a team transfer with its reason (to the agent it reaches), a queue move and the close', async () => {
    const chatId = await f.inbound(0, phone(), 'Minha fatura veio errada');
    const [a0, a1] = [f.agents[0]!.token, f.agents[1]!.token];
    assert.deepEqual(await activity(a0, chatId), { activity: [], nextBeforeSeq: null });

    await ok(a0, 'POST', `/api/chats/${chatId}/capture`);
    // The receiving agent (team 1) is watching its team's queue when the transfer arrives.
    const receiver = await connect(t.gatewayUrl!, { token: a1 });
    clients.push(receiver);
    await receiver.ack('user_logged_in', f.agents[1]!.id);
    await receiver.ack('user_join_team', [f.teams[1]!.id]);
    await ok(a0, 'POST', `/api/chats/${chatId}/transfer`, {
      teamId: f.teams[1]!.id,
      reasonCode: 'billing',
      reason: 'Cobrança em duplicidade',
    });
    const live = await receiver.next('chat.transfer');
    assert.deepEqual((live.data as { by: unknown; reason: unknown }).by, agent(0));
    assert.equal((live.data as { reason: unknown }).reason, 'Cobrança em duplicidade');

    // Agent 0 no longer sees the chat; agent 1, who received it, reads why it came.
    assert.deepEqual((await call(a0, 'GET', `/api/chats/${chatId}/activity`)).body, NOT_FOUND);
    const received = await activity(a1, chatId);
    assert.deepEqual(received.activity.map(said), [
      {
        kind: 'transfer.team',
        by: agent(0),
        from: { teamId: f.teams[0]!.id, userId: f.agents[0]!.id },
        to: { teamId: f.teams[1]!.id, userId: null },
        reasonCode: 'billing',
        reason: 'Cobrança em duplicidade',
      },
      { kind: 'capture', by: agent(0), from: null, to: null, reasonCode: null, reason: null },
    ]);

    await ok(a1, 'POST', `/api/chats/${chatId}/capture`);
    await ok(a1, 'POST', `/api/chats/${chatId}/queue`, { queue: 'Automação' });
    await ok(a1, 'POST', `/api/chats/${chatId}/queue`, { queue: 'Em Atendimento' });
    await ok(a1, 'POST', `/api/chats/${chatId}/close`);
    const all = await activity(f.adminToken, chatId);
    assert.deepEqual(
      all.activity.map((l) => [l.kind, l.by?.id, l.from?.queue ?? null, l.to?.queue ?? null]),
      [
        ['close', f.agents[1]!.id, null, null],
        ['queue', f.agents[1]!.id, 'Automação', 'Em Atendimento'],
        ['queue', f.agents[1]!.id, 'Em Atendimento', 'Automação'],
        ['capture', f.agents[1]!.id, null, null],
        ['transfer.team', f.agents[0]!.id, null, null],
        ['capture', f.agents[0]!.id, null, null],
      ],
    );
    // Newest first, each line its event: seqs fall, times never rise.
    const seqs = all.activity.map((l) => l.seq);
    assert.deepEqual(
      [...seqs].sort((x, y) => y - x),
      seqs,
    );
    for (let i = 1; i < all.activity.length; i++) assert.ok(all.activity[i]!.at <= all.activity[i - 1]!.at);

    // Pages.
    const first = await activity(f.adminToken, chatId, '?limit=4');
    assert.deepEqual(first.activity, all.activity.slice(0, 4));
    assert.equal(first.nextBeforeSeq, all.activity[3]!.seq);
    const rest = await activity(f.adminToken, chatId, `?limit=4&beforeSeq=${first.nextBeforeSeq}`);
    assert.deepEqual(rest, { activity: all.activity.slice(4), nextBeforeSeq: null });

    // Another account's users see nothing of it; bad queries are 400.
    assert.deepEqual((await call(other.adminToken, 'GET', `/api/chats/${chatId}/activity`)).body, NOT_FOUND);
    const bad = await call(f.adminToken, 'GET', `/api/chats/${chatId}/activity?limit=201`);
    assert.deepEqual(bad.body, {
      statusCode: 400,
      message: ['limit must not be greater than 200'],
      error: 'Bad Request',
    });
  });

  it('shows a transfer to a user made through the Channel API, by its key', async () => {
    const chatId = await f.inbound(0, phone());
    const res = await t.request('POST', `/channel-api/chats/${chatId}/transfer/user`, {
      headers: f.authHeader(),
      body: { userId: f.agents[0]!.id },
    });
    assert.equal(res.status, 200);
    const [line] = (await activity(f.agents[0]!.token, chatId)).activity;
    assert.equal(line?.kind, 'transfer.user');
    assert.equal(line?.by?.type, 'api_key');
    assert.deepEqual(line?.to, { teamId: f.teams[0]!.id, userId: f.agents[0]!.id });
  });

  it('shows a label put on and taken off, and a reopened conversation, by whom', async () => {
    const chatId = await f.inbound(0, phone());
    const a0 = f.agents[0]!.token;
    const made = await call(f.adminToken, 'POST', '/api/labels', { name: 'VIP', color: '#aa3300' });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const created = made.body as { id: string };
    for (const method of ['PUT', 'DELETE']) {
      const res = await call(a0, method, `/api/chats/${chatId}/labels/${created.id}`);
      assert.ok(res.status < 300, JSON.stringify(res.body));
    }
    await ok(a0, 'POST', `/api/chats/${chatId}/capture`);
    await ok(a0, 'POST', `/api/chats/${chatId}/close`);
    await ok(a0, 'POST', `/api/chats/${chatId}/reopen`);
    const lines = (await activity(a0, chatId)).activity;
    assert.deepEqual(
      lines.map((l) => [l.kind, l.by, (l as Line & { label?: { name: string } }).label?.name ?? null]),
      [
        ['reopen', agent(0), null],
        ['close', agent(0), null],
        ['capture', agent(0), null],
        ['label.removed', agent(0), 'VIP'],
        ['label.added', agent(0), 'VIP'],
      ],
    );
  });

  it('is kept past the event log’s retention, for its own', async () => {
    const chatId = await f.inbound(0, phone());
    await ok(f.agents[0]!.token, 'POST', `/api/chats/${chatId}/capture`);
    const before = await activity(f.adminToken, chatId);
    assert.equal(before.activity.length, 1);
    const { events } = t.server.services;
    // Eight days on, the log's other events are gone; the activity stays.
    await events.purgeExpired(new Date(Date.now() + 8 * 24 * 3600 * 1000));
    assert.deepEqual(await activity(f.adminToken, chatId), before);
    const resync = await call(f.adminToken, 'GET', `/api/events?after=${before.activity[0]!.seq - 1}`);
    assert.deepEqual(
      (resync.body as { events: { event: string }[] }).events.map((e) => e.event),
      ['chat.capture'],
    );
    // Past its own retention (365 days), it goes too.
    await events.purgeExpired(new Date(Date.now() + 366 * 24 * 3600 * 1000));
    assert.deepEqual(await activity(f.adminToken, chatId), { activity: [], nextBeforeSeq: null });
  });
});
