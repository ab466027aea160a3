import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { io } from 'socket.io-client';
import type { LiveAccount } from './live.js';
import { cpuOf, cpuPerItem, cpuSeconds, round } from './load.js';
import type { LiveRow } from './report.js';
import { backendPids, PASSWORD, withClient, type Seeded } from './seed.js';
import { percentile } from './send.js';
import { track, type ServerUnderTest } from './server.js';
import type { ClientCommand, ClientReply, SocketSpec } from './socket-clients.js';

/** The gateway's rows (issue 4), in the order they run on one api+gateway server. */
export const GATEWAY_ROWS = ['gw-sockets', 'gw-latency', 'notify-latency', 'gw-fanout'] as const;

export const GATEWAY_TARGETS = { kibPerSocket: 50, latencyP99Ms: 20, fanoutMs: 200, notifyP99Ms: 1000 };

const SOCKETS = 10_000;
const LATENCY_SOCKETS = 1_000;
const FANOUT_SOCKETS = 2_000;
/**
 * Transfers a second during the latency row (each one event to two team rooms): below what one
 * account sustains with the gateway on this machine (see bench/README.md), so the row measures
 * delivery, not a queue of transfers waiting for the account's event sequence.
 */
const LATENCY_RATE = 20;
const FANOUTS = 20;
/** Transfers to an agent a second in the notification row (each one notification to that agent). */
const NOTIFY_RATE = 20;
/** Where the notification row's chats start in the pool: clear of the latency row's. */
const NOTIFY_POOL_OFFSET = 10_000;
/** Client processes: the sockets' CPU is spread over them, away from the server and this process. */
const CLIENT_PROCESSES = 2;
const CONNECT_TIMEOUT_MS = 240_000;

const here = path.dirname(fileURLToPath(import.meta.url));
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface GatewayPhase {
  dbUrl: string;
  server: ServerUnderTest;
  roles: string;
  seed: Seeded;
  /** Open chats the latency row transfers (saved and put back by the run, as for `transfer`). */
  pool: string[];
  live: LiveAccount | null;
  duration: number;
  warmup: number;
  only: (id: string) => boolean;
  log: (line: string) => void;
}

/** A child process with sockets, driven over IPC. */
export class ClientProcess {
  private readonly replies: ClientReply[] = [];
  private wake: (() => void) | null = null;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (reply: ClientReply) => {
      this.replies.push(reply);
      this.wake?.();
    });
  }

  static start(): ClientProcess {
    const child = fork(path.join(here, 'socket-clients.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    track(child);
    return new ClientProcess(child);
  }

  send(cmd: ClientCommand): void {
    this.child.send(cmd);
  }

  /** The next reply with this op, or null at the timeout (or if the process is gone). */
  async reply<O extends ClientReply['op']>(
    op: O,
    timeoutMs: number,
  ): Promise<Extract<ClientReply, { op: O }> | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.replies.findIndex((r) => r.op === op);
      if (i >= 0) return this.replies.splice(i, 1)[0] as Extract<ClientReply, { op: O }>;
      if (Date.now() >= deadline || this.child.exitCode !== null) return null;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, Math.min(1000, deadline - Date.now()));
      });
    }
  }

  async close(): Promise<void> {
    if (this.child.exitCode === null) {
      this.send({ op: 'close' });
      const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
      await Promise.race([exited, sleep(5000)]);
    }
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

/** A group of client processes sharing `specs` evenly. */
export async function connectClients(
  url: string,
  specs: SocketSpec[],
  processes: number,
  event: string,
  log: (line: string) => void,
): Promise<{ clients: ClientProcess[]; ok: number; failed: number; seconds: number }> {
  const clients = Array.from({ length: processes }, () => ClientProcess.start());
  const t0 = now();
  clients.forEach((c, i) =>
    c.send({
      op: 'connect',
      url,
      specs: specs.filter((_, k) => k % processes === i),
      concurrency: 50,
      event,
    }),
  );
  let ok = 0;
  let failed = 0;
  for (const c of clients) {
    const r = await c.reply('connected', CONNECT_TIMEOUT_MS);
    if (!r) {
      failed += Math.ceil(specs.length / processes);
      continue;
    }
    ok += r.ok;
    failed += r.failed;
    if (r.errors.length > 0) log(`  connection errors: ${r.errors.join('; ')}`);
  }
  return { clients, ok, failed, seconds: (now() - t0) / 1000 };
}

export async function closeAll(clients: ClientProcess[]): Promise<void> {
  await Promise.all(clients.map((c) => c.close()));
}

/** The server's memory after a full collection (its `/bench/memory` route), and its VmRSS. */
async function serverMemory(
  server: ServerUnderTest,
): Promise<{ heapUsed: number; rss: number; gc: boolean }> {
  const res = await fetch(`${server.url}/bench/memory`, { method: 'POST' });
  const body = (await res.json()) as { heapUsed: number; rss: number; gc: boolean };
  let rss = body.rss;
  try {
    const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
    const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
    if (kb) rss = Number(kb) * 1024;
  } catch {
    // not Linux: the process's own figure
  }
  return { heapUsed: body.heapUsed, rss, gc: body.gc };
}

export async function login(base: string, email: string): Promise<{ token: string; userId: string }> {
  const res = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`login of ${email} answered ${res.status}`);
  const body = (await res.json()) as { accessToken: string; user: { id: string } };
  return { token: body.accessToken, userId: body.user.id };
}

/** One socket spec per socket, cycling over the seeded agents; each joins its own team. */
async function agentSpecs(p: GatewayPhase, count: number): Promise<SocketSpec[]> {
  const { seed } = p;
  const perTeam = seed.params.agentsPerTeam;
  const agents = await Promise.all(
    seed.agentIds.map((_, i) => login(p.server.url, `bench-agent-${i}@example.com`)),
  );
  return Array.from({ length: count }, (_, k) => {
    const a = k % agents.length;
    return { ...agents[a]!, teams: [seed.teamIds[Math.floor(a / perTeam)]!] };
  });
}

export async function runGatewayPhase(p: GatewayPhase): Promise<LiveRow[]> {
  const rows: LiveRow[] = [];
  const { server, log } = p;
  const gatewayUrl = server.gatewayUrl;
  if (!gatewayUrl) throw new Error('the gateway rows need a server with the gateway role');

  if (p.only('gw-sockets')) {
    const before = await serverMemory(server);
    log(`→ gw-sockets: ${SOCKETS} authenticated sockets (${CLIENT_PROCESSES} client processes)`);
    const specs = await agentSpecs(p, SOCKETS);
    const { clients, ok, failed, seconds } = await connectClients(
      gatewayUrl,
      specs,
      CLIENT_PROCESSES,
      'chat.new',
      log,
    );
    try {
      await sleep(2000); // let the connections' last allocations settle before measuring
      const after = await serverMemory(server);
      const kib = (bytes: number) => (ok > 0 ? bytes / ok / 1024 : null);
      const rssPer = kib(after.rss - before.rss);
      const heapPer = kib(after.heapUsed - before.heapUsed);
      log(
        `  ${ok} connected in ${round(seconds, 1)} s (${failed} failed); ` +
          `${rssPer === null ? '–' : round(rssPer, 1)} KiB RSS, ${heapPer === null ? '–' : round(heapPer, 1)} KiB heap per socket`,
      );
      rows.push({
        id: 'gw-sockets',
        label: 'gw-sockets: memory per idle socket',
        request: `${SOCKETS} sockets (websocket, JWT, \`user_logged_in\` + \`user_join_team\`)`,
        roles: p.roles,
        value: rssPer === null ? null : round(rssPer, 1),
        unit: 'KiB RSS/socket',
        p50: null,
        p99: null,
        ratio: null,
        ratioOf: null,
        serverCpuUs: null,
        dbCpuUs: null,
        target: {
          text: `≤ ${GATEWAY_TARGETS.kibPerSocket} KiB per socket`,
          met: rssPer !== null && rssPer <= GATEWAY_TARGETS.kibPerSocket && failed === 0,
        },
        notes: [
          `heap ${heapPer === null ? '–' : round(heapPer, 1)} KiB/socket`,
          `after GC: ${after.gc ? 'yes' : 'no'}`,
          `server RSS ${Math.round(before.rss / 2 ** 20)} → ${Math.round(after.rss / 2 ** 20)} MiB`,
          `connected and subscribed in ${round(seconds, 1)} s (${Math.round(ok / seconds)}/s)`,
          ...(failed > 0 ? [`${failed} failed to connect`] : []),
        ],
        valid: failed === 0,
        details: { before, after, ok, failed, connectSeconds: seconds },
      });
    } finally {
      await closeAll(clients);
    }
  }

  let background: ClientProcess[] = [];
  try {
    if (p.only('gw-latency')) {
      log(`→ gw-latency: ${LATENCY_SOCKETS} sockets connected, ${LATENCY_RATE} transfers/s, 2xx → event`);
      const specs = await agentSpecs(p, LATENCY_SOCKETS - 1);
      const group = await connectClients(gatewayUrl, specs, 1, 'chat.transfer', log);
      background = group.clients;
      rows.push(await latencyRow(p, gatewayUrl, group.ok, group.failed));
    }
    if (p.only('notify-latency')) {
      const agents = p.seed.agentIds.length;
      let others = background.length > 0 ? LATENCY_SOCKETS - 1 : 0;
      let failed = 0;
      if (background.length === 0) {
        // The consoles connected: 1,000 with the probes below (one per agent), as gw-latency's.
        const specs = await agentSpecs(p, LATENCY_SOCKETS - agents);
        const group = await connectClients(gatewayUrl, specs, 1, 'notification.new', log);
        background = group.clients;
        others = group.ok;
        failed = group.failed;
      }
      rows.push(await notifyRow(p, gatewayUrl, others, failed));
    }
    if (p.only('gw-fanout')) {
      if (!p.live) throw new Error('gw-fanout needs the live account');
      rows.push(await fanoutRow(p, gatewayUrl, p.live, background.length > 0));
    }
  } finally {
    await closeAll(background);
  }
  return rows;
}

/**
 * Channel API transfers of the pool's chats, paced (open loop); a probe socket in this process, an
 * admin subscribed to every team, notes each `chat.transfer`'s arrival. Both times are read on this
 * process's clock; the other sockets (a client process) are the load the gateway fans out to.
 */
async function latencyRow(
  p: GatewayPhase,
  gatewayUrl: string,
  others: number,
  failed: number,
): Promise<LiveRow> {
  const { server, seed, log } = p;
  const admin = await login(server.url, 'bench-admin@example.com');
  const probe = io(gatewayUrl, {
    path: '/socket.io',
    transports: ['websocket'],
    forceNew: true,
    reconnection: false,
    auth: { token: admin.token },
  });
  const arrived = new Map<string, number>();
  probe.on('chat.transfer', (envelope: { data?: { chat?: { id?: string } } }) => {
    const id = envelope.data?.chat?.id;
    if (id && !arrived.has(id)) arrived.set(id, now());
  });
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('session.ready', () => resolve());
      probe.once('connect_error', reject);
    });
    const joined = (await probe.timeout(30_000).emitWithAck('user_join_team', seed.teamIds)) as {
      ok: boolean;
    };
    if (!joined.ok) throw new Error('the probe could not join the teams');

    const total = Math.min(p.pool.length, Math.round((p.warmup + p.duration) * LATENCY_RATE));
    const skip = Math.round(p.warmup * LATENCY_RATE);
    const sent: Array<{ chatId: string; at: number; answered: number; ok: boolean }> = [];
    const requests: Promise<void>[] = [];
    const t0 = now();
    let cpu0: number | null = null;
    let db0 = new Map<number, number>();
    for (let i = 0; i < total; i++) {
      const wait = t0 + (i * 1000) / LATENCY_RATE - now();
      if (wait > 1) await sleep(wait);
      if (i === skip) {
        cpu0 = cpuSeconds(server.pid);
        db0 = cpuOf(await backendPids(p.dbUrl));
      }
      const chatId = p.pool[i]!;
      const teamId = seed.teamIds[i % seed.teamIds.length]!;
      const at = now();
      requests.push(
        fetch(`${server.url}/channel-api/chats/${chatId}/transfer/team`, {
          method: 'POST',
          headers: { authorization: `ApiKey ${seed.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ teamId, reasonCode: 'bench', reason: 'gateway latency' }),
        }).then(
          async (res) => {
            const answered = now();
            await res.arrayBuffer();
            sent[i] = { chatId, at, answered, ok: res.status === 200 };
          },
          () => {
            sent[i] = { chatId, at, answered: now(), ok: false };
          },
        ),
      );
    }
    await Promise.all(requests);
    const cpu1 = cpuSeconds(server.pid);
    const db1 = cpuOf(await backendPids(p.dbUrl));
    let dbSeconds = 0;
    for (const [pid, s] of db1) dbSeconds += s - (db0.get(pid) ?? 0);
    // Events that have not arrived a second after the last answer are counted as lost.
    await sleep(1000);
    const afterAnswer: number[] = [];
    const fromRequest: number[] = [];
    let early = 0;
    let lost = 0;
    let refused = 0;
    for (let i = skip; i < total; i++) {
      const s = sent[i];
      if (!s?.ok) {
        refused++;
        continue;
      }
      const got = arrived.get(s.chatId);
      if (got === undefined) {
        lost++;
        continue;
      }
      if (got < s.answered) early++;
      afterAnswer.push(Math.max(0, got - s.answered));
      fromRequest.push(got - s.at);
    }
    afterAnswer.sort((a, b) => a - b);
    fromRequest.sort((a, b) => a - b);
    const r1 = (n: number | null) => (n === null ? null : round(n, 1));
    const p50 = r1(percentile(afterAnswer, 50));
    const p99 = r1(percentile(afterAnswer, 99));
    const measured = total - skip;
    const answers = sent
      .slice(skip)
      .filter((s) => s?.ok)
      .map((s) => s.answered - s.at)
      .sort((a, b) => a - b);
    log(
      `  2xx → event p50 ${p50} ms, p99 ${p99} ms (${early} of ${measured} before the 2xx); ` +
        `request → event p50 ${r1(percentile(fromRequest, 50))} ms, p99 ${r1(percentile(fromRequest, 99))} ms`,
    );
    return {
      id: 'gw-latency',
      label: 'gw-latency: REST 2xx → event at a client',
      request: `\`POST /channel-api/chats/:id/transfer/team\`, ${LATENCY_RATE}/s, \`chat.transfer\` at a subscribed socket`,
      roles: p.roles,
      value: others + 1,
      unit: 'sockets',
      p50,
      p99,
      ratio: null,
      ratioOf: null,
      ...cpuPerItem(cpu0, cpu1, dbSeconds, measured),
      target: {
        text: `p99 ≤ ${GATEWAY_TARGETS.latencyP99Ms} ms`,
        met: p99 !== null && p99 <= GATEWAY_TARGETS.latencyP99Ms && lost === 0 && refused === 0,
      },
      notes: [
        `${early} of ${measured} events arrived before the 2xx (counted as 0 ms)`,
        `request sent → event p50 ${r1(percentile(fromRequest, 50))} / p99 ${r1(percentile(fromRequest, 99))} ms`,
        `the transfer's own answer p50 ${r1(percentile(answers, 50))} / p99 ${r1(percentile(answers, 99))} ms`,
        'CPU per transfer',
        'each transfer reaches two team rooms (~100 sockets each), the former attendant (~50) and the probe',
        ...(failed > 0 ? [`${failed} sockets failed to connect`] : []),
        ...(lost + refused > 0 ? [`${refused} transfers refused, ${lost} events not received`] : []),
      ],
      valid: lost === 0 && refused === 0 && failed === 0,
      details: {
        measured,
        early,
        lost,
        refused,
        afterAnswer: { p50, p90: percentile(afterAnswer, 90), p99, max: afterAnswer.at(-1) ?? null },
        fromRequest: { p50: percentile(fromRequest, 50), p99: percentile(fromRequest, 99) },
        answer: { p50: percentile(answers, 50), p99: percentile(answers, 99) },
      },
    };
  } finally {
    probe.disconnect();
  }
}

/**
 * Notifications (issue 26): Channel API transfers of the pool's chats to an agent, paced (open loop);
 * each makes one `chat.assigned` notification, sent as `notification.new` to that agent's own room
 * (every socket of theirs: a probe here and ~50 of the background ones). The probes, one per agent in
 * this process, note each notification's arrival; the time from the request (the event) and from its
 * 2xx, on this process's clock. The notifications the row made are deleted afterwards; the chats are
 * put back with the pool.
 */
async function notifyRow(
  p: GatewayPhase,
  gatewayUrl: string,
  others: number,
  failed: number,
): Promise<LiveRow> {
  const { server, seed, log } = p;
  log(
    `→ notify-latency: ${NOTIFY_RATE} transfers to an agent a second, request → notification.new at their socket`,
  );
  const agents = await Promise.all(
    seed.agentIds.map((_, i) => login(server.url, `bench-agent-${i}@example.com`)),
  );
  const arrived = new Map<string, number>();
  const probes = agents.map((a) => {
    const probe = io(gatewayUrl, {
      path: '/socket.io',
      transports: ['websocket'],
      forceNew: true,
      reconnection: false,
      auth: { token: a.token },
    });
    probe.on('notification.new', (envelope: { data?: { notification?: { data?: { chatId?: string } } } }) => {
      const id = envelope.data?.notification?.data?.chatId;
      if (id && !arrived.has(id)) arrived.set(id, now());
    });
    return probe;
  });
  const since = new Date();
  try {
    await Promise.all(
      probes.map(async (probe, i) => {
        await new Promise<void>((resolve, reject) => {
          probe.once('session.ready', () => resolve());
          probe.once('connect_error', reject);
        });
        const logged = (await probe.timeout(30_000).emitWithAck('user_logged_in', agents[i]!.userId)) as {
          ok: boolean;
        };
        if (!logged.ok) throw new Error('a probe could not join its own room');
      }),
    );
    // Each chat goes to an agent other than the one attending it (a transfer to oneself is refused).
    const chats = p.pool.slice(NOTIFY_POOL_OFFSET);
    const attendants = new Map(
      (
        await withClient(p.dbUrl, (c) =>
          c.query<{ id: string; user_id: string | null }>(
            'SELECT id, user_id FROM chats WHERE id = ANY($1)',
            [chats],
          ),
        )
      ).rows.map((r) => [r.id, r.user_id]),
    );
    const total = Math.min(chats.length, Math.round((p.warmup + p.duration) * NOTIFY_RATE));
    const skip = Math.round(p.warmup * NOTIFY_RATE);
    const sent: Array<{ chatId: string; at: number; answered: number; ok: boolean }> = [];
    const requests: Promise<void>[] = [];
    const t0 = now();
    let cpu0: number | null = null;
    let db0 = new Map<number, number>();
    for (let i = 0; i < total; i++) {
      const wait = t0 + (i * 1000) / NOTIFY_RATE - now();
      if (wait > 1) await sleep(wait);
      if (i === skip) {
        cpu0 = cpuSeconds(server.pid);
        db0 = cpuOf(await backendPids(p.dbUrl));
      }
      const chatId = chats[i]!;
      let userId = seed.agentIds[i % seed.agentIds.length]!;
      if (attendants.get(chatId) === userId) userId = seed.agentIds[(i + 1) % seed.agentIds.length]!;
      const at = now();
      requests.push(
        fetch(`${server.url}/channel-api/chats/${chatId}/transfer/user`, {
          method: 'POST',
          headers: { authorization: `ApiKey ${seed.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({ userId }),
        }).then(
          async (res) => {
            const answered = now();
            await res.arrayBuffer();
            sent[i] = { chatId, at, answered, ok: res.status === 200 };
          },
          () => {
            sent[i] = { chatId, at, answered: now(), ok: false };
          },
        ),
      );
    }
    await Promise.all(requests);
    const cpu1 = cpuSeconds(server.pid);
    const db1 = cpuOf(await backendPids(p.dbUrl));
    let dbSeconds = 0;
    for (const [pid, s] of db1) dbSeconds += s - (db0.get(pid) ?? 0);
    // A notification that has not arrived 2 s after the last answer counts as lost.
    await sleep(2000);
    const fromRequest: number[] = [];
    const afterAnswer: number[] = [];
    let lost = 0;
    let refused = 0;
    for (let i = skip; i < total; i++) {
      const s = sent[i];
      if (!s?.ok) {
        refused++;
        continue;
      }
      const got = arrived.get(s.chatId);
      if (got === undefined) {
        lost++;
        continue;
      }
      fromRequest.push(got - s.at);
      afterAnswer.push(Math.max(0, got - s.answered));
    }
    fromRequest.sort((a, b) => a - b);
    afterAnswer.sort((a, b) => a - b);
    const r1 = (n: number | null) => (n === null ? null : round(n, 1));
    const p50 = r1(percentile(fromRequest, 50));
    const p99 = r1(percentile(fromRequest, 99));
    const max = r1(fromRequest.at(-1) ?? null);
    const measured = total - skip;
    log(
      `  request → notification p50 ${p50} ms, p99 ${p99} ms, max ${max} ms; ` +
        `2xx → notification p50 ${r1(percentile(afterAnswer, 50))} ms, p99 ${r1(percentile(afterAnswer, 99))} ms` +
        (lost + refused > 0 ? `; ${refused} refused, ${lost} not received` : ''),
    );
    const sockets = others + probes.length;
    return {
      id: 'notify-latency',
      label: 'notify-latency: event → notification at the console',
      request: `\`POST /channel-api/chats/:id/transfer/user\`, ${NOTIFY_RATE}/s, \`notification.new\` at the agent's socket`,
      roles: p.roles,
      value: sockets,
      unit: 'sockets',
      p50,
      p99,
      ratio: null,
      ratioOf: null,
      ...cpuPerItem(cpu0, cpu1, dbSeconds, measured),
      target: {
        text: `p99 ≤ ${GATEWAY_TARGETS.notifyP99Ms} ms from the event`,
        met:
          p99 !== null && p99 <= GATEWAY_TARGETS.notifyP99Ms && lost === 0 && refused === 0 && failed === 0,
      },
      notes: [
        `from the transfer request (the event) to \`notification.new\` at the agent's probe socket; max ${max} ms`,
        `from its 2xx: p50 ${r1(percentile(afterAnswer, 50))} / p99 ${r1(percentile(afterAnswer, 99))} ms`,
        'CPU per transfer',
        `${sockets} authenticated sockets connected (${probes.length} probes, one per agent)`,
        ...(failed > 0 ? [`${failed} sockets failed to connect`] : []),
        ...(lost + refused > 0 ? [`${refused} transfers refused, ${lost} notifications not received`] : []),
      ],
      valid: lost === 0 && refused === 0 && failed === 0,
      details: {
        measured,
        lost,
        refused,
        fromRequest: { p50, p90: percentile(fromRequest, 90), p99, max },
        afterAnswer: { p50: percentile(afterAnswer, 50), p99: percentile(afterAnswer, 99) },
      },
    };
  } finally {
    for (const probe of probes) probe.disconnect();
    await withClient(p.dbUrl, (c) =>
      c.query(
        `DELETE FROM notifications WHERE account_id = $1 AND kind = 'chat.assigned' AND created_at >= $2`,
        [seed.accountId, since],
      ),
    );
  }
}

/**
 * FANOUTS new conversations on the live account's sandbox channel, one at a time: each is one
 * `chat.new` to the team room all FANOUT_SOCKETS sockets (two client processes) joined. Time until the
 * last socket has it, from the REST request and from its 201.
 */
async function fanoutRow(
  p: GatewayPhase,
  gatewayUrl: string,
  live: LiveAccount,
  latencySocketsConnected: boolean,
): Promise<LiveRow> {
  const { server, log } = p;
  log(`→ gw-fanout: ${FANOUTS} × one chat.new to ${FANOUT_SOCKETS} sockets in one team room`);
  const agents = await Promise.all(live.agentEmails.map((email) => login(server.url, email)));
  const specs = Array.from({ length: FANOUT_SOCKETS }, (_, k) => ({
    ...agents[k % agents.length]!,
    teams: [live.teamId],
  }));
  const admin = await login(server.url, live.adminEmail);
  const group = await connectClients(gatewayUrl, specs, CLIENT_PROCESSES, 'chat.new', log);
  try {
    const fromRequest: number[] = [];
    const fromAnswer: number[] = [];
    const spread: number[] = [];
    let incomplete = 0;
    for (let i = 0; i < FANOUTS + 2; i++) {
      await sleep(300);
      const at = now();
      const res = await fetch(`${server.url}/api/sandbox/channels/${live.sandboxChannelId}/inbound`, {
        method: 'POST',
        headers: { authorization: `Bearer ${admin.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ from: String(5511982000000 + i), text: `fan-out ${i}` }),
      });
      const answered = now();
      const body = (await res.json()) as { chatId?: string };
      if (res.status !== 201 || !body.chatId) throw new Error(`sandbox inbound answered ${res.status}`);
      const chatId = body.chatId;
      for (const c of group.clients) c.send({ op: 'await', chatId, timeoutMs: 10_000 });
      const replies = await Promise.all(group.clients.map((c) => c.reply('arrived', 15_000)));
      if (i < 2) continue; // warm-up
      const count = replies.reduce((n, r) => n + (r?.count ?? 0), 0);
      const lasts = replies.map((r) => r?.last ?? null).filter((x): x is number => x !== null);
      const firsts = replies.map((r) => r?.first ?? null).filter((x): x is number => x !== null);
      if (count < group.ok || lasts.length === 0) {
        incomplete++;
        continue;
      }
      const last = Math.max(...lasts);
      fromRequest.push(last - at);
      fromAnswer.push(Math.max(0, last - answered));
      spread.push(last - Math.min(...firsts));
    }
    for (const a of [fromRequest, fromAnswer, spread]) a.sort((x, y) => x - y);
    const r1 = (n: number | null) => (n === null ? null : round(n, 1));
    const p50 = r1(percentile(fromRequest, 50));
    const max = r1(fromRequest.at(-1) ?? null);
    log(
      `  request → last socket: median ${p50} ms, max ${max} ms; 201 → last median ` +
        `${r1(percentile(fromAnswer, 50))} ms; first → last median ${r1(percentile(spread, 50))} ms`,
    );
    return {
      id: 'gw-fanout',
      label: 'gw-fanout: one chat.new to a team room',
      request: `\`POST /api/sandbox/channels/:id/inbound\` (new conversation) → \`chat.new\` to ${group.ok} sockets`,
      roles: p.roles,
      value: p50,
      unit: 'ms to the last',
      p50,
      p99: max,
      ratio: null,
      ratioOf: null,
      serverCpuUs: null,
      dbCpuUs: null,
      target: {
        text: `≤ ${GATEWAY_TARGETS.fanoutMs} ms, median of ${FANOUTS}`,
        met: p50 !== null && p50 <= GATEWAY_TARGETS.fanoutMs && incomplete === 0 && group.failed === 0,
      },
      notes: [
        `median and slowest of ${FANOUTS}, from the request (p99 column = slowest)`,
        `from the 201: median ${r1(percentile(fromAnswer, 50))} ms`,
        `first → last socket: median ${r1(percentile(spread, 50))} ms`,
        `sockets in ${CLIENT_PROCESSES} client processes`,
        ...(latencySocketsConnected
          ? [`the gw-latency row's ${LATENCY_SOCKETS} sockets stay connected`]
          : []),
        ...(incomplete > 0 ? [`${incomplete} fan-outs did not reach every socket within 10 s`] : []),
        ...(group.failed > 0 ? [`${group.failed} sockets failed to connect`] : []),
      ],
      valid: incomplete === 0 && group.failed === 0,
      details: {
        sockets: group.ok,
        fromRequest,
        fromAnswer,
        spread,
        incomplete,
        connectSeconds: group.seconds,
      },
    };
  } finally {
    await closeAll(group.clients);
  }
}
