import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './ports.js';

/**
 * A Redis server of the test's own (never the shared one), on a free port, that the test may stop,
 * kill and start again on the same port. Nothing is persisted: a restart comes back empty, as a Redis
 * without persistence does. Needs `redis-server` on PATH.
 */
export interface OwnRedis {
  url: string;
  port: number;
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port; resolves once it accepts connections. */
  start(): Promise<void>;
  /** stop(), then start(). */
  restart(): Promise<void>;
  /** Kills the server (SIGKILL) and waits for it to exit. */
  kill(): Promise<void>;
  /** Freezes the server (SIGSTOP): connections stay open, nothing is answered — a hung Redis. */
  pause(): void;
  /** Lets a paused server go on (SIGCONT). */
  resume(): void;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}

const READY = /Ready to accept connections/;
const BOUND_MS = 30_000;

export async function startOwnRedis(opts: { port?: number } = {}): Promise<OwnRedis> {
  const port = opts.port ?? (await freePort());
  const dir = await mkdtemp(path.join(tmpdir(), 'atende-redis-'));
  let proc: ChildProcess | null = null;
  // Should the test process die first, the server must not outlive it.
  const killOnExit = () => proc?.kill('SIGKILL');
  process.once('exit', killOnExit);

  const start = () =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      proc = child;
      let out = '';
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`redis-server not ready within ${BOUND_MS} ms:\n${out}`));
      }, BOUND_MS);
      const onData = (chunk: Buffer) => {
        out += chunk.toString('utf8');
        if (READY.test(out)) {
          clearTimeout(timer);
          child.stdout!.off('data', onData);
          child.off('exit', onExit);
          // Keep reading its output so the pipe never fills.
          child.stdout!.resume();
          resolve();
        }
      };
      const onExit = (code: number | null) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code}) before it was ready:\n${out}`));
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
      child.once('exit', onExit);
      child.once('error', reject);
    });

  const end = async (signal: NodeJS.Signals) => {
    const child = proc;
    child?.kill('SIGCONT');
    proc = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  };
  const stop = () => end('SIGTERM');

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    start,
    restart: async () => {
      await stop();
      await start();
    },
    kill: () => end('SIGKILL'),
    pause: () => void proc?.kill('SIGSTOP'),
    resume: () => void proc?.kill('SIGCONT'),
    close: async () => {
      await stop();
      process.off('exit', killOnExit);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
