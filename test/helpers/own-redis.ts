import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './ports.js';

/**
 * A redis-server of a test's own on a free port (no persistence), that the test may stop, restart or
 * kill without touching any other Redis. Needs `redis-server` on PATH.
 */
export interface OwnRedis {
  /** `redis://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Starts it again after stop() or kill(), on the same port (empty: nothing is persisted). */
  start(): Promise<void>;
  /** SIGTERM: a clean shutdown. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** SIGKILL. */
  kill(): Promise<void>;
}

const BOUND_MS = 30_000;

export async function startOwnRedis(opts: { port?: number } = {}): Promise<OwnRedis> {
  const port = opts.port ?? (await freePort());
  let proc: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();

  const start = async () => {
    if (proc) throw new Error('own Redis already running');
    const p = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    proc = p;
    exited = new Promise((resolve) =>
      p.on('exit', () => {
        if (proc === p) proc = null;
        resolve();
      }),
    );
    let log = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`own Redis not ready within ${BOUND_MS} ms:\n${log.slice(-2000)}`)),
        BOUND_MS,
      );
      const done = (fn: () => void) => {
        clearTimeout(timer);
        p.stdout!.off('data', onData);
        fn();
      };
      const onData = (c: Buffer) => {
        log += c.toString();
        if (log.includes('Ready to accept connections')) done(resolve);
      };
      p.stdout!.on('data', onData);
      p.on('error', (err) => done(() => reject(err)));
      p.once('exit', (code) => done(() => reject(new Error(`own Redis exited (${code}):\n${log}`))));
    });
    p.stdout!.resume();
    p.stderr!.resume();
  };

  const signal = async (sig: NodeJS.Signals) => {
    const p = proc;
    if (!p) return;
    p.kill(sig);
    let timer: NodeJS.Timeout | undefined;
    const slow = new Promise<'slow'>((resolve) => (timer = setTimeout(() => resolve('slow'), BOUND_MS)));
    if ((await Promise.race([exited, slow])) === 'slow') {
      p.kill('SIGKILL');
      await exited;
    }
    clearTimeout(timer);
  };

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    stop: () => signal('SIGTERM'),
    restart: async () => {
      await signal('SIGTERM');
      await start();
    },
    kill: () => signal('SIGKILL'),
  };
}

/** The same, under the short name the fault suite's helpers share. */
export { startOwnRedis as start };
