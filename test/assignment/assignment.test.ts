import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { planAssignments } from '../../src/modules/assignment/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';

// Automatic assignment over HTTP and the gateway: a team's configuration (read by anyone, set by
// teams:manage, checked), agents' availability, and conversations given to online agents as they
// arrive — least loaded first (capacity) or in turn (round robin), never past a maximum — with the
// capture's events, an activity line and a notification; an agent going offline gives back what they
// have not answered; Capturar still works.

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
let phoneSeq = 0;
const phone = () => `5511977${String(++phoneSeq).padStart(6, '0')}`;

describe('plan of assignments (pure)', () => {
  const c = (userId: string, open: number, max: number | null, lastAssignedAt: number | null = null) => ({
    userId,
    open,
    max,
    lastAssignedAt,
  });
  it('capacity: the least loaded first, ties to whoever waited longest, never past the maximum', () => {
    const plan = planAssignments(
      'capacity',
      [c('a', 2, 3), c('b', 0, 3, 200), c('c', 0, 3, 100)],
      ['1', '2', '3', '4', '5', '6'],
    );
    assert.deepEqual(
      plan.map((p) => p.userId),
      ['c', 'b', 'c', 'b', 'a', 'c'],
    );
  });
  it('round robin: in turn, skipping whoever is full', () => {
    const plan = planAssignments(
      'round_robin',
      [c('a', 0, null, 5), c('b', 0, 1, 1), c('c', 0, null)],
      ['1', '2', '3', '4', '5'],
    );
    assert.deepEqual(
      plan.map((p) => p.userId),
      ['c', 'b', 'a', 'c', 'a'],
    );
  });
});

describe('automatic assignment', { timeout: 60_000 }, () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;
  const clients: GatewayClient[] = [];
  let team: string;
  let agents: Fixture['agents'];

  before(async () => {
    t = await startTestApp({ env: { ATENDE_ASSIGNMENT_POLL_MS: '60000' } });
    f = await seedAccount(t.server.services, { agents: 4 });
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    team = f.teams[0]!.id;
    agents = f.agents.slice(0, 3);
    // Team 0 (channel 0's) has agents 0, 1 and 2; agent 3 is in team 1 only.
    const res = await t.request('PATCH', `/api/teams/${team}`, {
      headers: bearer(f.adminToken),
      body: { members: agents.map((a) => a.id) },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });
  after(async () => {
    for (const c of clients) c.close();
    await db?.end();
    await t?.close();
  });

  /** A console of the user: their own room (notifications) and, given, their team's. */
  const open = async (token: string, teamId?: string) => {
    const c = await connect(t.gatewayUrl!, { token });
    clients.push(c);
    const userId = (c.received[0]!.payload as { userId: string }).userId;
    await c.ack('user_logged_in', userId);
    if (teamId) await c.ack('user_join_team', [teamId]);
    return c;
  };
  const setAvailability = (token: string, availability: string) =>
    t.request('PUT', '/api/me/availability', { headers: bearer(token), body: { availability } });
  const configure = (body: unknown, token = f.adminToken, teamId = team) =>
    t.request('PUT', `/api/teams/${teamId}/assignment`, { headers: bearer(token), body });
  const inbound = async () =>
    (
      await t.request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/inbound`, {
        headers: bearer(f.adminToken),
        body: { from: phone(), text: 'Oi' },
      })
    ).json.chatId as string;
  const chat = async (id: string) =>
    (
      await db.query<{ user_id: string | null; queue: string }>(
        'SELECT user_id, queue FROM chats WHERE id = $1',
        [id],
      )
    ).rows[0]!;

  it('a team that was never configured is off; anyone reads it, another account’s team is 404', async () => {
    const res = await t.request('GET', `/api/teams/${team}/assignment`, {
      headers: bearer(agents[0]!.token),
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.json, {
      teamId: team,
      mode: 'off',
      maxOpen: null,
      overrides: [],
      releaseOnOffline: true,
      updatedAt: null,
    });
    const foreign = await t.request('GET', `/api/teams/${other.teams[0]!.id}/assignment`, {
      headers: bearer(f.adminToken),
    });
    assert.equal(foreign.status, 404);
    assert.equal((await configure({ mode: 'off' }, f.adminToken, other.teams[0]!.id)).status, 404);
  });

  it('is set by teams:manage only, checked, and the change reaches the account', async () => {
    assert.equal((await configure({ mode: 'round_robin' }, agents[0]!.token)).status, 403);
    const noMax = await configure({ mode: 'capacity' });
    assert.equal(noMax.status, 400);
    assert.equal(noMax.json.message, 'maxOpen is required for mode capacity');
    const pt = await t.request('PUT', `/api/teams/${team}/assignment`, {
      headers: { ...bearer(f.adminToken), 'accept-language': 'pt-BR' },
      body: { mode: 'capacity', maxOpen: 2, overrides: [{ userId: f.agents[3]!.id, maxOpen: 1 }] },
    });
    assert.equal(pt.status, 400);
    assert.deepEqual(pt.json.message, ['overrides.0.userId não é membro da equipe']);
    assert.equal((await configure({ mode: 'sometimes' })).status, 400);
    assert.equal((await configure({ mode: 'capacity', maxOpen: 0 })).status, 400);

    const watcher = await open(agents[2]!.token);
    const res = await configure({
      mode: 'capacity',
      maxOpen: 2,
      overrides: [{ userId: agents[2]!.id, maxOpen: 1 }],
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.json.mode, 'capacity');
    assert.deepEqual(res.json.overrides, [{ userId: agents[2]!.id, maxOpen: 1 }]);
    const event = await watcher.next('team.assignment');
    assert.deepEqual((event.data as { assignment: unknown }).assignment, res.json);
  });

  it('availability: set by the user, shown where users are listed, an event to the account', async () => {
    const watcher = await open(f.adminToken);
    assert.equal((await setAvailability(agents[0]!.token, 'busy')).status, 400);
    const res = await setAvailability(agents[0]!.token, 'away');
    assert.equal(res.status, 200);
    assert.equal(res.json.availability, 'away');
    const event = await watcher.next(
      'user.availability',
      (e) => (e.data as { userId: string }).userId === agents[0]!.id,
    );
    assert.deepEqual(event.data, {
      userId: agents[0]!.id,
      availability: 'away',
      since: res.json.since,
      auto: false,
    });
    const users = (await t.request('GET', '/api/users', { headers: bearer(agents[1]!.token) })).body as {
      id: string;
      availability: string;
    }[];
    assert.equal(users.find((u) => u.id === agents[0]!.id)?.availability, 'away');
    assert.equal(users.find((u) => u.id === agents[1]!.id)?.availability, 'offline');
    const me = await t.request('GET', '/api/me/availability', { headers: bearer(agents[0]!.token) });
    assert.deepEqual(me.json, res.json);
  });

  it('nobody online: the conversation waits, and Capturar still works', async () => {
    const id = await inbound();
    assert.deepEqual(await chat(id), { user_id: null, queue: 'Espera' });
    const res = await t.request('POST', `/api/chats/${id}/capture`, { headers: bearer(agents[1]!.token) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await t.request('POST', `/api/chats/${id}/close`, { headers: bearer(agents[1]!.token) });
  });

  it('capacity: the least-loaded online agent gets it, notified, with an automatic activity line', async () => {
    const desk0 = await open(agents[0]!.token, team);
    const desk1 = await open(agents[1]!.token, team);
    // Only agent 1 is online: the first conversation is theirs.
    assert.equal((await setAvailability(agents[1]!.token, 'online')).status, 200);
    const held = await inbound();
    const first = await desk1.next(
      'chat.capture',
      (e) => (e.data as { chat: { id: string } }).chat.id === held,
    );
    assert.equal((first.data as { chat: { userId: string } }).chat.userId, agents[1]!.id);
    assert.equal((await setAvailability(agents[0]!.token, 'online')).status, 200);

    const id = await inbound();
    const capture = await desk0.next(
      'chat.capture',
      (e) => (e.data as { chat: { id: string } }).chat.id === id,
    );
    const data = capture.data as {
      chat: { userId: string; queue: string };
      assignment: { mode: string };
      by?: unknown;
    };
    assert.equal(data.chat.userId, agents[0]!.id);
    assert.equal(data.chat.queue, 'Em Atendimento');
    assert.deepEqual(data.assignment, { mode: 'capacity' });
    assert.equal(data.by, undefined);
    const note = await desk0.next('notification.new');
    const n = (note.data as { notification: { kind: string; data: Record<string, unknown> } }).notification;
    assert.equal(n.kind, 'chat.assigned');
    assert.equal(n.data.chatId, id);
    assert.equal(n.data.reasonCode, 'auto_assignment');

    const activity = await t.request('GET', `/api/chats/${id}/activity`, {
      headers: bearer(agents[0]!.token),
    });
    assert.equal(activity.status, 200);
    const line = (activity.json.activity as Record<string, unknown>[])[0]!;
    assert.equal(line.kind, 'assign.auto');
    assert.equal(line.by, null);
    assert.deepEqual(line.to, { userId: agents[0]!.id });
    assert.equal(line.reasonCode, 'capacity');

    // Both now have one open, at most two: two more go one each, a fifth waits.
    const more = [await inbound(), await inbound(), await inbound()];
    const owners = await Promise.all(
      more.slice(0, 2).map(async (c) => {
        const e = await Promise.race([
          desk0.next('chat.capture', (x) => (x.data as { chat: { id: string } }).chat.id === c),
          desk1.next('chat.capture', (x) => (x.data as { chat: { id: string } }).chat.id === c),
        ]);
        return (e.data as { chat: { userId: string } }).chat.userId;
      }),
    );
    assert.deepEqual(owners.sort(), [agents[0]!.id, agents[1]!.id].sort());
    // A round under the account's lock: whatever could be assigned has been.
    await t.server.services.assignment.assignAccount(f.accountId);
    assert.deepEqual(await chat(more[2]!), { user_id: null, queue: 'Espera' });

    // A close frees room: the waiting one goes to whoever closed.
    const close = await t.request('POST', `/api/chats/${held}/close`, { headers: bearer(agents[1]!.token) });
    assert.equal(close.status, 200);
    const freed = await desk1.next(
      'chat.capture',
      (e) => (e.data as { chat: { id: string } }).chat.id === more[2],
    );
    assert.equal((freed.data as { chat: { userId: string } }).chat.userId, agents[1]!.id);
  });

  it('an agent going offline gives back what they have not answered, and it goes to who is online', async () => {
    const desk1 = await open(agents[1]!.token, team);
    const { rows } = await db.query<{ id: string }>(
      `SELECT id FROM chats WHERE user_id = $1 AND status = 'open' ORDER BY created_at`,
      [agents[0]!.id],
    );
    assert.equal(rows.length, 2);
    // Agent 0 answers the first.
    const reply = await t.request('POST', `/api/chats/${rows[0]!.id}/messages`, {
      headers: bearer(agents[0]!.token),
      body: { text: 'Olá!' },
    });
    assert.equal(reply.status, 201, JSON.stringify(reply.body));
    // Agent 1 has room for one more after a close.
    const mine = await db.query<{ id: string }>(
      `SELECT id FROM chats WHERE user_id = $1 AND status = 'open'`,
      [agents[1]!.id],
    );
    for (const r of mine.rows)
      await t.request('POST', `/api/chats/${r.id}/close`, { headers: bearer(agents[1]!.token) });

    assert.equal((await setAvailability(agents[0]!.token, 'offline')).status, 200);
    const back = await desk1.next(
      'chat.capture',
      (e) => (e.data as { chat: { id: string } }).chat.id === rows[1]!.id,
    );
    assert.equal((back.data as { chat: { userId: string } }).chat.userId, agents[1]!.id);
    assert.equal((await chat(rows[0]!.id)).user_id, agents[0]!.id);
    const activity = await t.request('GET', `/api/chats/${rows[1]!.id}/activity`, {
      headers: bearer(f.adminToken),
    });
    const kinds = (activity.json.activity as { kind: string; reasonCode: string | null }[]).map((l) => [
      l.kind,
      l.reasonCode,
    ]);
    assert.deepEqual(kinds.slice(0, 3), [
      ['assign.auto', 'capacity'],
      ['transfer.team', 'agent_offline'],
      ['assign.auto', 'capacity'],
    ]);
  });

  it('round robin: in turn among online agents; away agents get nothing', async () => {
    for (const a of agents) {
      const mine = await db.query<{ id: string }>(
        `SELECT id FROM chats WHERE user_id = $1 AND status = 'open'`,
        [a.id],
      );
      for (const r of mine.rows)
        await t.request('POST', `/api/chats/${r.id}/close`, { headers: bearer(f.adminToken) });
    }
    const desk = await open(f.adminToken, team);
    await setAvailability(agents[0]!.token, 'online');
    await setAvailability(agents[1]!.token, 'online');
    await setAvailability(agents[2]!.token, 'away');
    assert.equal((await configure({ mode: 'round_robin' })).status, 200);
    const got: string[] = [];
    for (let i = 0; i < 4; i++) {
      const id = await inbound();
      const e = await desk.next('chat.capture', (x) => (x.data as { chat: { id: string } }).chat.id === id);
      got.push((e.data as { chat: { userId: string } }).chat.userId);
    }
    assert.notEqual(got[0], got[1]);
    assert.deepEqual([got[2], got[3]], [got[0], got[1]]);
    assert.ok(!got.includes(agents[2]!.id));
  });
});
