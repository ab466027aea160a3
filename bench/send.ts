import { performance } from 'node:perf_hooks';
import type { BenchGraph } from './fake-graph.js';
import { analyzeLiveTables, type LiveAccount } from './live.js';
import { cpuOf, cpuPerItem, cpuSeconds, measure, round, type LoadResult } from './load.js';
import type { LiveRow } from './report.js';
import { backendPids, withClient } from './seed.js';
import type { ServerUnderTest } from './server.js';

/**
 * The send pipeline's rows (issue 3), in their order: insert-baseline and send on an api server
 * (acceptance, the worker elsewhere, as on a node of several), then send-drain and send-latency on an
 * api+worker server started on the backlog send left.
 */
export const SEND_ROWS = ['insert-baseline', 'send', 'send-drain', 'send-latency'] as const;

export const SEND_TARGETS = { ratio: 1.0, p99Ms: 30, drainPerSecond: 1000, latencyP50Ms: 50 };

/** Contacts the messages are spread over (FIFO per contact: one in flight per contact at a time). */
const CONTACTS = 2_000;
/** The latency row's fixed send rate. */
const LATENCY_RATE = 200;
/** Longest wait for a backlog to drain before the latency row (which needs an idle queue). */
const DRAIN_WAIT_MS = 300_000;

export interface SendPhase {
  dbUrl: string;
  server: ServerUnderTest;
  /** Roles of `server`, which serves insert-baseline and send. */
  roles: string;
  /**
   * Without the worker role in `roles`, the drain and latency rows run on a server started by this
   * (api and worker) once acceptance is measured: the backlog `send` left is then a real one.
   */
  startDelivery: () => Promise<ServerUnderTest>;
  /** Told of the server now under test, so the caller stops the right one. */
  onServer: (server: ServerUnderTest) => void;
  graph: BenchGraph;
  live: LiveAccount;
  connections: number;
  duration: number;
  warmup: number;
  only: (id: string) => boolean;
  log: (line: string) => void;
}

const contactOf = (i: number) => String(5511981000000 + (i % CONTACTS));

export const percentile = (sorted: number[], p: number): number | null =>
  sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Requests stored on the live WhatsApp channel, and of them those still waiting for the provider. */
async function requestCounts(dbUrl: string, channelId: string): Promise<{ total: number; pending: number }> {
  return withClient(dbUrl, async (c) => {
    const res = await c.query<{ total: number; pending: number }>(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE status IN ('queued', 'processing'))::int AS pending
         FROM request_logs WHERE channel_id = $1`,
      [channelId],
    );
    return res.rows[0] ?? { total: 0, pending: 0 };
  });
}

function perUnit(cores: number | null, perSecond: number): number | null {
  return cores !== null && perSecond > 0 ? Math.round((cores * 1e6) / perSecond) : null;
}

/**
 * insert-baseline and send against a server process with `roles` (default api: acceptance alone),
 * then send-drain and send-latency against one with the api and worker roles — the same process when
 * `roles` has the worker —, with the WhatsApp channel's Graph API the benchmark's fake.
 */
export async function runSendPhase(phase: SendPhase): Promise<LiveRow[]> {
  let p = phase;
  const rows: LiveRow[] = [];
  const { graph, live, log } = p;
  let server = p.server;
  const dbPids = () => backendPids(p.dbUrl);
  const sendHeaders = { 'x-channel-api-key': live.channelKey, 'content-type': 'application/json' };
  let seq = 0;
  const sendBody = () => {
    const i = seq++;
    return JSON.stringify({
      contact: { value: contactOf(i) },
      message: { type: 'text', text: { value: `bench send ${i}` } },
    });
  };

  let baseline: LoadResult | null = null;
  if (p.only('insert-baseline')) {
    await withClient(p.dbUrl, (c) => c.query('TRUNCATE bench_insert'));
    log(
      `→ insert-baseline: POST /bench/insert (${p.warmup} s warm-up + ${p.duration} s, ${p.connections} connections)`,
    );
    let k = 0;
    baseline = await measure(
      {
        url: server.url,
        connections: p.connections,
        duration: p.duration,
        headers: { 'content-type': 'application/json' },
        next: () => {
          const i = k++;
          return {
            method: 'POST',
            path: '/bench/insert',
            body: JSON.stringify({ contact: contactOf(i), text: `bench send ${i}` }),
          };
        },
      },
      p.warmup,
      server.pid,
      dbPids,
    );
    log(`  ${Math.round(baseline.rps)} req/s, p50 ${baseline.p50} ms, p99 ${baseline.p99} ms`);
    rows.push({
      id: 'insert-baseline',
      label: 'insert-baseline: one INSERT per request',
      request: '`POST /bench/insert` (validated JSON body, one `INSERT` into `bench_insert`, 201)',
      roles: p.roles,
      value: Math.round(baseline.rps),
      unit: 'req/s',
      p50: baseline.p50,
      p99: baseline.p99,
      ratio: null,
      ratioOf: null,
      serverCpuUs: perUnit(baseline.serverCpu, baseline.rps),
      dbCpuUs: perUnit(baseline.dbCpu, baseline.rps),
      target: null,
      notes: [`${p.connections} connections`],
      valid: baseline.non2xx === 0 && baseline.errors === 0,
      details: { ...baseline },
    });
    await sleep(1500);
  }

  const wantLoad = p.only('send') || p.only('send-drain');
  if (wantLoad) {
    // The drain row needs a backlog: the send row's load leaves one (acceptance outruns delivery).
    log(
      `→ send: POST /channel-api/messages/send (${p.warmup} s warm-up + ${p.duration} s, ${p.connections} connections, ${CONTACTS} contacts)`,
    );
    let d0 = 0;
    let d1 = 0;
    const result = await measure(
      {
        url: server.url,
        connections: p.connections,
        duration: p.duration,
        headers: sendHeaders,
        next: () => ({ method: 'POST', path: '/channel-api/messages/send', body: sendBody() }),
      },
      p.warmup,
      server.pid,
      dbPids,
      { start: () => (d0 = graph.delivered), end: () => (d1 = graph.delivered) },
    );
    const deliveredDuring = round((d1 - d0) / p.duration, 0);
    log(
      `  ${Math.round(result.rps)} req/s accepted, p50 ${result.p50} ms, p99 ${result.p99} ms, ` +
        `${deliveredDuring} delivered/s meanwhile, server ${result.serverCpu} cores, db ${result.dbCpu} cores`,
    );
    if (p.only('send')) {
      const ratio = baseline && baseline.rps > 0 ? result.rps / baseline.rps : null;
      const met = ratio !== null && ratio >= SEND_TARGETS.ratio && result.p99 <= SEND_TARGETS.p99Ms;
      rows.push({
        id: 'send',
        label: 'send: accepted send-message requests',
        request: `\`POST /channel-api/messages/send\` (text, ${CONTACTS} contacts, WhatsApp channel)`,
        roles: p.roles,
        value: Math.round(result.rps),
        unit: 'req/s',
        p50: result.p50,
        p99: result.p99,
        ratio: ratio === null ? null : round(ratio, 3),
        ratioOf: 'insert-baseline',
        serverCpuUs: perUnit(result.serverCpu, result.rps),
        dbCpuUs: perUnit(result.dbCpu, result.rps),
        target: {
          text: `≥ ${SEND_TARGETS.ratio.toFixed(1)} × insert-baseline, p99 ≤ ${SEND_TARGETS.p99Ms} ms`,
          met: met && result.non2xx === 0,
        },
        notes: [
          `${p.connections} connections`,
          p.roles.split(',').includes('worker')
            ? `the worker delivered ${deliveredDuring} messages/s meanwhile (its CPU is in the server's)`
            : 'acceptance alone: the worker role runs in another process (started for the next rows)',
        ],
        valid: result.non2xx === 0 && result.errors === 0,
        details: { ...result, deliveredPerSecondMeanwhile: deliveredDuring },
      });
    }
    // Requests autocannon gave up on at the end are still being answered; let them commit.
    await sleep(1500);
  }

  if (!p.roles.split(',').includes('worker') && (p.only('send-drain') || p.only('send-latency'))) {
    await server.stop();
    server = await p.startDelivery();
    p = { ...p, server, roles: 'api,worker' };
    p.onServer(server);
  }
  const counts = await requestCounts(p.dbUrl, live.whatsappChannelId);
  if (wantLoad) await analyzeLiveTables(p.dbUrl);
  if (p.only('send-drain')) {
    log(
      `→ send-drain: delivering the backlog (${counts.total - graph.delivered} messages), up to ${p.duration} s`,
    );
    const d0 = graph.delivered;
    const db0 = cpuOf(await dbPids());
    const cpu0 = cpuSeconds(server.pid);
    const t0 = performance.now();
    while (performance.now() - t0 < p.duration * 1000 && graph.delivered < counts.total) await sleep(50);
    const seconds = (performance.now() - t0) / 1000;
    const delivered = graph.delivered - d0;
    const cpu1 = cpuSeconds(server.pid);
    const db1 = cpuOf(await dbPids());
    let dbSeconds = 0;
    for (const [pid, s] of db1) dbSeconds += s - (db0.get(pid) ?? 0);
    const rate = delivered / seconds;
    const emptied = graph.delivered >= counts.total;
    log(
      `  ${Math.round(rate)} messages/s delivered over ${round(seconds, 1)} s${emptied ? ' (backlog emptied)' : ''}`,
    );
    rows.push({
      id: 'send-drain',
      label: 'send-drain: delivered messages',
      request: 'the backlog the `send` load left, to the fake Graph API',
      roles: p.roles,
      value: Math.round(rate),
      unit: 'messages/s',
      p50: null,
      p99: null,
      ratio: null,
      ratioOf: null,
      ...cpuPerItem(cpu0, cpu1, dbSeconds, delivered),
      target: { text: `≥ ${SEND_TARGETS.drainPerSecond}/s`, met: rate >= SEND_TARGETS.drainPerSecond },
      notes: [
        `${delivered} delivered in ${round(seconds, 1)} s${emptied ? ', backlog emptied before the window ended' : ''}`,
        'CPU per delivered message',
      ],
      valid: graph.refused === 0 && seconds >= Math.min(3, p.duration),
      details: { delivered, seconds, backlogAtStart: counts.total - d0, emptied, refused: graph.refused },
    });
  }

  if (p.only('send-latency')) {
    // The latency row needs an idle queue: wait for the backlog to be delivered first.
    // Delivered is not yet settled: the worker records a batch's outcomes after its provider calls.
    const drainedAt = performance.now();
    let left = await requestCounts(p.dbUrl, live.whatsappChannelId);
    while (left.pending > 0 && performance.now() - drainedAt < DRAIN_WAIT_MS) {
      await sleep(200);
      left = await requestCounts(p.dbUrl, live.whatsappChannelId);
    }
    if (left.pending > 0) {
      log(
        `  the backlog did not drain within ${DRAIN_WAIT_MS / 1000} s (${left.pending} pending): no latency row`,
      );
      rows.push(skippedLatency(p, `${left.pending} requests still pending after ${DRAIN_WAIT_MS / 1000} s`));
    } else {
      log(`  backlog delivered (${round((performance.now() - drainedAt) / 1000, 1)} s after the drain row)`);
      rows.push(await latencyRow(p, sendHeaders));
    }
  }
  return rows;
}

function skippedLatency(p: SendPhase, why: string): LiveRow {
  return {
    id: 'send-latency',
    label: 'send-latency: 201 → provider',
    request: `${LATENCY_RATE} messages/s`,
    roles: p.roles,
    value: null,
    unit: '',
    p50: null,
    p99: null,
    ratio: null,
    ratioOf: null,
    serverCpuUs: null,
    dbCpuUs: null,
    target: { text: `p50 ≤ ${SEND_TARGETS.latencyP50Ms} ms`, met: false },
    notes: [`not measured: ${why}`],
    valid: false,
    details: {},
  };
}

/**
 * A paced client (open loop: each request leaves at its time whatever the earlier ones are doing)
 * sends LATENCY_RATE texts a second, each naming itself in its text; the fake Graph API notes when
 * each arrives. Latency = arrival at the provider − the 201 of its request, both read on this
 * process's clock.
 */
async function latencyRow(p: SendPhase, headers: Record<string, string>): Promise<LiveRow> {
  const { server, graph, log } = p;
  const total = Math.round((p.warmup + p.duration) * LATENCY_RATE);
  const skip = Math.round(p.warmup * LATENCY_RATE);
  const tag = Date.now().toString(36);
  const arrived = new Map<number, number>();
  let expected = 0;
  let wake: (() => void) | null = null;
  graph.onText = (text, at) => {
    if (!text.startsWith(`lat ${tag} `)) return;
    arrived.set(Number(text.slice(`lat ${tag} `.length)), at);
    if (arrived.size >= expected && wake) wake();
  };
  log(`→ send-latency: ${LATENCY_RATE} messages/s for ${p.warmup} s warm-up + ${p.duration} s`);
  const sent: Array<{ at: number; answered: number; ok: boolean }> = [];
  const interval = 1000 / LATENCY_RATE;
  const requests: Promise<void>[] = [];
  const t0 = performance.now();
  let cpu0: number | null = null;
  let db0 = new Map<number, number>();
  let tMeasured = 0;
  for (let i = 0; i < total; i++) {
    const due = t0 + i * interval;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    if (i === skip) {
      cpu0 = cpuSeconds(server.pid);
      db0 = cpuOf(await backendPids(p.dbUrl));
      tMeasured = performance.now();
    }
    const body = JSON.stringify({
      contact: { value: contactOf(i) },
      message: { type: 'text', text: { value: `lat ${tag} ${i}` } },
    });
    const at = performance.now();
    requests.push(
      fetch(`${server.url}/channel-api/messages/send`, { method: 'POST', headers, body }).then(
        async (res) => {
          const answered = performance.now();
          await res.arrayBuffer();
          sent[i] = { at, answered, ok: res.status === 201 };
        },
        () => {
          sent[i] = { at, answered: performance.now(), ok: false };
        },
      ),
    );
  }
  await Promise.all(requests);
  expected = sent.filter((s) => s?.ok).length;
  if (arrived.size < expected) {
    await Promise.race([new Promise<void>((r) => (wake = r)), sleep(30_000)]);
  }
  const seconds = (performance.now() - tMeasured) / 1000;
  const cpu1 = cpuSeconds(server.pid);
  const db1 = cpuOf(await backendPids(p.dbUrl));
  graph.onText = null;
  let dbSeconds = 0;
  for (const [pid, s] of db1) dbSeconds += s - (db0.get(pid) ?? 0);

  const toProvider: number[] = [];
  const fromRequest: number[] = [];
  const accept: number[] = [];
  let failed = 0;
  let lost = 0;
  for (let i = skip; i < total; i++) {
    const s = sent[i];
    if (!s?.ok) {
      failed++;
      continue;
    }
    accept.push(s.answered - s.at);
    const got = arrived.get(i);
    if (got === undefined) {
      lost++;
      continue;
    }
    toProvider.push(got - s.answered);
    fromRequest.push(got - s.at);
  }
  const sort = (a: number[]) => a.sort((x, y) => x - y);
  sort(toProvider);
  sort(fromRequest);
  sort(accept);
  const measured = total - skip;
  const p50 = percentile(toProvider, 50);
  const p99 = percentile(toProvider, 99);
  const r1 = (n: number | null) => (n === null ? null : round(n, 1));
  log(
    `  201 → provider p50 ${r1(p50)} ms, p99 ${r1(p99)} ms; 201 p50 ${r1(percentile(accept, 50))} ms; ` +
      `${failed} failed, ${lost} not received`,
  );
  return {
    id: 'send-latency',
    label: 'send-latency: 201 → provider',
    request: `${LATENCY_RATE} texts/s (paced, open loop) to ${CONTACTS} contacts`,
    roles: p.roles,
    value: measured / (p.duration || 1),
    unit: 'messages/s',
    p50: r1(p50),
    p99: r1(p99),
    ratio: null,
    ratioOf: null,
    ...cpuPerItem(cpu0, cpu1, dbSeconds, measured),
    target: {
      text: `p50 ≤ ${SEND_TARGETS.latencyP50Ms} ms`,
      met: p50 !== null && p50 <= SEND_TARGETS.latencyP50Ms && failed === 0 && lost === 0,
    },
    notes: [
      `request → provider p50 ${r1(percentile(fromRequest, 50))} / p99 ${r1(percentile(fromRequest, 99))} ms`,
      `the 201 itself p50 ${r1(percentile(accept, 50))} / p99 ${r1(percentile(accept, 99))} ms`,
      'CPU per message, acceptance and delivery',
      ...(failed + lost > 0 ? [`${failed} not accepted, ${lost} never reached the provider`] : []),
    ],
    valid: failed === 0 && lost === 0,
    details: {
      measured,
      seconds: round(seconds, 2),
      failed,
      lost,
      toProvider: { p50, p90: percentile(toProvider, 90), p99, max: toProvider.at(-1) ?? null },
      fromRequest: { p50: percentile(fromRequest, 50), p99: percentile(fromRequest, 99) },
      accept: { p50: percentile(accept, 50), p99: percentile(accept, 99) },
    },
  };
}
