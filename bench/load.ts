import { readFileSync } from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  connections: number;
  /** Seconds. */
  duration: number;
  headers: Record<string, string>;
  /** A fixed GET path, or a function giving each request (path, method, body) in turn. */
  path?: string;
  next?: () => { method: 'GET' | 'POST'; path: string; body?: string };
}

export interface LoadResult {
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  requests: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /** CPU of the server process during the run, in cores (1.0 = one core busy all the time). */
  serverCpu: number | null;
  /** CPU of the database's backends serving the server during the run, in cores. */
  dbCpu: number | null;
  /** CPU of this (load generator) process during the run, in cores. */
  loaderCpu: number;
  /** The machine's 1-minute load average at the end of the run (other work shares it). */
  loadAvg?: number;
}

/** User + system CPU seconds a process has used so far, from /proc (Linux); null elsewhere. */
export function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime
    return ticks / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

function run(spec: LoadSpec): Promise<autocannon.Result> {
  const requests: autocannon.Request[] | undefined = spec.next
    ? [
        {
          setupRequest: (req) => {
            const r = spec.next!();
            return { ...req, method: r.method, path: r.path, body: r.body };
          },
        },
      ]
    : undefined;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: spec.url + (spec.path ?? ''),
        connections: spec.connections,
        duration: spec.duration,
        headers: spec.headers,
        timeout: 10,
        ...(requests ? { requests } : {}),
      },
      (err, result) => (err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(result)),
    );
  });
}

/**
 * The server's and the database's CPU per item done in a window (µs; null when unknown or when
 * nothing was done), from the server's CPU seconds at its start and end and the database's over it.
 */
export function cpuPerItem(
  server0: number | null,
  server1: number | null,
  dbSeconds: number,
  items: number,
): { serverCpuUs: number | null; dbCpuUs: number | null } {
  return {
    serverCpuUs:
      server0 !== null && server1 !== null && items > 0
        ? Math.round(((server1 - server0) * 1e6) / items)
        : null,
    dbCpuUs: items > 0 ? Math.round((dbSeconds * 1e6) / items) : null,
  };
}

/** CPU seconds used so far by each of these processes (those that cannot be read are left out). */
export function cpuOf(pids: number[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const pid of pids) {
    const s = cpuSeconds(pid);
    if (s !== null) out.set(pid, s);
  }
  return out;
}

/**
 * A discarded warm-up run (JIT, connection pools, caches), then the measured run. `dbPids` lists the
 * PostgreSQL backends connected to the benchmark database (the server's pool), whose CPU is the
 * database's cost of the requests.
 */
export async function measure(
  spec: LoadSpec,
  warmup: number,
  serverPid: number,
  dbPids: () => Promise<number[]>,
  /** Called right before and right after the measured run (not the warm-up). */
  hooks: { start?(): void; end?(): void } = {},
): Promise<LoadResult> {
  if (warmup > 0) await run({ ...spec, duration: warmup });
  hooks.start?.();
  const db0 = cpuOf(await dbPids());
  const cpu0 = cpuSeconds(serverPid);
  const own0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const r = await run(spec);
  const wall = Number(process.hrtime.bigint() - t0) / 1e9;
  hooks.end?.();
  const cpu1 = cpuSeconds(serverPid);
  const own = process.cpuUsage(own0);
  // Backends started during the run count from zero; one that ended during it is missed (none should).
  const db1 = cpuOf(await dbPids());
  let dbSeconds = 0;
  for (const [pid, s] of db1) dbSeconds += s - (db0.get(pid) ?? 0);
  const statusCodes: Record<string, number> = {};
  for (const [code, v] of Object.entries(r.statusCodeStats ?? {})) statusCodes[code] = v.count ?? 0;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p90: r.latency.p90,
    p99: r.latency.p99,
    max: r.latency.max,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors,
    timeouts: r.timeouts,
    statusCodes,
    serverCpu: cpu0 !== null && cpu1 !== null ? round((cpu1 - cpu0) / wall, 2) : null,
    dbCpu: db1.size > 0 ? round(dbSeconds / wall, 2) : null,
    loaderCpu: round((own.user + own.system) / 1e6 / wall, 2),
    loadAvg: round(os.loadavg()[0] ?? 0, 1),
  };
}

export const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
