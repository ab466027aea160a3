import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import { Statement } from '../../db/prepared.js';
import type { EventRow } from '../../events/events.repo.js';

/**
 * The delivery queue: `webhook_deliveries` rows are claimed when due, for a lease, a few per endpoint,
 * and their attempts' outcomes recorded (with the endpoint's failure streak and, past the retry window,
 * its disabling). `WebhookDeliverer` runs it; the endpoints and the delivery log are `WebhooksRepo`'s.
 */

/** A delivery taken for one attempt, with what the attempt needs: endpoint, secret and the event. */
export interface ClaimedDelivery {
  id: string;
  account_id: string;
  webhook_id: string;
  generation: number;
  attempts: number;
  window_started_at: Date;
  url: string;
  secret: string;
  event: EventRow;
}

/** What an attempt's answer leaves on the delivery. */
export interface AttemptResult {
  responseStatus: number | null;
  error: string | null;
}

export class WebhookQueueRepo {
  constructor(private readonly db: Db) {}

  /**
   * Claims up to `max` due deliveries of enabled endpoints for one attempt each, until `leaseMs` from
   * now (a worker that dies leaves them due again then): one more attempt at `at`, the retry window
   * started by the first — on the worker's clock, like the failure streak and the deadline it is
   * compared with. An endpoint gets no more than `perEndpoint` attempts in flight, counting those claimed
   * before (by any node) whose lease runs, so a slow or dead endpoint holds a bounded share of the
   * workers; each endpoint's due deliveries are read apart, so a long backlog of one never hides
   * another's. Rows another claim is taking are skipped. Two claims racing on different nodes may
   * together exceed the cap by one claim's share, briefly.
   */
  async claimDue(max: number, perEndpoint: number, leaseMs: number, at: Date): Promise<ClaimedDelivery[]> {
    const rows = await claimDueStatement.execute(this.db, [max, perEndpoint, leaseMs, at]);
    return rows.map(claimedOf);
  }

  /**
   * 2xx answers, in one statement: each attempt still current (same generation, same attempt count:
   * not replayed, not claimed again after its lease ended) settled as delivered, and each endpoint
   * healthy, its failure streak over.
   */
  async settleDelivered(
    settled: readonly {
      id: string;
      generation: number;
      attempt: number;
      webhookId: string;
      at: Date;
      responseStatus: number;
    }[],
  ): Promise<void> {
    if (settled.length === 0) return;
    const lastByWebhook = new Map<string, Date>();
    for (const s of settled) {
      const prev = lastByWebhook.get(s.webhookId);
      if (!prev || prev < s.at) lastByWebhook.set(s.webhookId, s.at);
    }
    await settleDeliveredStatement.execute(this.db, [
      settled.map((s) => s.id),
      settled.map((s) => s.generation),
      settled.map((s) => s.attempt),
      settled.map((s) => s.at.toISOString()),
      settled.map((s) => s.responseStatus),
      [...lastByWebhook.keys()],
      [...lastByWebhook.values()].map((d) => d.toISOString()),
    ]);
  }

  /**
   * Settles a failed attempt still current (see settleDelivered), final or due again later. A
   * delivery failed meanwhile (its endpoint disabled) stays failed. False when nothing was settled.
   */
  async settle(
    tx: Tx,
    current: { id: string; generation: number; attempt: number },
    at: Date,
    result: AttemptResult,
    outcome: { status: 'failed' } | { status: 'pending'; nextAttemptAt: Date },
  ): Promise<boolean> {
    const res = await tx
      .updateTable('webhook_deliveries')
      .set({
        status: outcome.status,
        last_response_status: result.responseStatus,
        last_error: result.error,
        next_attempt_at: outcome.status === 'pending' ? outcome.nextAttemptAt : null,
        claimed_until: null,
        delivered_at: null,
        updated_at: at,
      })
      .where('id', '=', current.id)
      .where('generation', '=', current.generation)
      .where('attempts', '=', current.attempt)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  /**
   * A failed attempt: starts the failure streak (if none), then disables the endpoint when the streak
   * has lasted `since` or longer. Answers the endpoint when this call disabled it (once, whatever
   * the concurrent attempts).
   */
  async recordFailure(
    tx: Tx,
    webhookId: string,
    attemptStartedAt: Date,
    disableIfFailingSince: Date,
    at: Date,
  ): Promise<{ id: string; account_id: string; url: string } | undefined> {
    await tx
      .updateTable('webhook_subscriptions')
      .set({ failing_since: sql`coalesce(failing_since, ${attemptStartedAt})` })
      .where('id', '=', webhookId)
      .execute();
    return tx
      .updateTable('webhook_subscriptions')
      .set({ enabled: false, disabled_at: at, disabled_reason: 'failing', updated_at: at })
      .where('id', '=', webhookId)
      .where('enabled', '=', true)
      .where('failing_since', '<=', disableIfFailingSince)
      .returning(['id', 'account_id', 'url'])
      .executeTakeFirst();
  }
}

interface ClaimRow extends Omit<ClaimedDelivery, 'event'> {
  event_id: string;
  event_name: string;
  schema_version: number;
  seq: number;
  occurred_at: Date;
  data: Record<string, unknown>;
}

function claimedOf(r: ClaimRow): ClaimedDelivery {
  return {
    id: r.id,
    account_id: r.account_id,
    webhook_id: r.webhook_id,
    generation: r.generation,
    attempts: r.attempts,
    window_started_at: r.window_started_at,
    url: r.url,
    secret: r.secret,
    event: {
      id: r.event_id,
      event: r.event_name,
      schema_version: r.schema_version,
      seq: Number(r.seq),
      occurred_at: r.occurred_at,
      account_id: r.account_id,
      data: r.data,
    },
  };
}

// $1 max, $2 per endpoint, $3 lease (ms), $4 the attempt's time. Per enabled endpoint (the subscriptions are few next to the
// deliveries): its due deliveries by the due index, as many as its free share of the cap, locked
// with SKIP LOCKED; then the earliest due of all, up to max.
const claimDueStatement = Statement.prepared<ClaimRow>(`WITH picked AS (
  SELECT c.id
  FROM webhook_subscriptions s
  CROSS JOIN LATERAL (
    SELECT x.id, coalesce(x.claimed_until, x.next_attempt_at) AS due
    FROM webhook_deliveries x
    WHERE x.webhook_id = s.id AND x.status = 'pending'
      AND coalesce(x.claimed_until, x.next_attempt_at) <= now()
    ORDER BY coalesce(x.claimed_until, x.next_attempt_at)
    LIMIT greatest(0, $2::int - (SELECT count(*) FROM webhook_deliveries y
                                 WHERE y.webhook_id = s.id AND y.claimed_until > now()))
    FOR UPDATE OF x SKIP LOCKED
  ) c
  WHERE s.enabled
  ORDER BY c.due
  LIMIT $1::int
)
UPDATE webhook_deliveries d
SET attempts = d.attempts + 1,
    window_started_at = coalesce(d.window_started_at, $4::timestamptz),
    last_attempt_at = $4::timestamptz,
    next_attempt_at = NULL,
    claimed_until = now() + $3::int * interval '1 millisecond',
    updated_at = $4::timestamptz
FROM picked, webhook_subscriptions s, events e
WHERE d.id = picked.id AND s.id = d.webhook_id
  AND e.account_id = d.account_id AND e.seq = d.event_seq
RETURNING d.id, d.account_id, d.webhook_id, d.generation, d.attempts, d.window_started_at,
          s.url, s.secret, e.id AS event_id, e.event AS event_name, e.schema_version, e.seq,
          e.occurred_at, e.data`);

// $1 ids, $2 generations, $3 attempt counts, $4 times, $5 statuses; $6 endpoints, $7 their last time.
// Endpoints are locked in id order, so two statements never wait on each other in a cycle. (A
// data-modifying CTE runs whether or not it is read.)
const settleDeliveredStatement = Statement.prepared<unknown>(`WITH done AS (
  UPDATE webhook_deliveries d
  SET status = 'delivered', last_response_status = r.status, last_error = NULL, next_attempt_at = NULL,
      claimed_until = NULL, delivered_at = r.at, updated_at = r.at
  FROM unnest($1::uuid[], $2::int[], $3::int[], $4::timestamptz[], $5::int[])
    AS r(id, generation, attempt, at, status)
  WHERE d.id = r.id AND d.generation = r.generation AND d.attempts = r.attempt
), healthy AS (
  SELECT s.id, w.at FROM webhook_subscriptions s
  JOIN unnest($6::text[], $7::timestamptz[]) AS w(id, at) ON w.id = s.id
  ORDER BY s.id FOR NO KEY UPDATE OF s
)
UPDATE webhook_subscriptions s
SET failing_since = NULL, last_success_at = greatest(s.last_success_at, healthy.at)
FROM healthy WHERE s.id = healthy.id`);
