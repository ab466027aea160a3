import { execFile } from 'node:child_process';
import { promises as fs, constants as fsConstants } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Logger } from 'pino';

/**
 * Whose the embedded PostgreSQL's data directory is: a server an earlier run of this program left
 * behind is stopped and its lock cleared, one that another live process started is refused
 * (DataDirInUseError), and, as root, the directory must be reachable by the server's user.
 */

/** The data directory's PostgreSQL belongs to another process that is still running. */
export class DataDirInUseError extends Error {
  constructor(
    readonly pgDir: string,
    readonly postgresPid: number,
    readonly ownerPid: number | null,
  ) {
    const owner = ownerPid ? `another running Atende process (pid ${ownerPid})` : 'another process';
    super(
      `The embedded PostgreSQL in ${pgDir} is in use by ${owner}; only one process can use a data ` +
        'directory at a time. Stop that process first, or use another ATENDE_DATA_DIR, or share a ' +
        'PostgreSQL server between processes through DATABASE_URL.',
    );
    this.name = 'DataDirInUseError';
  }
}

// Written into the postmaster's command line (and process titles) so that a later run can tell
// which process started it: a postgres whose starter is gone is an orphan and may be stopped.
export const OWNER_PREFIX = 'atende-owner-';
const run = promisify(execFile);

export async function exists(p: string): Promise<boolean> {
  try {
    await fs.access(p, fsConstants.F_OK);
    return true;
  } catch {
    return false;
  }
}

interface ProcessInfo {
  ppid: number;
  args: string[];
}

/**
 * A running process's parent and command line; null when it is gone (zombies count as gone), and
 * 'unknown' when it exists but cannot be inspected (no /proc and no ps).
 */
async function processInfo(pid: number): Promise<ProcessInfo | null | 'unknown'> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  if (stat !== null) {
    // "pid (comm) state ppid …"; comm may itself hold spaces and parentheses.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state === 'Z' || state === 'X') return null;
    const cmdline = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
    return { ppid: Number(ppid), args: cmdline.split('\0') };
  }
  if (await exists('/proc/self/stat')) return null;
  // No /proc (macOS): ask ps, which exits 1 with no output for a pid that does not exist.
  try {
    const { stdout } = await run('ps', ['-o', 'stat=,ppid=,command=', '-p', String(pid)]);
    const m = /^\s*(\S+)\s+(\d+)\s+(.*)$/s.exec(stdout.trim());
    if (!m || m[1]!.startsWith('Z')) return null;
    return { ppid: Number(m[2]), args: m[3]!.split(' ') };
  } catch (err) {
    if ((err as { code?: unknown }).code === 1) return null;
    try {
      process.kill(pid, 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ESRCH') return null;
    }
    return 'unknown';
  }
}

type LockState =
  | { kind: 'free' }
  /** The lock names a process that is gone, or one that is not a PostgreSQL (its pid was reused). */
  | { kind: 'stale'; pid: number }
  /** Our PostgreSQL, left running by a process that no longer exists (e.g. after a SIGKILL). */
  | { kind: 'orphan'; pid: number }
  | { kind: 'in-use'; pid: number; ownerPid: number | null };

async function lockState(pgDir: string): Promise<LockState> {
  let text: string;
  try {
    text = await fs.readFile(path.join(pgDir, 'postmaster.pid'), 'utf8');
  } catch {
    return { kind: 'free' };
  }
  const pid = Number(text.split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0) return { kind: 'stale', pid: 0 };
  const info = await processInfo(pid);
  // Unable to look: better refuse to start than run two servers on one directory.
  if (info === 'unknown') return { kind: 'in-use', pid, ownerPid: null };
  if (!info || !/postgres/.test(path.basename(info.args[0] ?? ''))) return { kind: 'stale', pid };
  const dir = info.args[info.args.indexOf('-D') + 1];
  const ours = dir === pgDir || dir === (await fs.realpath(pgDir).catch(() => pgDir));
  // A postgres that names this directory differently (through a link, say) is still treated as in use:
  // two servers on one directory would corrupt it.
  if (!ours) return { kind: 'in-use', pid, ownerPid: null };
  const owner = info.args.find((a) => a.startsWith(`cluster_name=${OWNER_PREFIX}`));
  const ownerPid = owner ? Number(owner.slice(`cluster_name=${OWNER_PREFIX}`.length)) : null;
  // The starter is the postmaster's parent for as long as it lives; once it dies the postmaster is
  // re-parented (to init or a subreaper), so "parent is still the starter" means "someone uses it".
  const alive = ownerPid !== null ? info.ppid === ownerPid : info.ppid !== 1;
  return alive ? { kind: 'in-use', pid, ownerPid: ownerPid ?? info.ppid } : { kind: 'orphan', pid };
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!(await processInfo(pid))) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** Settles what an earlier run left behind; throws when another live process uses the directory. */
export async function clearLock(pgDir: string, log: Logger): Promise<boolean> {
  const lock = await lockState(pgDir);
  switch (lock.kind) {
    case 'free':
      return false;
    case 'in-use':
      throw new DataDirInUseError(pgDir, lock.pid, lock.ownerPid);
    case 'orphan':
      log.warn(
        { postgresPid: lock.pid },
        'stopping the PostgreSQL left running by an earlier run that was killed',
      );
      try {
        process.kill(lock.pid, 'SIGINT');
        if (!(await waitForExit(lock.pid, 15_000))) process.kill(lock.pid, 'SIGKILL');
      } catch {
        // already gone
      }
      await waitForExit(lock.pid, 5_000);
      return true;
    case 'stale':
      log.warn({ postgresPid: lock.pid }, 'removing a stale PostgreSQL lock file');
      await fs.rm(path.join(pgDir, 'postmaster.pid'), { force: true });
      return true;
  }
}

/**
 * As root, PostgreSQL runs as the `postgres` user (it refuses to run as root), which must be able to
 * traverse every directory above the data directory; initdb would otherwise fail without saying why.
 */
export async function checkReachableByPostgres(dir: string): Promise<void> {
  const id = async (flag: string) =>
    Number((await run('id', [flag, 'postgres']).catch(() => ({ stdout: '-1' }))).stdout.trim());
  const [uid, gid] = [await id('-u'), await id('-g')];
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    const st = await fs.stat(d);
    const bit = st.uid === uid ? 0o100 : st.gid === gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0) {
      throw new Error(
        `The embedded PostgreSQL runs as the "postgres" user (PostgreSQL refuses to run as root), and ` +
          `that user cannot enter ${d} (mode ${(st.mode & 0o777).toString(8)}), which holds the data ` +
          `directory ${dir}. Choose an ATENDE_DATA_DIR the postgres user can reach, or run ` +
          `\`chmod o+x ${d}\`.`,
      );
    }
    if (d === path.dirname(d)) return;
  }
}
