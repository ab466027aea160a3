import pg from 'pg';
import type { Logger } from 'pino';
import { Kysely, PostgresDialect } from 'kysely';
import { preparingPool } from './prepared.js';
import type { Database, Db, Tx } from './types.js';

export type { Db, Tx };

// bigint (count(*), sums) arrives as a string; totals here always fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface DbOptions {
  /** Told (once per connection) when a connection is lost; nothing is logged without it. */
  logger?: Logger;
  /**
   * Longest wait for a connection, queueing for a free one included: with the database unreachable a
   * request fails (503) after this rather than hanging.
   */
  connectTimeoutMs?: number;
}

/** Default of `DbOptions.connectTimeoutMs`. */
export const CONNECT_TIMEOUT_MS = 5_000;
/** Idle time after which TCP keepalive probes a connection whose peer may have vanished. */
export const KEEPALIVE_DELAY_MS = 10_000;

/**
 * Every connection plans its statements without parallel workers (docs/adr/0100-serial-plans.md).
 * The statements that serve requests read a page, a few rows or a walk that stops at a page: planned in
 * parallel, each worker repeats the walk and gathering costs more than it saves (a contact search
 * 184 ms in parallel against 20 ms alone; a label's page 24 ms, nearly all of it starting two workers,
 * against under 1 ms), and with many users at once the extra CPU is everyone's latency.
 */
const SERIAL_PLANS = 'SET max_parallel_workers_per_gather = 0';

export function createDb(url: string, max = 20, options: DbOptions = {}): { db: Db; pool: pg.Pool } {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    // A connection whose peer vanished (failover, a network cut) is noticed instead of waited on.
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  });
  let ending = false;
  // A connection that drops (a restart, a failover, pg_terminate_backend) emits 'error'. pg-pool
  // listens only while the client is idle; checked out — between the statements of a transaction —
  // nobody would, and the event would end the process. The statement in flight fails on its own
  // (src/db/unavailable.ts) and the pool discards the client when it is released.
  pool.on('connect', (client) => {
    // Queued before the statement the client was taken for, so it is the connection's first.
    client.query(SERIAL_PLANS).catch(() => undefined);
    let told = false;
    client.on('error', (err) => {
      if (told || ending) return;
      told = true;
      options.logger?.warn({ err: err.message }, 'database connection lost');
    });
  });
  // An idle client's loss is told by the listener above; the pool drops the client by itself.
  pool.on('error', () => undefined);
  // Registered hot statements go out as named prepared statements (src/db/prepared.ts).
  const dialect = new PostgresDialect({ pool: preparingPool(pool, () => (ending = true)) });
  const db = new Kysely<Database>({ dialect });
  return { db, pool };
}

const RETRYABLE = new Set(['40001', '40P01']);

/** Runs `fn` in a transaction, retrying serialization failures and deadlocks a few times. */
export async function inTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(fn);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (attempt < 5 && code !== undefined && RETRYABLE.has(code)) continue;
      throw err;
    }
  }
}
