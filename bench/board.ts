/**
 * The `board-latency` row (docs/adr/0090-live-board.md): a supervisor's live board with 200 agents
 * online, each with a gateway socket in the team's room, while agents change availability five times a
 * second (events the board follows, so its reads are mostly held back by the 300 ms gap, as in a busy
 * hour). A customer writes (the sandbox inbound API) every ~0.5 s; measured: from the inbound's request
 * to the board client holding a `GET /api/board` answer whose team's waiting figure counts it. The board
 * client is what the console does: a socket in the team's room, the board read again after the events
 * of `BOARD_EVENTS`, coalesced by the console's own `coalescer`. The team, channel, agents and
 * supervisor are made for the run (names unique per run); the conversations are closed after.
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { io, type Socket } from 'socket.io-client';
import type pg from 'pg';
import { BOARD_EVENTS } from '../web/src/board/board-events.js';
import { coalescer } from '../web/src/board/coalescer.js';
import { closeAll, connectClients, login } from './gateway.js';
import { cpuOf, cpuPerItem, cpuSeconds, round } from './load.js';
import type { LiveRow } from './report.js';
import { ADMIN_EMAIL, backendPids, PASSWORD, withClient } from './seed.js';
import { percentile } from './send.js';
import type { ServerUnderTest } from './server.js';

export const BOARD_ROW = 'board-latency';
/** The target: the board reflects an event within a second. */
export const BOARD_TARGET_MS = 1_000;
const AGENTS = 200;
const SAMPLES = 100;
const INBOUND_EVERY_MS = 500;
const AVAILABILITY_EVERY_MS = 200;
/** Board reads measured alone, after the row, for the cost of one. */
const QUIET_READS = 50;
/** The console's (web/src/board/use-board.ts). */
const GAP_MS = 300;

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

/** The supervisor's console, reduced to its board: a socket, the events, the coalesced reads. */
class BoardClient {
  waiting = -1;
  reads = 0;
  events = 0;
  private socket: Socket | null = null;
  private readonly waiters = new Set<() => void>();
  private readonly reader;

  constructor(
    private readonly server: ServerUnderTest,
    private readonly token: string,
    private readonly teamId: string,
  ) {
    this.reader = coalescer(() => this.read(), GAP_MS);
  }

  private async read(): Promise<void> {
    const board = (await call(this.server, this.token, 'GET', '/api/board')) as {
      teams: { teamId: string; waiting: number }[];
    };
    this.reads++;
    this.waiting = board.teams.find((t) => t.teamId === this.teamId)?.waiting ?? -1;
    for (const w of this.waiters) w();
  }

  async start(userId: string): Promise<void> {
    const socket = io(this.server.gatewayUrl!, {
      path: '/socket.io',
      transports: ['websocket'],
      forceNew: true,
      reconnection: false,
      auth: { token: this.token },
    });
    this.socket = socket;
    await new Promise<void>((resolve, reject) => {
      socket.once('session.ready', () => resolve());
      socket.once('connect_error', reject);
    });
    await socket.timeout(60_000).emitWithAck('user_logged_in', userId);
    await socket.timeout(60_000).emitWithAck('user_join_team', [this.teamId]);
    for (const name of BOARD_EVENTS)
      socket.on(name, () => {
        this.events++;
        this.reader.poke();
      });
    await this.read();
  }

  /** When a read shows at least `n` waiting (or null at the timeout). */
  async until(n: number, timeoutMs: number): Promise<number | null> {
    if (this.waiting >= n) return now();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        resolve(null);
      }, timeoutMs);
      const check = () => {
        if (this.waiting < n) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(now());
      };
      this.waiters.add(check);
    });
  }

  close(): void {
    this.reader.cancel();
    this.socket?.disconnect();
  }
}

/**
 * Deletes the users a run made, and what refers to them, so that the seeded account's users stay as
 * seeded (the `users` row lists them all; 200 more per run had made it four times dearer). They
 * attended nothing and wrote no message; the foreign keys from messages and chats are not checked
 * (`session_replication_role`): each check would read the whole messages table, which has no index by
 * author. Their team, channel and closed conversations stay, as the rollups counted them.
 */
async function removeUsers(c: pg.Client, ids: string[]): Promise<void> {
  await c.query('BEGIN');
  for (const table of [
    'team_members',
    'notifications',
    'user_connections',
    'notification_preferences',
    'chat_views',
    'drafts',
  ])
    await c.query(`DELETE FROM ${table} WHERE user_id = ANY($1::text[])`, [ids]);
  await c.query('SET LOCAL session_replication_role = replica');
  await c.query('DELETE FROM users WHERE id = ANY($1::text[])', [ids]);
  await c.query('COMMIT');
}

export async function runBoardRow(p: {
  dbUrl: string;
  server: ServerUnderTest;
  log: (line: string) => void;
}): Promise<LiveRow> {
  const { server, log } = p;
  const admin = await login(server.url, ADMIN_EMAIL);
  const run = randomBytes(4).toString('hex');
  const agentIds: string[] = [];
  const mk = (name: string, email: string, role: string) =>
    call(server, admin.token, 'POST', '/api/users', { name, email, password: PASSWORD, role });
  for (let i = 0; i < AGENTS; i += 20) {
    const made = await Promise.all(
      Array.from({ length: Math.min(20, AGENTS - i) }, (_, j) =>
        mk(`Agente ${run} ${i + j}`, `board-${run}-${i + j}@example.com`, 'agent'),
      ),
    );
    agentIds.push(...made.map((u) => String(u.id)));
  }
  const supEmail = `board-${run}-sup@example.com`;
  const sup = await mk(`Supervisora ${run}`, supEmail, 'supervisor');
  const team = await call(server, admin.token, 'POST', '/api/teams', {
    name: `Painel ${run}`,
    members: [...agentIds, String(sup.id)],
  });
  const teamId = String(team.id);
  const channel = await call(server, admin.token, 'POST', '/api/channels', {
    name: `Painel ${run}`,
    provider: 'sandbox',
    defaultTeamId: teamId,
  });
  await withClient(p.dbUrl, (c) =>
    c.query(`UPDATE users SET availability = 'online', availability_at = now() WHERE id = ANY($1::text[])`, [
      agentIds,
    ]),
  );

  // The agents' consoles: 200 sockets in the team's room (two client processes).
  const tokens: { token: string; userId: string }[] = [];
  for (let i = 0; i < AGENTS; i += 20) {
    tokens.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(20, AGENTS - i) }, (_, j) =>
          login(server.url, `board-${run}-${i + j}@example.com`),
        ),
      )),
    );
  }
  const specs = tokens.map((t) => ({ ...t, teams: [teamId] }));
  const sockets = await connectClients(server.gatewayUrl!, specs, 2, 'chat.new', log);
  log(`  board-latency: ${sockets.ok} agent sockets connected (${sockets.failed} failed)`);

  const supervisor = await login(server.url, supEmail);
  const board = new BoardClient(server, supervisor.token, teamId);
  await board.start(supervisor.userId);
  const base = board.waiting;

  // Background: an agent changes availability every 200 ms (a `user.availability` to the account).
  let churn = true;
  let changes = 0;
  const background = (async () => {
    for (let k = 0; churn; k++) {
      const a = tokens[k % tokens.length]!;
      // Every agent away, then every agent online again, and so on: each call a change (an event).
      await call(server, a.token, 'PUT', '/api/me/availability', {
        availability: Math.floor(k / tokens.length) % 2 === 0 ? 'away' : 'online',
      }).catch(() => undefined);
      changes++;
      await sleep(AVAILABILITY_EVERY_MS);
    }
  })();

  const cpu0 = cpuSeconds(server.pid);
  const db0 = cpuOf(await backendPids(p.dbUrl));
  const reads0 = board.reads;
  const latencies: number[] = [];
  let missed = 0;
  // New customers each run: 55 11 9, four digits of this run, four of the sample.
  const prefix = String(Math.floor(Math.random() * 10_000)).padStart(4, '0');
  for (let i = 0; i < SAMPLES; i++) {
    // A jitter, so arrivals fall anywhere within the reads' 300 ms gap.
    await sleep(INBOUND_EVERY_MS - 100 + Math.floor(Math.random() * 200));
    const t0 = now();
    await call(server, admin.token, 'POST', `/api/sandbox/channels/${String(channel.id)}/inbound`, {
      from: `55119${prefix}${String(i).padStart(4, '0')}`,
      text: 'Olá',
    });
    const t1 = await board.until(base + i + 1, 10_000);
    if (t1 === null) missed++;
    else latencies.push(t1 - t0);
  }
  const cpu1 = cpuSeconds(server.pid);
  const db1 = cpuOf(await backendPids(p.dbUrl));
  let dbSeconds = 0;
  for (const [pid, s] of db1) dbSeconds += s - (db0.get(pid) ?? 0);
  const reads = board.reads - reads0;
  const busy = cpuPerItem(cpu0, cpu1, dbSeconds, reads);
  churn = false;
  await background;
  board.close();

  // What one read costs alone: the same request back to back with nothing else going on.
  const quiet: number[] = [];
  const qcpu0 = cpuSeconds(server.pid);
  const qdb0 = cpuOf(await backendPids(p.dbUrl));
  for (let i = 0; i < QUIET_READS; i++) {
    const t = now();
    await call(server, supervisor.token, 'GET', '/api/board');
    quiet.push(now() - t);
  }
  const qcpu1 = cpuSeconds(server.pid);
  const qdb1 = cpuOf(await backendPids(p.dbUrl));
  let qdbSeconds = 0;
  for (const [pid, s] of qdb1) qdbSeconds += s - (qdb0.get(pid) ?? 0);
  const alone = cpuPerItem(qcpu0, qcpu1, qdbSeconds, QUIET_READS);
  quiet.sort((a, b) => a - b);
  await closeAll(sockets.clients);
  await withClient(p.dbUrl, async (c) => {
    await c.query(
      `UPDATE chats SET status = 'closed', closed_at = now() WHERE team_id = $1 AND status = 'open'`,
      [teamId],
    );
    await removeUsers(c, [...agentIds, String(sup.id)]);
  });

  latencies.sort((a, b) => a - b);
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);
  log(
    `  board-latency: p50 ${p50 === null ? '—' : Math.round(p50)} ms, p99 ${p99 === null ? '—' : Math.round(p99)} ms; ` +
      `${reads} board reads for ${board.events} events; ${changes} availability changes; ${missed} missed`,
  );
  const valid = missed === 0 && sockets.failed === 0;
  return {
    id: BOARD_ROW,
    label: 'board-latency: event → live board',
    request: `sandbox inbound every ~${INBOUND_EVERY_MS} ms, ${AGENTS} agents' sockets, availability changes every ${AVAILABILITY_EVERY_MS} ms; the board read after gateway events, ≥ ${GAP_MS} ms apart`,
    roles: 'api,gateway',
    value: p99 === null ? null : round(p99, 0),
    unit: 'ms p99 until the board shows it',
    p50: p50 === null ? null : round(p50, 1),
    p99: p99 === null ? null : round(p99, 1),
    ratio: null,
    ratioOf: null,
    // CPU of one board read, measured alone (the row's own window also holds the inbounds' work).
    ...alone,
    target: { text: `p99 ≤ ${BOARD_TARGET_MS} ms`, met: valid && p99 !== null && p99 <= BOARD_TARGET_MS },
    notes: [
      `${reads} board reads for ${SAMPLES} inbounds and ${changes} availability changes`,
      `one board read alone: p50 ${round(percentile(quiet, 50) ?? 0, 1)} ms, CPU per read measured alone`,
      `window's CPU per board read, everything included: server ${busy.serverCpuUs ?? '–'} µs, DB ${busy.dbCpuUs ?? '–'} µs`,
    ],
    valid,
    details: {
      samples: latencies.map((x) => round(x, 1)),
      missed,
      reads,
      events: board.events,
      changes,
      quietReadsMs: quiet.map((x) => round(x, 1)),
      busy,
    },
  };
}
