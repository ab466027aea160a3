/**
 * The `auto-assign` row (issue 27): a burst of 2,000 conversations arriving at once in the `Espera` of
 * a team that assigns by capacity, across 200 online agents (at most 10 open each: exactly 2,000
 * places), with two server processes (api and worker roles each, one PostgreSQL, Redis when reachable)
 * assigning. Measured: from the burst's commit to the last conversation given. Checked: none given twice (one `chat.capture` per conversation in the event log), no agent
 * past 10, every conversation given. The team, its channel and agents are made for the run in the
 * run's own account (bench/live.ts), dropped at the end: the burst's conversations are written without
 * events, and in the seeded account they had changed what the list and report rows read.
 */
import { randomBytes } from 'node:crypto';
import { cpuOf, cpuPerItem, cpuSeconds, round } from './load.js';
import type { LiveRow } from './report.js';
import { backendPids, PASSWORD, withClient } from './seed.js';
import type { ServerUnderTest } from './server.js';

export const ASSIGN_ROW = 'auto-assign';
/** The issue's target: every conversation of the burst assigned within this long. */
export const ASSIGN_TARGET_MS = 5_000;
const CHATS = 2_000;
const AGENTS = 200;
const MAX_OPEN = 10;

async function call(server: ServerUnderTest, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 200)}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

export async function runAssignRow(p: {
  dbUrl: string;
  servers: [ServerUnderTest, ServerUnderTest];
  /** The run's own account (bench/live.ts), dropped at the end with what the burst left. */
  account: { accountId: string; adminEmail: string };
  redis: boolean;
  log: (line: string) => void;
}): Promise<LiveRow> {
  const { servers, log } = p;
  const [a] = servers;
  const login = await fetch(`${a.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: p.account.adminEmail, password: PASSWORD }),
  });
  if (login.status !== 200) throw new Error(`auto-assign: login answered ${login.status}`);
  const { accessToken: token } = (await login.json()) as { accessToken: string };

  // The agents, their team and its channel; the agents online (set in the database: 200 logins
  // would meet the login limit, and nothing here is about logging in).
  const run = randomBytes(4).toString('hex');
  const agentIds: string[] = [];
  for (let i = 0; i < AGENTS; i += 20) {
    const made = await Promise.all(
      Array.from({ length: Math.min(20, AGENTS - i) }, (_, j) =>
        call(a, token, 'POST', '/api/users', {
          name: `Agente ${run} ${i + j}`,
          email: `assign-${run}-${i + j}@example.com`,
          password: PASSWORD,
          role: 'agent',
        }),
      ),
    );
    agentIds.push(...made.map((u) => String(u.id)));
  }
  const team = await call(a, token, 'POST', '/api/teams', { name: `Atribuição ${run}`, members: agentIds });
  const teamId = String(team.id);
  const channel = await call(a, token, 'POST', '/api/channels', {
    name: `Atribuição ${run}`,
    provider: 'sandbox',
    defaultTeamId: teamId,
  });
  await withClient(p.dbUrl, (c) =>
    c.query(`UPDATE users SET availability = 'online', availability_at = now() WHERE id = ANY($1::text[])`, [
      agentIds,
    ]),
  );
  await call(a, token, 'PUT', `/api/teams/${teamId}/assignment`, { mode: 'capacity', maxOpen: MAX_OPEN });

  // The burst: 2,000 customers' conversations committed at once in the team's Espera (one statement,
  // as a busy inbound moment looks to assignment), then the doorbell every commit rings (NOTIFY on the
  // event log's channel) — the HTTP arrivals themselves are the inbound rows' measure, not this one's.
  const cpu0 = servers.map((s) => cpuSeconds(s.pid));
  const db0 = cpuOf(await backendPids(p.dbUrl));
  const t0 = performance.now();
  const refused = 0;
  await withClient(p.dbUrl, async (c) => {
    await c.query('BEGIN');
    await c.query(
      `INSERT INTO contacts (id, account_id, channel_id, type, value, name, provider_address)
       SELECT 'a' || $3 || lpad(to_hex(i), 15, '0'), $1, $2, 'phone', v, 'Cliente ' || i, v
       FROM generate_series(1, $4::int) AS i, LATERAL (SELECT '5511' || (900000000 + i) AS v) x`,
      [p.account.accountId, String(channel.id), run, CHATS],
    );
    await c.query(
      `INSERT INTO chats (id, account_id, channel_id, contact_id, team_id, queue)
       SELECT 'b' || $4 || lpad(to_hex(i), 15, '0'), $1, $2, 'a' || $4 || lpad(to_hex(i), 15, '0'), $3, 'Espera'
       FROM generate_series(1, $5::int) AS i`,
      [p.account.accountId, String(channel.id), teamId, run, CHATS],
    );
    await c.query('COMMIT');
    await c.query(`SELECT pg_notify('atende_events', '')`);
  });
  const sentMs = performance.now() - t0;
  log(`  auto-assign: ${CHATS} conversations committed in ${Math.round(sentMs)} ms`);

  // Until every conversation is given (or 60 s): the count, read every 20 ms.
  const given = async () =>
    withClient(p.dbUrl, async (c) => {
      const r = await c.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM chats WHERE team_id = $1 AND status = 'open' AND user_id IS NOT NULL`,
        [teamId],
      );
      return r.rows[0]?.n ?? 0;
    });
  let doneMs: number | null = null;
  for (;;) {
    const n = await given();
    if (n >= CHATS - refused) {
      doneMs = performance.now() - t0;
      break;
    }
    if (performance.now() - t0 > 60_000) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const cpu1 = servers.map((s) => cpuSeconds(s.pid));
  const db1 = cpuOf(await backendPids(p.dbUrl));
  let dbSeconds = 0;
  for (const [pid, s] of db1) dbSeconds += s - (db0.get(pid) ?? 0);
  const serverCpu = (xs: (number | null)[]) =>
    xs.every((x) => x !== null) ? xs.reduce((s, x) => s + (x ?? 0), 0) : null;

  const check = await withClient(p.dbUrl, async (c) => {
    const loads = await c.query<{ max: number | null; agents: number }>(
      `SELECT max(n)::int AS max, count(*)::int AS agents FROM (
         SELECT user_id, count(*) AS n FROM chats WHERE team_id = $1 AND status = 'open' AND user_id IS NOT NULL
         GROUP BY user_id) x`,
      [teamId],
    );
    const twice = await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM (
         SELECT e.data #>> '{chat,id}' FROM events e JOIN chats ch ON ch.id = e.data #>> '{chat,id}'
         WHERE e.account_id = $1 AND e.event = 'chat.capture' AND ch.team_id = $2
         GROUP BY 1 HAVING count(*) > 1) x`,
      [p.account.accountId, teamId],
    );
    // Put the account back as it was: the burst's conversations closed, the team off, the agents offline.
    await c.query(
      `UPDATE chats SET status = 'closed', closed_at = now() WHERE team_id = $1 AND status = 'open'`,
      [teamId],
    );
    await c.query(`UPDATE team_assignment SET mode = 'off' WHERE team_id = $1`, [teamId]);
    await c.query(`UPDATE users SET availability = 'offline' WHERE id = ANY($1::text[])`, [agentIds]);
    return {
      maxLoad: loads.rows[0]?.max ?? 0,
      agents: loads.rows[0]?.agents ?? 0,
      twice: twice.rows[0]?.n ?? 0,
    };
  });
  log(
    `  auto-assign: all given in ${doneMs === null ? 'NOT within 60 s' : `${Math.round(doneMs)} ms`}; ` +
      `most open per agent ${check.maxLoad}, given twice ${check.twice}`,
  );
  const valid = refused === 0 && check.twice === 0 && check.maxLoad <= MAX_OPEN && doneMs !== null;
  return {
    id: ASSIGN_ROW,
    label: 'auto-assignment burst',
    request: `${CHATS} conversations committed at once in a team's Espera → capacity, ${AGENTS} agents × ${MAX_OPEN}, 2 nodes assigning`,
    roles: `api,worker ×2${p.redis ? ' (Redis)' : ''}`,
    value: doneMs === null ? null : round(doneMs, 0),
    unit: 'ms until all assigned',
    p50: null,
    p99: null,
    ratio: null,
    ratioOf: null,
    ...cpuPerItem(serverCpu(cpu0), serverCpu(cpu1), dbSeconds, CHATS - refused),
    target: {
      text: `all assigned ≤ ${ASSIGN_TARGET_MS / 1000} s, none twice, none past ${MAX_OPEN}`,
      met: valid && doneMs !== null && doneMs <= ASSIGN_TARGET_MS,
    },
    notes: [
      `the insert took ${Math.round(sentMs)} ms of it`,
      `most open per agent: ${check.maxLoad}`,
      `given twice: ${check.twice}`,
      'CPU per conversation, both servers',
    ],
    valid,
    details: {
      doneMs: doneMs === null ? null : round(doneMs, 1),
      sentMs: round(sentMs, 1),
      refused,
      ...check,
    },
  };
}
