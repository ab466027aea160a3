import { sql } from 'kysely';
import type { Db, Tx } from '../db/index.js';
import { Statement } from '../db/prepared.js';
import type { SendMessageJob } from './payloads.js';

/**
 * The send queue (tables `send_lanes`, `send_jobs`, migration 007): the durable queue of messages to
 * send, FIFO per contact. A lane is one contact on one channel (`sendOrderingKey`); a worker leases a
 * lane, runs its oldest job, and finishes it (deleted, lane freed) or puts the lane back with a delay.
 * A lane's `ready_at` is when its oldest job may run, null when it has none; leasing reads only lanes
 * that are due (an index on `ready_at` over lanes with work), so its cost does not grow with the
 * backlog, and queueing behind a lane's work only counts the job (a heap-only update, migration 008).
 * Jobs are inserted in the caller's transaction: they exist exactly when it commits.
 */

/** NOTIFY channel raised by every commit that queues jobs: it wakes the workers at once. */
export const SEND_NOTIFY_CHANNEL = 'atende_send';

export interface QueuedSend {
  lane: string;
  job: SendMessageJob;
}

export interface LeasedJob {
  id: number;
  lane: string;
  job: SendMessageJob;
  /** Attempts that ended in a temporary failure before this one. */
  attempts: number;
}

interface JobRow {
  id: number;
  lane: string;
  kind: SendMessageJob['kind'];
  ref_id: string;
  attempts: number;
}

const refOf = (job: SendMessageJob): string => (job.kind === 'api_request' ? job.requestId : job.messageId);

function jobOf(row: JobRow): LeasedJob {
  const job: SendMessageJob =
    row.kind === 'api_request'
      ? { kind: 'api_request', requestId: row.ref_id }
      : { kind: 'agent_message', messageId: row.ref_id };
  return { id: Number(row.id), lane: row.lane, job, attempts: row.attempts };
}

export class SendQueue {
  constructor(private readonly db: Db) {}

  /**
   * The common table expressions that queue the jobs of a JSON parameter (`jobsJson`), in their order,
   * for a statement that does more in the same round trip (the Channel API's acceptance). Lanes are
   * touched in lane order, so two transactions queueing for the same contacts never deadlock. Such a
   * statement ends with `NOTIFY_SENDERS`.
   */
  static enqueueCtes(param: string): string {
    return `queued AS (
  INSERT INTO send_jobs (lane, kind, ref_id)
  SELECT q.lane, q.kind, q.ref_id
  FROM ROWS FROM (jsonb_to_recordset(${param}::jsonb) AS (lane text, kind text, ref_id text))
    WITH ORDINALITY AS q(lane, kind, ref_id, ord)
  ORDER BY q.ord
  RETURNING lane
), lanes AS (
  INSERT INTO send_lanes AS l (lane, pending, ready_at)
  SELECT lane, count(*), now() FROM queued GROUP BY lane ORDER BY lane
  ON CONFLICT (lane) DO UPDATE
  SET pending = l.pending + EXCLUDED.pending, ready_at = coalesce(l.ready_at, EXCLUDED.ready_at)
)`;
  }

  /** The final select of a statement that queues jobs: wakes the workers when it commits. */
  static readonly NOTIFY_SENDERS = `SELECT pg_notify('${SEND_NOTIFY_CHANNEL}', '')`;

  /** The parameter `enqueueCtes` reads: the jobs, in their order. */
  static jobsJson(sends: readonly QueuedSend[]): string {
    return JSON.stringify(sends.map((s) => ({ lane: s.lane, kind: s.job.kind, ref_id: refOf(s.job) })));
  }

  /** Queues `sends` in the caller's transaction, in their order. */
  async enqueue(tx: Tx, sends: readonly QueuedSend[]): Promise<void> {
    if (sends.length === 0) return;
    await enqueueStatement.execute(tx, [SendQueue.jobsJson(sends)]);
  }

  /**
   * Leases up to `max` due lanes for `owner` and answers each one's oldest job. Lanes another worker
   * is leasing, or a transaction is queueing into, are skipped rather than waited for. A lane whose
   * lease expired (its worker killed, or cut off from the database) is taken only with `takeExpired`:
   * a worker that has just seen the database fail passes false for a while, so that a worker that
   * still holds a provider's answer for that lane can renew its lease first (`SendDispatcher`).
   */
  async lease(owner: string, max: number, leaseMs: number, takeExpired = true): Promise<LeasedJob[]> {
    const { rows } = await sql<JobRow>`
      WITH picked AS (
        SELECT lane FROM send_lanes
        WHERE ready_at <= now() AND pending > 0
          AND (leased_until IS NULL OR (${takeExpired}::boolean AND leased_until < now()))
        ORDER BY ready_at
        LIMIT ${max}
        FOR UPDATE SKIP LOCKED
      ), leased AS (
        UPDATE send_lanes l
        SET leased_until = now() + ${leaseMs} * interval '1 millisecond', lease_owner = ${owner}
        FROM picked WHERE l.lane = picked.lane
        RETURNING l.lane
      )
      SELECT j.id, j.lane, j.kind, j.ref_id, j.attempts
      FROM leased CROSS JOIN LATERAL (
        SELECT id, lane, kind, ref_id, attempts FROM send_jobs s
        WHERE s.lane = leased.lane ORDER BY s.id LIMIT 1
      ) j`.execute(this.db);
    return rows.map(jobOf);
  }

  /**
   * Extends `owner`'s leases of `lanes`, whose jobs are still running — even a lease that expired
   * meanwhile (the database was out of reach), as long as no other worker took the lane. Answers the
   * lanes still held.
   */
  async renew(owner: string, lanes: readonly string[], leaseMs: number): Promise<Set<string>> {
    if (lanes.length === 0) return new Set();
    const { rows } = await sql<{ lane: string }>`
      WITH mine AS (
        SELECT lane FROM send_lanes
        WHERE lane = ANY(${lanes}::text[]) AND lease_owner = ${owner} AND leased_until IS NOT NULL
        ORDER BY lane FOR UPDATE
      )
      UPDATE send_lanes l SET leased_until = now() + ${leaseMs} * interval '1 millisecond'
      FROM mine WHERE l.lane = mine.lane
      RETURNING l.lane`.execute(this.db);
    return new Set(rows.map((r) => r.lane));
  }

  /**
   * Finishes jobs: deleted, and their lanes free for the next job at once. A job already finished
   * (run twice after a lease expired) changes nothing. Statements that update several lanes lock them
   * in lane order first, as queueing does, so they never deadlock with each other.
   */
  async complete(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await sql`
      WITH done AS (
        DELETE FROM send_jobs WHERE id = ANY(${ids.map(String)}::bigint[]) RETURNING lane
      ), counted AS (
        SELECT lane, count(*)::int AS n FROM done GROUP BY lane
      ), locked AS (
        SELECT l.lane, counted.n FROM send_lanes l JOIN counted ON counted.lane = l.lane
        ORDER BY l.lane FOR UPDATE OF l
      )
      UPDATE send_lanes l
      SET pending = l.pending - locked.n, leased_until = NULL, lease_owner = NULL,
          ready_at = CASE WHEN l.pending > locked.n THEN now() END
      FROM locked WHERE l.lane = locked.lane`.execute(this.db);
  }

  /** A temporary failure: the job stays at its lane's head, which waits `delayMs` before trying again. */
  async retryLater(job: LeasedJob, delayMs: number): Promise<void> {
    await sql`
      WITH bumped AS (
        UPDATE send_jobs SET attempts = attempts + 1 WHERE id = ${String(job.id)}::bigint RETURNING lane
      )
      UPDATE send_lanes l
      SET leased_until = NULL, lease_owner = NULL, ready_at = now() + ${delayMs} * interval '1 millisecond'
      FROM bumped WHERE l.lane = bumped.lane`.execute(this.db);
  }

  /** Gives up `owner`'s leases (a stopping worker), so other workers take those lanes at once. */
  async release(owner: string): Promise<void> {
    await sql`
      WITH mine AS (SELECT lane FROM send_lanes WHERE lease_owner = ${owner} ORDER BY lane FOR UPDATE)
      UPDATE send_lanes l SET leased_until = NULL, lease_owner = NULL
      FROM mine WHERE l.lane = mine.lane`.execute(this.db);
  }

  /** Gives up `owner`'s leases of `lanes`, whose jobs it will not run (leased as it stops). */
  async releaseLanes(owner: string, lanes: readonly string[]): Promise<void> {
    if (lanes.length === 0) return;
    await sql`
      WITH mine AS (
        SELECT lane FROM send_lanes WHERE lane = ANY(${lanes}::text[]) AND lease_owner = ${owner}
        ORDER BY lane FOR UPDATE
      )
      UPDATE send_lanes l SET leased_until = NULL, lease_owner = NULL
      FROM mine WHERE l.lane = mine.lane`.execute(this.db);
  }

  /**
   * Deletes up to `limit` lanes without jobs (one per contact ever written to). A lane a transaction
   * is queueing into is locked by it, and re-checked after: never deleted from under new jobs.
   */
  async pruneEmptyLanes(limit: number): Promise<number> {
    const res = await sql`
      DELETE FROM send_lanes WHERE lane IN (
        SELECT lane FROM send_lanes WHERE pending = 0 AND leased_until IS NULL
        LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      AND pending = 0`.execute(this.db);
    return Number(res.numAffectedRows ?? 0);
  }
}

const enqueueStatement = Statement.prepared<unknown>(
  `WITH ${SendQueue.enqueueCtes('$1')}\n${SendQueue.NOTIFY_SENDERS}`,
);
