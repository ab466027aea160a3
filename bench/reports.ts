/**
 * The reports' rows (docs/adr/0089-reports-and-rollups.md):
 *
 * - `report-30d`: `GET /api/reports/*` over the last 30 days of the seeded account (its rollups,
 *   filled set-based by the seed: bench/seed-rollups.ts), as an admin, 10 connections; the requests
 *   rotate through the totals by day, by team, the agent report, 720 hourly buckets, and a channel's
 *   figures by label (the finest grain). Target: p99 ≤ 300 ms.
 * - `rollup-rate`: the consumer of the event log on a worker-role server. Conversation events (a new
 *   conversation, four messages, a capture, a close: what the services write) are inserted into the
 *   log of the live account at 1,000 a second, 10 every 10 ms; measured: from each insert's commit to
 *   the consumer's cursor passing it (lag), and the rate applied. Before that, a backlog of 20,000
 *   events written at once measures how fast a consumer that fell behind catches up.
 */
import { performance } from 'node:perf_hooks';
import { measure, round } from './load.js';
import type { LiveAccount } from './live.js';
import type { LiveRow } from './report.js';
import { ADMIN_EMAIL, backendPids, PASSWORD, withClient, type Seeded } from './seed.js';
import type { ServerUnderTest } from './server.js';

export const REPORT_ROW = 'report-30d';
export const ROLLUP_ROW = 'rollup-rate';
const REPORT_TARGET_MS = 300;
const RATE = 1_000;
const BACKLOG = 20_000;
const TICK_MS = 10;

const date = (t: number) => new Date(t).toISOString().slice(0, 10);

export async function runReportRow(p: {
  dbUrl: string;
  server: ServerUnderTest;
  seed: Seeded;
  duration: number;
  warmup: number;
  log: (line: string) => void;
}): Promise<LiveRow> {
  const { server, seed, log } = p;
  const login = await fetch(`${server.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: ADMIN_EMAIL, password: PASSWORD }),
  });
  if (login.status !== 200) throw new Error(`${REPORT_ROW}: login answered ${login.status}`);
  const { accessToken } = (await login.json()) as { accessToken: string };
  const to = date(Date.now());
  const from = date(Date.now() - 29 * 86_400_000);
  const range = `from=${from}&to=${to}&timeZone=America/Sao_Paulo`;
  const paths = [
    `/api/reports/conversations?${range}`,
    `/api/reports/conversations?${range}&groupBy=team`,
    `/api/reports/agents?${range}`,
    `/api/reports/conversations?${range}&granularity=hour`,
    `/api/reports/conversations?${range}&channelId=${seed.channelIds[0]!}&groupBy=label`,
  ];
  // Correct first: the 30 days' conversations are the seeded chats created in them.
  const check = await fetch(`${server.url}${paths[0]!}`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  const body = (await check.json()) as { totals: { opened: number } };
  const exact = await withClient(p.dbUrl, async (c) => {
    const { rows } = await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM chats WHERE account_id = $1
         AND date_trunc('hour', created_at) >= $2::timestamptz AND date_trunc('hour', created_at) < $3::timestamptz`,
      [
        seed.accountId,
        `${from}T03:00:00Z`,
        new Date(Date.parse(`${to}T03:00:00Z`) + 86_400_000).toISOString(),
      ],
    );
    return rows[0]?.n ?? -1;
  });
  const correct = check.status === 200 && body.totals.opened === exact;
  log(`  30-day report's opened ${body.totals.opened}, chats created in the range ${exact}`);
  let n = 0;
  const r = await measure(
    {
      url: server.url,
      connections: 10,
      duration: p.duration,
      headers: { authorization: `Bearer ${accessToken}` },
      next: () => ({ method: 'GET', path: paths[n++ % paths.length]! }),
    },
    p.warmup,
    server.pid,
    () => backendPids(p.dbUrl),
  );
  // Requests autocannon gave up on at the end are still being answered: let them finish first.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const valid = correct && r.non2xx === 0 && r.errors === 0;
  log(`  ${round(r.rps)} reports/s, p50 ${r.p50} ms, p99 ${r.p99} ms`);
  return {
    id: REPORT_ROW,
    label: '30-day report over the seed',
    request: 'GET /api/reports/{conversations,agents} (5 shapes, 30 days)',
    roles: 'api',
    value: round(r.rps),
    unit: 'reports/s',
    p50: r.p50,
    p99: r.p99,
    ratio: null,
    ratioOf: null,
    serverCpuUs: r.serverCpu !== null && r.rps > 0 ? round((r.serverCpu * 1e6) / r.rps) : null,
    dbCpuUs: r.dbCpu !== null && r.rps > 0 ? round((r.dbCpu * 1e6) / r.rps) : null,
    target: { text: `p99 ≤ ${REPORT_TARGET_MS} ms`, met: r.p99 <= REPORT_TARGET_MS },
    notes: [`opened equals the chats created in the range: ${correct ? 'yes' : 'NO'}`],
    valid,
    details: { ...r, paths },
  };
}

/** Seven events of one conversation, as the services write them (the consumer reads these fields). */
function conversation(k: number, live: LiveAccount): { event: string; data: unknown }[] {
  const id = `rb${k.toString(16).padStart(22, '0')}`;
  const chat = (status: string, queue: string, userId: string | null) => ({
    chat: {
      id,
      status,
      queue,
      channelId: live.sandboxChannelId,
      teamId: live.teamId,
      userId,
      labels: [],
      sla: null,
    },
  });
  const message = (origin: string, n: number) => ({
    chatId: id,
    message: { id: `${id}${n}`, origin, automation: null, type: 'text', content: { text: 'Olá' } },
  });
  return [
    { event: 'chat.new', data: chat('open', 'Espera', null) },
    { event: 'message.upsert', data: message('contact', 1) },
    { event: 'chat.capture', data: chat('open', 'Em Atendimento', 'bench-agent') },
    { event: 'message.upsert', data: message('user', 2) },
    { event: 'message.upsert', data: message('contact', 3) },
    { event: 'message.upsert', data: message('user', 4) },
    { event: 'chat.close', data: chat('closed', 'Em Atendimento', 'bench-agent') },
  ];
}

const INSERT = `INSERT INTO events (account_id, id, event, schema_version, occurred_at, rooms, audience, data)
  SELECT $1, gen_random_uuid(), x.event, 1, clock_timestamp(), '{}', '{}', x.data
  FROM jsonb_to_recordset($2::jsonb) AS x(event text, data jsonb, n int)
  ORDER BY x.n RETURNING seq`;

export async function runRollupRow(p: {
  dbUrl: string;
  server: ServerUnderTest;
  live: LiveAccount;
  duration: number;
  log: (line: string) => void;
}): Promise<LiveRow> {
  const { live, log } = p;
  return withClient(p.dbUrl, async (c) => {
    let k = 0;
    const events = (n: number) => {
      const out: { event: string; data: unknown; n?: number }[] = [];
      while (out.length < n) out.push(...conversation(k++, live));
      return out.slice(0, n).map((e, i) => ({ ...e, n: i }));
    };
    const cursor = async () => Number((await c.query('SELECT seq FROM report_cursor')).rows[0].seq);
    const insert = async (n: number) => {
      const { rows } = await c.query<{ seq: string }>(INSERT, [live.accountId, JSON.stringify(events(n))]);
      // As the platform's writers do after their commits (the doorbell, src/db/doorbell.ts).
      await c.query('NOTIFY atende_events');
      return Math.max(...rows.map((r) => Number(r.seq)));
    };
    // A backlog written at once: how fast the consumer catches up.
    const b0 = performance.now();
    let top = 0;
    for (let i = 0; i < BACKLOG; i += 2_000) top = await insert(2_000);
    const written = performance.now();
    while ((await cursor()) < top) await new Promise((r) => setTimeout(r, 20));
    const backlogSeconds = (performance.now() - written) / 1000;
    const catchUpRate = round(BACKLOG / ((performance.now() - b0) / 1000));
    log(
      `  backlog of ${BACKLOG} events applied in ${round(backlogSeconds, 2)} s after the last write (${catchUpRate} events/s)`,
    );

    // Steady: RATE events a second, in ticks; each tick's lag to the cursor.
    const perTick = (RATE * TICK_MS) / 1000;
    const ticks: { seq: number; at: number }[] = [];
    const lags: number[] = [];
    const watcher = withClient(p.dbUrl, async (w) => {
      let i = 0;
      const end = Date.now() + p.duration * 1000 + 30_000;
      while ((i < ticks.length || Date.now() < end - 30_000) && Date.now() < end) {
        const cur = Number((await w.query('SELECT seq FROM report_cursor')).rows[0].seq);
        const now = performance.now();
        while (i < ticks.length && ticks[i]!.seq <= cur) lags.push(now - ticks[i++]!.at);
        await new Promise((r) => setTimeout(r, 5));
      }
    });
    const t0 = performance.now();
    const total = Math.round((p.duration * 1000) / TICK_MS);
    for (let i = 0; i < total; i++) {
      const due = t0 + i * TICK_MS;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      const seq = await insert(perTick);
      ticks.push({ seq, at: performance.now() });
    }
    const offered = round((total * perTick) / ((performance.now() - t0) / 1000));
    await watcher;
    lags.sort((a, b) => a - b);
    const pct = (q: number) => round(lags[Math.min(lags.length - 1, Math.ceil(q * lags.length) - 1)] ?? NaN);
    const complete = lags.length === ticks.length;
    log(
      `  ${offered} events/s offered, lag p50 ${pct(0.5)} ms, p99 ${pct(0.99)} ms, all applied: ${complete}`,
    );
    return {
      id: ROLLUP_ROW,
      label: 'rollups follow the event log',
      request: `${RATE} conversation events/s into the log; backlog of ${BACKLOG}`,
      roles: 'api,worker',
      value: catchUpRate,
      unit: 'events/s caught up',
      p50: pct(0.5),
      p99: pct(0.99),
      ratio: null,
      ratioOf: null,
      serverCpuUs: null,
      dbCpuUs: null,
      target: {
        text: `keeps up with ${RATE} events/s`,
        met: complete && offered >= RATE * 0.95 && catchUpRate > RATE,
      },
      notes: [
        `steady: ${offered} events/s offered, lag from commit to cursor`,
        `backlog drained ${round(backlogSeconds, 2)} s after its last write`,
      ],
      valid: complete,
      details: { backlog: BACKLOG, backlogSeconds, catchUpRate, offered, lags: lags.length },
    };
  });
}
