import { CompiledQuery } from 'kysely';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import type pg from 'pg';
import type { Db, Tx } from './types.js';
import { isConnectionFailure, markUnavailable } from './unavailable.js';

/**
 * Named prepared statements for the hot queries. PostgreSQL then parses a statement once per
 * connection and, after its first five executions, keeps one generic plan when that plan is no
 * worse than the custom ones — which, for a page of chats, is half the statement's database time.
 * Only texts registered here are named; every other query stays an unnamed statement.
 *
 * A generic plan is chosen only when the planner can cost it like a custom one: a LIMIT needs a
 * literal (a parameter alone makes the planner assume a tenth of the rows, and PostgreSQL then
 * re-plans on every execution) — a parameter under a literal bound works, as the chat list pages do
 * (chat-lists.repo.ts, `pageSql`) — and so should small closed sets such as a status. An array
 * parameter (`= ANY($1::text[])`) costs its generic plan for an unknown number of elements, so that
 * plan is never adopted either: a read of one row takes its id as a scalar (`ChatsRepo.findMany`
 * with one id runs `find`'s statement). Likewise a value a partial index's predicate names (a
 * queue) is written in the text, or a generic plan cannot use that index.
 */
const names = new Map<string, string>();

/**
 * Bound on the texts built at run time (list shapes with their literal LIMIT), so that clients
 * cannot fill every connection with prepared statements; texts past it run unnamed.
 */
const MAX_BUILT = 64;
let built = 0;

/**
 * Bound on the texts of libraries that run their own SQL through the platform's connections (pg-boss's
 * fetch, insert and complete: a handful of texts, fixed per release), named like the platform's own.
 */
const MAX_LIBRARY = 32;
let library = 0;

/**
 * The name a library's parameterised statement runs under, registering it while the bound allows;
 * undefined for a text past the bound or without parameters (which may hold several statements, and
 * a named statement holds one).
 */
export function libraryStatementName(
  text: string,
  values: readonly unknown[] | undefined,
): string | undefined {
  if (values === undefined || values.length === 0) return undefined;
  const known = names.get(text);
  if (known !== undefined || library >= MAX_LIBRARY) return known;
  library++;
  register(text);
  return names.get(text);
}

function register(text: string): void {
  names.set(text, `atende_${names.size + 1}`);
}

/** The texts registered so far, in registration order: what `npm run sql:snapshot` records for review. */
export function preparedTexts(): string[] {
  return [...names.keys()];
}

/** SQL text with positional parameters, run through Kysely's connection (so also inside transactions). */
export class Statement<R> {
  private constructor(readonly text: string) {}

  /** A text written in the source: always prepared. */
  static prepared<R>(text: string): Statement<R> {
    if (!names.has(text)) register(text);
    return new Statement<R>(text);
  }

  /**
   * A text built from a request's shape: prepared when `prepare` is true and while the bound on built
   * texts allows, else an ordinary unnamed statement.
   */
  static shaped<R>(text: string, prepare: boolean): Statement<R> {
    if (prepare && built < MAX_BUILT && !names.has(text)) {
      built++;
      register(text);
    }
    return new Statement<R>(text);
  }

  async execute(db: Db | Tx, values: readonly unknown[]): Promise<R[]> {
    const result = await db.executeQuery<R>(CompiledQuery.raw(this.text, [...values]));
    return result.rows;
  }
}

/**
 * The pool as Kysely sees it: each client sends registered texts by name. One wrapper per pg
 * client, so Kysely's per-client connection cache keeps working.
 */
export function preparingPool(pool: pg.Pool, onEnd: () => void = () => undefined): PostgresPool {
  const wrappers = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => ({
    query: ((arg: string | object, values?: readonly unknown[]) => {
      if (typeof arg !== 'string') return client.query(arg as pg.Submittable);
      const name = names.get(arg);
      const config: pg.QueryConfig = { text: arg, values: values as unknown[] };
      if (name !== undefined) config.name = name;
      return (client.query(config) as Promise<PostgresQueryResult<unknown>>).catch(rethrowMarked);
    }) as PostgresPoolClient['query'],
    release: () => client.release(),
  });
  return {
    connect: async () => {
      const client = await pool.connect().catch(rethrowMarked);
      let wrapper = wrappers.get(client);
      if (!wrapper) {
        wrapper = wrap(client);
        wrappers.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => {
      onEnd();
      return pool.end();
    },
  };
}

/** Errors of a lost or unobtainable connection leave marked, so that requests answer 503. */
function rethrowMarked(err: unknown): never {
  if (isConnectionFailure(err)) markUnavailable(err);
  throw err;
}
