import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// The live board (GET /api/board): every figure exact against a state the test writes — conversations
// waiting (and since when), in attendance, snoozed, closed, transferred to another team; SLA targets at
// risk and breached; agents' availability, load and capacity — with who may read it (admins every
// team, supervisors their own, agents 403), and accounts that never see each other.

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

interface Figures {
  waiting: number;
  longestWaitingSince: string | null;
  inAttendance: number;
  slaAtRisk: number;
  slaBreached: number;
}
interface Agent {
  userId: string;
  name: string;
  availability: string;
  load: number;
  capacity: number | null;
}
interface Board {
  scope: string;
  atRiskMinutes: number;
  teams: (Figures & {
    teamId: string;
    name: string;
    assignmentMode: string;
    online: number;
    away: number;
    offline: number;
    agents: Agent[];
  })[];
  channels: (Figures & { channelId: string; name: string })[];
}
const figuresOf = (x: Figures): Figures => ({
  waiting: x.waiting,
  longestWaitingSince: x.longestWaitingSince,
  inAttendance: x.inAttendance,
  slaAtRisk: x.slaAtRisk,
  slaBreached: x.slaBreached,
});

describe('live board', { timeout: 60_000 }, () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let db: pg.Pool;
  let supervisor: { id: string; token: string };
  let teamA: string;
  let teamB: string;
  const chats: Record<string, string> = {};
  const OLDEST = '2026-01-02T10:00:00.000Z';
  const OLDER = '2026-01-02T11:00:00.000Z';

  before(async () => {
    // No worker role: neither automatic assignment nor the breach loop changes the state below.
    t = await startTestApp({ env: { ATENDE_ROLES: 'api' } });
    f = await seedAccount(t.server.services, { agents: 3 });
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    teamA = f.teams[0]!.id;
    teamB = f.teams[1]!.id;
    const email = `sup-${Date.now()}@example.com`;
    const made = await t.request('POST', '/api/users', {
      headers: bearer(f.adminToken),
      body: { name: 'Supervisora', email, password: 'supervisor-password', role: 'supervisor' },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const login = await t.request('POST', '/auth/login', {
      body: { email, password: 'supervisor-password' },
    });
    supervisor = { id: String(made.json.id), token: String(login.json.accessToken) };
    const [a0, a1, a2] = f.agents;
    // Team A: agents 0 and 1 and the supervisor; team B: agent 2 (and agent 1, so a load spans teams).
    for (const [team, members] of [
      [teamA, [a0!.id, a1!.id, supervisor.id]],
      [teamB, [a2!.id, a1!.id]],
    ] as const) {
      const res = await t.request('PATCH', `/api/teams/${team}`, {
        headers: bearer(f.adminToken),
        body: { members },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const cap = await t.request('PUT', `/api/teams/${teamA}/assignment`, {
      headers: bearer(f.adminToken),
      body: { mode: 'capacity', maxOpen: 5, overrides: [{ userId: a1!.id, maxOpen: 2 }] },
    });
    assert.equal(cap.status, 200, JSON.stringify(cap.body));
    for (const [token, availability] of [
      [a0!.token, 'online'],
      [a1!.token, 'away'],
    ] as const) {
      const res = await t.request('PUT', '/api/me/availability', {
        headers: bearer(token),
        body: { availability },
      });
      assert.equal(res.status, 200);
    }

    // Channel 0 (team A): five conversations; channel 1 (team B): two.
    for (const name of ['w1', 'w2', 'w3', 'snoozed', 'att1', 'att2', 'closed', 'moved']) {
      chats[name] = await f.inbound(0, `55119880${Object.keys(chats).length.toString().padStart(5, '0')}`);
    }
    chats.b1 = await f.inbound(1, '5511988100001');
    chats.foreign = await other.inbound(0, '5511988100002');
    const capture = async (chat: string, token: string) => {
      const res = await t.request('POST', `/api/chats/${chat}/capture`, { headers: bearer(token) });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    };
    await capture(chats.att1!, a0!.token);
    await capture(chats.att2!, a1!.token);
    await capture(chats.snoozed!, a0!.token);
    const closeRes = await t.request('POST', `/api/chats/${chats.closed}/close`, {
      headers: bearer(f.adminToken),
    });
    assert.equal(closeRes.status, 200, JSON.stringify(closeRes.body));
    // Transferred to team B while still on channel 0: team B's figure, channel 0's row.
    const moved = await t.request('POST', `/api/chats/${chats.moved}/transfer`, {
      headers: bearer(f.adminToken),
      body: { teamId: teamB },
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));

    // Clocks the test fixes: waiting times, a snooze, SLA due instants (at risk, breached, far).
    await db.query(`UPDATE chats SET waiting_since = $2 WHERE id = $1`, [chats.w1, OLDER]);
    await db.query(`UPDATE chats SET waiting_since = $2 WHERE id = $1`, [chats.w2, OLDEST]);
    await db.query(`UPDATE chats SET waiting_since = NULL WHERE id = $1`, [chats.w3]);
    await db.query(`UPDATE chats SET snoozed_at = now(), snoozed_by = $2 WHERE id = $1`, [
      chats.snoozed,
      a0!.id,
    ]);
    await db.query(`UPDATE chats SET first_response_due_at = now() + interval '5 minutes' WHERE id = $1`, [
      chats.w1,
    ]);
    await db.query(`UPDATE chats SET first_response_due_at = now() + interval '3 hours' WHERE id = $1`, [
      chats.w2,
    ]);
    await db.query(
      `UPDATE chats SET first_responded_at = now(), first_response_due_at = now() - interval '1 minute',
         resolution_due_at = now() + interval '10 minutes' WHERE id = $1`,
      [chats.att1],
    );
    await db.query(
      `UPDATE chats SET first_response_breached_at = now(), first_response_due_at = now() - interval '1 hour'
       WHERE id = $1`,
      [chats.att2],
    );
    await db.query(`UPDATE chats SET resolution_due_at = now() - interval '1 second' WHERE id = $1`, [
      chats.b1,
    ]);
  });
  after(async () => {
    await db?.end();
    await t?.close();
  });

  const board = async (token: string) => {
    const res = await t.request('GET', '/api/board', { headers: bearer(token) });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as Board;
  };

  it('an admin sees every team and channel, each figure exact', async () => {
    const b = await board(f.adminToken);
    assert.equal(b.scope, 'account');
    assert.equal(b.atRiskMinutes, 15);
    assert.deepEqual(
      b.teams.map((x) => [x.name, figuresOf(x)]),
      [
        // w1, w2, w3 wait (w3's customer was answered: no waiting time); the snoozed one is left out.
        // att1's resolution is due in 10 min (at risk), w1's first response in 5; att2 breached.
        [
          'Equipe 0',
          { waiting: 3, longestWaitingSince: OLDEST, inAttendance: 2, slaAtRisk: 2, slaBreached: 1 },
        ],
        // `moved` waits in team B's Espera, and b1 is past its resolution instant, not marked yet.
        [
          'Equipe 1',
          {
            waiting: 2,
            longestWaitingSince: b.teams[1]!.longestWaitingSince,
            inAttendance: 0,
            slaAtRisk: 0,
            slaBreached: 1,
          },
        ],
      ],
    );
    assert.notEqual(b.teams[1]!.longestWaitingSince, null);
    assert.deepEqual(
      b.channels.map((x) => [x.name, x.waiting, x.inAttendance, x.slaAtRisk, x.slaBreached]),
      [
        ['Canal 0', 4, 2, 2, 1],
        ['Canal 1', 1, 0, 0, 1],
      ],
    );
    const [a0, a1, a2] = f.agents;
    const team0 = b.teams[0]!;
    assert.equal(team0.assignmentMode, 'capacity');
    // Online first, then by name; loads in every team, the snoozed conversation included.
    assert.deepEqual(
      team0.agents.map((a) => [a.userId, a.availability, a.load, a.capacity]),
      [
        [a0!.id, 'online', 2, 5],
        [a1!.id, 'away', 1, 2],
        [supervisor.id, 'offline', 0, 5],
      ],
    );
    assert.deepEqual([team0.online, team0.away, team0.offline], [1, 1, 1]);
    // Team B assigns nothing: no capacity.
    assert.deepEqual(
      b.teams[1]!.agents.map((a) => [a.userId, a.load, a.capacity]),
      [
        [a1!.id, 1, null],
        [a2!.id, 0, null],
      ],
    );
  });

  it('each figure is the total of the chat list its click opens', async () => {
    const b = await board(f.adminToken);
    const list = async (query: string) => {
      const res = await t.request('GET', `/api/chats?${query}&limit=100`, { headers: bearer(f.adminToken) });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.json as { total: number; chats: { id: string }[] };
    };
    for (const [i, team] of b.teams.entries()) {
      const waiting = await list(
        `status=open&queue=Espera&assignee=unassigned&teamId=${team.teamId}&sort=longest_waiting`,
      );
      assert.equal(waiting.total, team.waiting);
      if (i === 0) assert.equal(waiting.chats[0]!.id, chats.w2);
      const attending = await list(
        `status=open&queue=${encodeURIComponent('Em Atendimento')}&teamId=${team.teamId}`,
      );
      assert.equal(attending.total, team.inAttendance);
      const atRisk = await list(`status=open&sla=at_risk&teamId=${team.teamId}`);
      assert.equal(atRisk.total, team.slaAtRisk);
      const breached = await list(`status=open&sla=breached&teamId=${team.teamId}`);
      assert.equal(breached.total, team.slaBreached);
      if (i === 0) {
        assert.deepEqual(atRisk.chats.map((c) => c.id).sort(), [chats.w1, chats.att1].sort());
        assert.deepEqual(
          breached.chats.map((c) => c.id),
          [chats.att2],
        );
      }
    }
    const channel = b.channels[0]!;
    const byChannel = await list(
      `status=open&queue=Espera&assignee=unassigned&channelId=${channel.channelId}`,
    );
    assert.equal(byChannel.total, channel.waiting);
    const bad = await t.request('GET', '/api/chats?sla=late', { headers: bearer(f.adminToken) });
    assert.equal(bad.status, 400);
  });

  it('a supervisor sees the teams they belong to, and the channels count only those teams', async () => {
    const b = await board(supervisor.token);
    assert.equal(b.scope, 'teams');
    assert.deepEqual(
      b.teams.map((x) => x.teamId),
      [teamA],
    );
    // Channel 0 without `moved` (team B's now); channel 1 holds only team B's.
    assert.deepEqual(
      b.channels.map((x) => [x.name, x.waiting, x.inAttendance, x.slaBreached]),
      [
        ['Canal 0', 3, 2, 1],
        ['Canal 1', 0, 0, 0],
      ],
    );
  });

  it('follows a change at once: a new customer waits, an agent comes online', async () => {
    await f.inbound(0, '5511988100003');
    const res = await t.request('PUT', '/api/me/availability', {
      headers: bearer(f.agents[2]!.token),
      body: { availability: 'online' },
    });
    assert.equal(res.status, 200);
    const b = await board(f.adminToken);
    assert.equal(b.teams[0]!.waiting, 4);
    assert.equal(b.channels[0]!.waiting, 5);
    const teamB = b.teams[1]!;
    assert.equal(teamB.agents.find((a) => a.userId === f.agents[2]!.id)!.availability, 'online');
    assert.deepEqual([teamB.online, teamB.away, teamB.offline], [1, 1, 0]);
  });

  it('many supervisors at once: each gets the whole board, read after it asked', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, () => board(supervisor.token)));
    const first = JSON.stringify(answers[0]!.teams);
    for (const a of answers) assert.equal(JSON.stringify(a.teams), first);
  });

  it('a supervisor of no team sees an empty board', async () => {
    const email = `sup2-${Date.now()}@example.com`;
    const made = await t.request('POST', '/api/users', {
      headers: bearer(f.adminToken),
      body: { name: 'Sem Equipe', email, password: 'supervisor-password', role: 'supervisor' },
    });
    assert.equal(made.status, 201);
    const login = await t.request('POST', '/auth/login', {
      body: { email, password: 'supervisor-password' },
    });
    const b = await board(String(login.json.accessToken));
    assert.equal(b.scope, 'teams');
    assert.deepEqual(b.teams, []);
    assert.ok(b.channels.every((c) => c.waiting === 0 && c.inAttendance === 0 && c.slaBreached === 0));
  });

  it('agents are refused (403), anonymous requests 401', async () => {
    const res = await t.request('GET', '/api/board', { headers: bearer(f.agents[0]!.token) });
    assert.equal(res.status, 403);
    assert.equal(res.json.statusCode, 403);
    const anon = await t.request('GET', '/api/board');
    assert.equal(anon.status, 401);
  });

  it('another account sees its own teams only, none of these conversations', async () => {
    const b = await board(other.adminToken);
    assert.deepEqual(
      b.teams.map((x) => x.teamId),
      other.teams.map((x) => x.id),
    );
    assert.deepEqual(
      b.channels.map((x) => x.channelId),
      other.channels.map((x) => x.id),
    );
    assert.equal(b.teams[0]!.waiting, 1);
    assert.equal(b.teams[1]!.waiting, 0);
    assert.ok(!JSON.stringify(b).includes(teamA));
  });
});
