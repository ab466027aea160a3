import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Retrying a write that must not be dropped (a provider's answer, a job's end) until the database
 * takes it: with exponential backoff, for as long as the database seems unreachable (up to
 * `unavailableForMs`), and only a few times when it answered with an error of its own, which retrying
 * rarely changes (a constraint, a bug) and which must not hold a contact's lane for an hour.
 */
export interface PersistOptions {
  /** Give up this long after the first failure while the database is unreachable. */
  unavailableForMs: number;
  /** Attempts in all when the database itself refuses the write. */
  refusedAttempts: number;
  /** First wait between attempts; doubled each time, at most `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Told of each failure (attempt counts from 1). */
  onFailure?(err: unknown, attempt: number): void;
}

export type Persisted<T> = { ok: true; value: T } | { ok: false; err: unknown; attempts: number };

/**
 * SQLSTATE classes that mean "not now" rather than "never": connection exceptions, transaction
 * rollbacks (serialization, deadlock), insufficient resources, operator intervention (shutdown,
 * terminated backend, starting up), system errors, and a read-only standby after a failover.
 */
const UNAVAILABLE_CLASSES = new Set(['08', '40', '53', '57', '58']);

/**
 * Whether `err` says the database could not be reached or could not take the statement now. Errors
 * without a SQLSTATE (a refused or reset connection, a connection that ended) count as unreachable.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return UNAVAILABLE_CLASSES.has(code.slice(0, 2)) || code === '25006';
}

export async function persist<T>(fn: () => Promise<T>, opts: PersistOptions): Promise<Persisted<T>> {
  const started = Date.now();
  let refused = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return { ok: true, value: await fn() };
    } catch (err) {
      opts.onFailure?.(err, attempt);
      if (isDatabaseUnavailable(err)) {
        if (Date.now() - started >= opts.unavailableForMs) return { ok: false, err, attempts: attempt };
      } else if (++refused >= opts.refusedAttempts) {
        return { ok: false, err, attempts: attempt };
      }
      const step = Math.min(opts.maxDelayMs, opts.baseDelayMs * 2 ** (attempt - 1));
      // Jitter, so the holders of many results do not all knock at the same instant.
      await sleep(Math.round(step / 2 + Math.random() * (step / 2)));
    }
  }
}
