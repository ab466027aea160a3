import pg from 'pg';
import { Kysely, PostgresDialect, type Transaction } from 'kysely';
import { preparingPool } from './prepared.js';
import type { Database } from './types.js';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;

// bigint (count(*), sums) arrives as a string; totals here always fit in a JS number.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export function createDb(url: string, max = 20): { db: Db; pool: pg.Pool } {
  const pool = new pg.Pool({ connectionString: url, max, idleTimeoutMillis: 30_000 });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor one checked out (a transaction between statements, a query in flight): its 'error' event has
  // no listener of the pool's then, and the failure already reaches the caller through its query. The
  // pool drops such a client when it is released.
  pool.on('connect', (client) => client.on('error', () => undefined));
  // Registered hot statements go out as named prepared statements (src/db/prepared.ts).
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: preparingPool(pool) }) });
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
