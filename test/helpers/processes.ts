import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const MAIN = path.join(ROOT, 'dist', 'src', 'main.js');
export const CLI = path.join(ROOT, 'dist', 'src', 'cli.js');

/** Bound of every wait on a child: generous, since a first start runs initdb on a possibly slow disk. */
export const WAIT_MS = 90_000;

/** The environment a child sees: ours without anything that configures Atende, plus `env`. */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    const configures =
      k.startsWith('ATENDE_') ||
      k.startsWith('NODE_TEST') ||
      ['DATABASE_URL', 'REDIS_URL', 'PORT', 'GATEWAY_PORT', 'HOST', 'LOG_LEVEL'].includes(k);
    if (!configures) base[k] = v;
  }
  return { ...base, ...env };
}

export interface Child {
  proc: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Settles when the process has exited; never rejects. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The first JSON log line on stdout for which `match` holds; rejects on exit or after WAIT_MS. */
  waitForLog(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** Exit code, or rejects after WAIT_MS. */
  exitCode(): Promise<number | null>;
}

export interface SpawnOptions {
  /**
   * In a process group of its own, as a shell runs a foreground command: `process.kill(-pid, signal)`
   * then signals the whole group, as a terminal's Ctrl-C does.
   */
  detached?: boolean;
  /** Working directory; default the repository (another release's tree runs from its own). */
  cwd?: string;
}

export function spawnNode(
  script: string,
  args: string[],
  env: Record<string, string>,
  options: SpawnOptions = {},
): Child {
  const proc = spawn(process.execPath, [script, ...args], {
    cwd: options.cwd ?? ROOT,
    env: childEnv(env),
    detached: options.detached ?? false,
  });
  let out = '';
  let err = '';
  const lines: Record<string, unknown>[] = [];
  const listeners = new Set<() => void>();
  let pending = '';
  proc.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
    pending += chunk.toString('utf8');
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      try {
        const parsed: unknown = JSON.parse(line);
        if (parsed && typeof parsed === 'object') lines.push(parsed as Record<string, unknown>);
      } catch {
        // not a log line
      }
    }
    for (const l of listeners) l();
  });
  proc.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    proc.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const tail = () => `\n--- stdout ---\n${out.slice(-3000)}\n--- stderr ---\n${err.slice(-3000)}`;
  let done = false;
  void exited.then(() => {
    done = true;
    for (const l of listeners) l();
  });

  return {
    proc,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForLog: (match) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find(match);
          if (found) finish(() => resolve(found));
          else if (done) finish(() => reject(new Error(`the process exited first${tail()}`)));
        };
        const timer = setTimeout(
          () => finish(() => reject(new Error(`no such log line within ${WAIT_MS} ms${tail()}`))),
          WAIT_MS,
        );
        const finish = (fn: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          fn();
        };
        listeners.add(check);
        check();
      }),
    exitCode: async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`still running after ${WAIT_MS} ms${tail()}`)), WAIT_MS);
      });
      try {
        return (await Promise.race([exited, timeout])).code;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Runs a command to its end: exit code and output. */
export async function runNode(
  script: string,
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnNode(script, args, env);
  const code = await child.exitCode();
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

/** The built server (`node dist/src/main.js`) on 127.0.0.1, a free port; resolves with its URL. */
export async function startBuiltServer(
  env: Record<string, string>,
  options: SpawnOptions = {},
): Promise<{ child: Child; url: string }> {
  const child = spawnNode(MAIN, [], { HOST: '127.0.0.1', PORT: '0', GATEWAY_PORT: '0', ...env }, options);
  try {
    const line = await child.waitForLog((l) => l.msg === 'Atende is running');
    return { child, url: String(line.url) };
  } catch (err) {
    child.proc.kill('SIGKILL');
    throw err;
  }
}

/** A fresh data directory the `postgres` user can enter when the tests run as root. */
export async function makeDataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'atende-data-'));
  await chmod(dir, 0o755);
  return dir;
}

export const HAS_PROC = existsSync('/proc/self/cmdline');

/** Live (non-zombie) processes that have `arg` as one of their arguments, e.g. a postgres's data dir. */
export function processesWithArg(arg: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(arg)) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Ends what a test left behind on its data directory (by pid), then removes the directory. */
export async function cleanupDataDir(dataDir: string, children: Child[]): Promise<void> {
  for (const c of children)
    if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
  await Promise.all(children.map((c) => c.exited));
  if (HAS_PROC) {
    for (const pid of processesWithArg(path.join(dataDir, 'pg'))) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
}
