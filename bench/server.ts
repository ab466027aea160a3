import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export interface ServerUnderTest {
  url: string;
  /** The Socket.IO gateway's base URL, when the server runs the gateway role. */
  gatewayUrl: string | null;
  pid: number;
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();

/** Another child process of the benchmark (e.g. socket clients), killed with the servers. */
export function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
}

/** Kills whatever server this process started and did not stop yet (on error paths and exit). */
export function killAllServers(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Compiles `src/` into a private output directory under node_modules/.cache (module resolution still
 * finds the project's packages from there), so the benchmark runs the current sources as plain
 * JavaScript without touching the shared `dist/`.
 */
export async function buildServer(root: string, log: (line: string) => void): Promise<string> {
  const outDir = path.join(root, 'node_modules', '.cache', 'atende-bench');
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const started = Date.now();
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', outDir], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', reject);
    child.once('exit', (c) => resolve(c ?? 1));
  });
  const main = path.join(outDir, 'src', 'main.js');
  if (!existsSync(main)) throw new Error(`build failed: ${main} was not written`);
  // tsc still emits on type errors; the numbers are then of the code as written, which is what we want.
  if (code !== 0) log(`warning: tsc reported type errors (exit ${code}); benchmarking the emitted code`);
  log(`server compiled in ${Math.round((Date.now() - started) / 100) / 10} s`);
  return main;
}

/**
 * Starts `node <main>` as a separate process on 127.0.0.1 (so autocannon's CPU is not the server's),
 * with the benchmark routes on and the given environment, and waits until /readyz answers 200.
 */
export async function startServerProcess(opts: {
  main: string;
  env: Record<string, string | undefined>;
  log: (line: string) => void;
  label: string;
  /** `ATENDE_ROLES`; default `api`. */
  roles?: string;
  /** Node options of the server process, e.g. `--expose-gc`. */
  execArgv?: string[];
}): Promise<ServerUnderTest> {
  const port = await freePort();
  const roles = opts.roles ?? 'api';
  const gatewayPort = roles.includes('gateway') ? await freePort() : null;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...opts.env })) {
    if (v !== undefined) env[k] = v;
  }
  Object.assign(env, {
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    NODE_ENV: 'production',
    ATENDE_ROLES: roles,
    ATENDE_BENCH_ROUTES: '1',
    // The benchmark sends thousands of requests a second with one channel key and one user: their
    // budgets are lifted (still counted on every request) unless the caller sets them.
    ATENDE_CHANNEL_KEY_RATE_LIMIT_POINTS: opts.env.ATENDE_CHANNEL_KEY_RATE_LIMIT_POINTS ?? '100000000',
    ATENDE_USER_RATE_LIMIT_POINTS: opts.env.ATENDE_USER_RATE_LIMIT_POINTS ?? '100000000',
    ...(gatewayPort !== null ? { GATEWAY_PORT: String(gatewayPort) } : {}),
  });
  // Nothing of the caller's own installation leaks in: first-run admin, a Redis the caller did not ask for.
  delete env.ATENDE_ADMIN_EMAIL;
  delete env.ATENDE_ADMIN_PASSWORD;
  if (opts.env.REDIS_URL === undefined) delete env.REDIS_URL;

  // BENCH_SERVER_NODE_ARGS: extra Node options of the servers under test (e.g. --cpu-prof).
  const extra = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...(opts.execArgv ?? []), ...extra, opts.main], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  const relay = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n')) if (line.trim()) opts.log(`[${opts.label}] ${line}`);
  };
  child.stdout?.on('data', relay);
  child.stderr?.on('data', relay);
  let exited: number | null = null;
  const exitPromise = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = code ?? (signal ? 128 : 1);
      live.delete(child);
      resolve();
    }),
  );

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== null) throw new Error(`server ${opts.label} exited with ${exited} during start-up`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server ${opts.label} did not become ready within 60 s`);
    }
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }

  return {
    url,
    gatewayUrl: gatewayPort !== null ? `http://127.0.0.1:${gatewayPort}` : null,
    pid: child.pid ?? -1,
    stop: async () => {
      if (exited !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exitPromise;
      clearTimeout(timer);
    },
  };
}
