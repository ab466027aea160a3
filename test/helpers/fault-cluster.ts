import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import pg from 'pg';
import type { RecordedRequest } from './fake-graph.js';
import { ThreadedFakeGraph } from './fake-graph-thread.js';
import { startOwnPostgres, type OwnPostgres, type OwnPostgresOptions } from './own-postgres.js';
import { startOwnRedis, type OwnRedis } from './own-redis.js';
import { freePorts } from './ports.js';
import { MAIN, spawnNode, type Child } from './processes.js';

/**
 * Two real nodes (the built server, `ATENDE_ROLES=api,gateway,worker`, child processes that can be
 * SIGKILLed) on a PostgreSQL and a Redis of the test's own, sending through a local fake Graph API.
 * The account is created as an operator would: the first admin from the environment, the rest through
 * the REST API.
 */

export const JWT_SECRET = 'fault-suite-secret-fault-suite-secret-0123456789';
export const ADMIN_EMAIL = 'admin@example.com';
export const ADMIN_PASSWORD = 'fault-suite-password';
export const PHONE_NUMBER_ID = '1098765432';

export interface FaultNode {
  name: string;
  url: string;
  gatewayUrl: string;
  child: Child;
  /** False once the process has exited (killed or crashed). */
  alive(): boolean;
  /** How it ended, once it has. */
  exit: { code: number | null; signal: NodeJS.Signals | null } | null;
}

export interface Cluster {
  pg: OwnPostgres;
  redis: OwnRedis;
  fake: ThreadedFakeGraph;
  nodes: FaultNode[];
  adminToken: string;
  adminId: string;
  teamId: string;
  /** The WhatsApp channel (on the fake Graph API), its Channel API key and its app secret. */
  channelId: string;
  channelKey: string;
  appSecret: string;
  sandboxChannelId: string;
  /** The longest the test process's own event loop was held up, in ms: the harness's health. */
  loopDelayMaxMs(): number;
  /** When the fake Graph API received each request (ms since the epoch). */
  receivedAt: WeakMap<RecordedRequest, number>;
  /** A query on the nodes' database; rejects while it is down. */
  query<R extends pg.QueryResultRow>(text: string, params?: unknown[]): Promise<R[]>;
  /**
   * Starts (again) the node of that index, on new ports (or on the ports it had, with `samePorts`:
   * a load balancer in front names them); replaces it in `nodes`. `main`: another build's server
   * (e.g. the previous release's, for a rolling upgrade); default the one the cluster started with.
   */
  startNode(index: number, opts?: StartNodeOptions): Promise<FaultNode>;
  /** SIGTERM (a clean stop, as systemd does), then waits for the exit. */
  stopNode(index: number): Promise<void>;
  /** SIGKILL, then waits for the exit. */
  killNode(index: number): Promise<void>;
  close(): Promise<void>;
}

/** A JSON request with a bounded wait; never throws for an HTTP status. */
export async function http(
  base: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {},
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...opts.headers,
    },
    body: opts.body !== undefined ? JSON.stringify(opts.body) : undefined,
    signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
  });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON
  }
  return { status: res.status, json, headers: res.headers };
}

async function expectStatus(
  p: Promise<{ status: number; json: Record<string, unknown> }>,
  status: number,
  what: string,
): Promise<Record<string, unknown>> {
  const res = await p;
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json;
}

export interface StartNodeOptions {
  samePorts?: boolean;
  /** The server's entry point (`<tree>/dist/src/main.js`); it runs from its tree. */
  main?: string;
}

export interface ClusterOptions {
  /** The server every node runs unless `startNode` names another; default this tree's build. */
  main?: string;
  /** ATENDE_ROLES of each node, in order; the first must include `api`. Default: two full nodes. */
  roles?: string[];
  /** More environment for every node (e.g. the trusted proxy). */
  env?: Record<string, string>;
  /** How the cluster's own PostgreSQL is started (e.g. with pg_dump at hand). */
  postgres?: Pick<OwnPostgresOptions, 'dumpTools'>;
}

export async function startCluster(opts: ClusterOptions = {}): Promise<Cluster> {
  const roles = opts.roles ?? ['api,gateway,worker', 'api,gateway,worker'];
  const cleanups: Array<() => Promise<unknown>> = [];
  const runCleanups = async () => {
    for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    const ownPg = await startOwnPostgres(opts.postgres);
    cleanups.push(() => ownPg.destroy());
    const redis = await startOwnRedis();
    cleanups.push(() => redis.close());
    // On a thread of its own: the load and the clients keep this thread's loop busy (see the class).
    const fake = await ThreadedFakeGraph.start();
    cleanups.push(() => fake.close());

    // The load and the console clients run here: a stalled loop would delay them (and the stamps of
    // what they saw), so its delay is reported with the figures.
    const loop = monitorEventLoopDelay({ resolution: 20 });
    loop.enable();
    cleanups.push(async () => loop.disable());

    const pool = new pg.Pool({ connectionString: ownPg.url(), max: 2 });
    // The suite stops this server on purpose: a dropped idle client is not a failure of the test.
    pool.on('error', () => undefined);
    cleanups.push(() => pool.end());

    const nodes: FaultNode[] = [];
    const names = ['A', 'B', 'C', 'D'];
    const ports: Array<[number, number]> = [];
    const spawnOne = async (index: number, samePorts: boolean, main: string): Promise<FaultNode> => {
      const known = ports[index];
      const [port, gatewayPort] = samePorts && known ? known : ((await freePorts(2)) as [number, number]);
      ports[index] = [port, gatewayPort];
      const tree = path.resolve(path.dirname(main), '..', '..');
      const child = spawnNode(
        main,
        [],
        {
          HOST: '127.0.0.1',
          PORT: String(port),
          GATEWAY_PORT: String(gatewayPort),
          DATABASE_URL: ownPg.url(),
          REDIS_URL: redis.url,
          ATENDE_ROLES: roles[index] ?? 'api,gateway,worker',
          ATENDE_JWT_SECRET: JWT_SECRET,
          ATENDE_ADMIN_EMAIL: ADMIN_EMAIL,
          ATENDE_ADMIN_PASSWORD: ADMIN_PASSWORD,
          // The limiter runs on every request but never refuses one: the suite measures faults, not limits.
          ATENDE_RATE_LIMIT_POINTS: '100000000',
          WHATSAPP_GRAPH_BASE_URL: fake.url,
          LOG_LEVEL: 'info',
          ...opts.env,
        },
        { cwd: tree },
      );
      const node: FaultNode = {
        name: names[index] ?? `N${index}`,
        url: `http://127.0.0.1:${port}`,
        gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
        child,
        alive: () => node.exit === null,
        exit: null,
      };
      void child.exited.then((e) => (node.exit = e));
      try {
        await child.waitForLog((l) => l.msg === 'Atende is running');
      } catch (err) {
        child.proc.kill('SIGKILL');
        throw err;
      }
      return node;
    };
    const all: FaultNode[] = [];
    cleanups.push(async () => {
      for (const n of all) if (n.alive()) n.child.proc.kill('SIGKILL');
      await Promise.all(all.map((n) => n.child.exited));
      // ATENDE_FAULT_LOGS=<dir> keeps every node's output, to see what a node did during a fault.
      const logs = process.env.ATENDE_FAULT_LOGS;
      if (logs) {
        await mkdir(logs, { recursive: true });
        const stamp = `${path.basename(process.argv[1] ?? 'fault')}-${Date.now()}`;
        for (const [i, n] of all.entries()) {
          await writeFile(path.join(logs, `${stamp}-${i}-${n.name}.stdout`), n.child.stdout());
          await writeFile(path.join(logs, `${stamp}-${i}-${n.name}.stderr`), n.child.stderr());
        }
      }
    });
    const startNode = async (index: number, o: StartNodeOptions = {}) => {
      const node = await spawnOne(index, o.samePorts ?? false, o.main ?? opts.main ?? MAIN);
      all.push(node);
      nodes[index] = node;
      return node;
    };
    // One first, so that the migrations and the first admin are in place; then the other.
    await startNode(0);
    for (let i = 1; i < roles.length; i++) await startNode(i);
    const a = nodes[0]!.url;

    const login = await expectStatus(
      http(a, 'POST', '/auth/login', { body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD } }),
      200,
      'login',
    );
    const adminToken = login.accessToken as string;
    const adminId = (login.user as { id: string }).id;
    const auth = { authorization: `Bearer ${adminToken}` };
    const team = await expectStatus(
      http(a, 'POST', '/api/teams', { headers: auth, body: { name: 'Suporte', members: [adminId] } }),
      201,
      'create team',
    );
    const teamId = team.id as string;
    const channel = await expectStatus(
      http(a, 'POST', '/api/channels', {
        headers: auth,
        body: {
          name: 'WhatsApp',
          provider: 'whatsapp-cloud',
          defaultTeamId: teamId,
          providerConfig: {
            phoneNumberId: PHONE_NUMBER_ID,
            accessToken: 'test-token',
            appSecret: 'app-secret',
            verifyToken: 'verify',
          },
        },
      }),
      201,
      'create WhatsApp channel',
    );
    const key = await expectStatus(
      http(a, 'POST', `/api/channels/${channel.id as string}/api-key`, { headers: auth }),
      201,
      'channel API key',
    );
    const sandbox = await expectStatus(
      http(a, 'POST', '/api/channels', {
        headers: auth,
        body: { name: 'Sandbox', provider: 'sandbox', defaultTeamId: teamId },
      }),
      201,
      'create sandbox channel',
    );

    const cluster: Cluster = {
      pg: ownPg,
      redis,
      fake,
      nodes,
      adminToken,
      adminId,
      teamId,
      channelId: channel.id as string,
      channelKey: key.apiKey as string,
      appSecret: 'app-secret',
      sandboxChannelId: sandbox.id as string,
      receivedAt: fake.receivedAt,
      loopDelayMaxMs: () => Math.round(loop.max / 1e6),
      query: async <R extends pg.QueryResultRow>(text: string, params?: unknown[]) =>
        (await pool.query<R>(text, params)).rows,
      startNode,
      killNode: async (index) => {
        const node = nodes[index]!;
        node.child.proc.kill('SIGKILL');
        await node.child.exited;
      },
      stopNode: async (index) => {
        const node = nodes[index]!;
        node.child.proc.kill('SIGTERM');
        await node.child.exited;
      },
      close: runCleanups,
    };
    return cluster;
  } catch (err) {
    await runCleanups();
    throw err;
  }
}

/** Polls `check` every `everyMs` until it holds; false when `boundMs` passed first (a hang detector). */
export async function until(
  check: () => Promise<boolean> | boolean,
  boundMs: number,
  everyMs = 200,
): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    try {
      if (await check()) return true;
    } catch {
      // not yet (e.g. the database is still down)
    }
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Why a node is not running, for an assertion's message: its exit and the end of its output. */
export function exitReport(node: FaultNode): string {
  if (node.alive()) return `node ${node.name} is running`;
  const err = node.child
    .stderr()
    .split('\n')
    .filter((l) => /Unhandled|Error|error|code: '/.test(l))
    .slice(0, 6)
    .join('\n    ');
  const out = node.child
    .stdout()
    .trim()
    .split('\n')
    .filter((l) => /"level":(50|60)/.test(l))
    .slice(-3)
    .map((l) => l.slice(0, 400))
    .join('\n    ');
  return `node ${node.name} exited (${JSON.stringify(node.exit)})\n  stderr:\n    ${err}\n  last error logs:\n    ${out}`;
}
