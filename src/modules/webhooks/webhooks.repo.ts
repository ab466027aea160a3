/* eslint-disable max-lines -- the endpoints and their delivery queue; the queue (claims, outcomes) splits off once the one claim engine takes its loop. */
import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import { Statement } from '../../db/prepared.js';
import type { WebhookDeliveryStatus } from '../../db/types.js';
import { WEBHOOKS_CHANNEL } from '../../events/events.repo.js';
import type { EventRow } from '../../events/events.repo.js';

export interface WebhookRow {
  id: string;
  account_id: string;
  url: string;
  events: string[];
  secret: string;
  enabled: boolean;
  failing_since: Date | null;
  last_success_at: Date | null;
  disabled_at: Date | null;
  disabled_reason: 'failing' | 'manual' | null;
  created_at: Date;
  updated_at: Date;
}

const webhookColumns = [
  'id',
  'account_id',
  'url',
  'events',
  'secret',
  'enabled',
  'failing_since',
  'last_success_at',
  'disabled_at',
  'disabled_reason',
  'created_at',
  'updated_at',
] as const;

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event: string;
  seq: number;
  status: WebhookDeliveryStatus;
  attempts: number;
  last_attempt_at: Date | null;
  last_response_status: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  delivered_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

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

export class WebhooksRepo {
  constructor(private readonly db: Db) {}

  async list(accountId: string): Promise<WebhookRow[]> {
    return this.db
      .selectFrom('webhook_subscriptions')
      .select(webhookColumns)
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  async count(accountId: string): Promise<number> {
    const row = await this.db
      .selectFrom('webhook_subscriptions')
      .select(sql<number>`count(*)::int8`.as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async find(accountId: string, id: string): Promise<WebhookRow | undefined> {
    return this.db
      .selectFrom('webhook_subscriptions')
      .select(webhookColumns)
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  async insert(row: {
    id: string;
    account_id: string;
    url: string;
    events: string[];
    secret: string;
    created_by: string;
  }): Promise<WebhookRow> {
    return this.db
      .insertInto('webhook_subscriptions')
      .values(row)
      .returning(webhookColumns)
      .executeTakeFirstOrThrow();
  }

  async update(
    tx: Tx,
    accountId: string,
    id: string,
    set: {
      url?: string;
      events?: string[];
      secret?: string;
      enabled?: boolean;
    },
  ): Promise<WebhookRow | undefined> {
    let q = tx
      .updateTable('webhook_subscriptions')
      .set({ updated_at: sql`now()` })
      .where('account_id', '=', accountId)
      .where('id', '=', id);
    if (set.url !== undefined) q = q.set({ url: set.url });
    if (set.events !== undefined) q = q.set({ events: set.events });
    if (set.secret !== undefined) q = q.set({ secret: set.secret });
    if (set.enabled === true) {
      // Back on: a fresh start, the failures before the pause no longer count. An endpoint that was
      // not off keeps its streak (saying "enabled" again must not postpone its disabling).
      q = q.set({
        enabled: true,
        failing_since: sql`CASE WHEN enabled THEN failing_since END`,
        disabled_at: null,
        disabled_reason: null,
      });
    } else if (set.enabled === false) {
      q = q.set({
        enabled: false,
        disabled_at: sql`coalesce(disabled_at, now())`,
        disabled_reason: sql`coalesce(disabled_reason, 'manual')`,
      });
    }
    return q.returning(webhookColumns).executeTakeFirst();
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const res = await this.db
      .deleteFrom('webhook_subscriptions')
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    return res.numDeletedRows > 0n;
  }

  /** One page of the delivery log, newest first; the two indexes serve it with and without status. */
  async deliveries(
    webhookId: string,
    status: WebhookDeliveryStatus | undefined,
    page: number,
    limit: number,
  ): Promise<{ total: number; rows: DeliveryRow[] }> {
    let q = this.db.selectFrom('webhook_deliveries as d').where('d.webhook_id', '=', webhookId);
    if (status !== undefined) q = q.where('d.status', '=', status);
    const [rows, count] = await Promise.all([
      q
        .innerJoin('events as e', (j) =>
          j.onRef('e.account_id', '=', 'd.account_id').onRef('e.seq', '=', 'd.event_seq'),
        )
        .select(deliveryColumns)
        .orderBy('d.created_at', 'desc')
        .orderBy('d.id', 'desc')
        .limit(limit)
        .offset((page - 1) * limit)
        .execute(),
      q.select(sql<number>`count(*)::int8`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { total: Number(count.n), rows };
  }

  /** `tx`: read inside a transaction, as that transaction wrote it. */
  async findDelivery(webhookId: string, id: string, tx: Db | Tx = this.db): Promise<DeliveryRow | undefined> {
    return tx
      .selectFrom('webhook_deliveries as d')
      .innerJoin('events as e', (j) =>
        j.onRef('e.account_id', '=', 'd.account_id').onRef('e.seq', '=', 'd.event_seq'),
      )
      .select(deliveryColumns)
      .where('d.webhook_id', '=', webhookId)
      .where('d.id', '=', id)
      .executeTakeFirst();
  }

  /**
   * A new attempt of the same delivery (same id, same envelope): pending and due now with a fresh
   * retry window; the generation bump retires an attempt still in flight (its outcome is not
   * recorded). Wakes the delivery workers on commit. Answers the new generation.
   */
  async replay(tx: Tx, webhookId: string, id: string, at: Date): Promise<number | undefined> {
    const row = await tx
      .updateTable('webhook_deliveries')
      .set({
        status: 'pending',
        generation: sql`generation + 1`,
        window_started_at: null,
        next_attempt_at: at,
        claimed_until: null,
        delivered_at: null,
        updated_at: at,
      })
      .where('webhook_id', '=', webhookId)
      .where('id', '=', id)
      .returning(['generation', sql<string>`pg_notify(${WEBHOOKS_CHANNEL}, '')`.as('notified')])
      .executeTakeFirst();
    return row?.generation;
  }

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

  /** Every pending delivery of a disabled endpoint: failed; an attempt in flight is not retried. */
  async failPending(tx: Tx, webhookId: string, at: Date): Promise<void> {
    await tx
      .updateTable('webhook_deliveries')
      .set({
        status: 'failed',
        last_error: DISABLED_ERROR,
        next_attempt_at: null,
        claimed_until: null,
        updated_at: at,
      })
      .where('webhook_id', '=', webhookId)
      .where('status', '=', 'pending')
      .execute();
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

/** `last_error` of deliveries failed because their endpoint was disabled. */
export const DISABLED_ERROR = 'Webhook disabled';

const deliveryColumns = [
  'd.id',
  'd.webhook_id',
  'e.id as event_id',
  'e.event',
  'e.seq',
  'd.status',
  'd.attempts',
  'd.last_attempt_at',
  'd.last_response_status',
  'd.last_error',
  'd.next_attempt_at',
  'd.delivered_at',
  'd.created_at',
  'd.updated_at',
] as const;

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
