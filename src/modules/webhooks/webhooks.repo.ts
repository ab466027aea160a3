import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { WebhookDeliveryStatus } from '../../db/types.js';

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
  event: {
    id: string;
    event: string;
    schema_version: number;
    seq: number;
    occurred_at: Date;
    account_id: string;
    data: Record<string, unknown>;
  };
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
   * A new attempt of the same delivery (same id, same envelope): pending again with a fresh retry
   * window; the generation bump retires any attempt already scheduled. Answers the new generation.
   */
  async replay(tx: Tx, webhookId: string, id: string, at: Date): Promise<number | undefined> {
    const row = await tx
      .updateTable('webhook_deliveries')
      .set({
        status: 'pending',
        generation: sql`generation + 1`,
        window_started_at: null,
        next_attempt_at: at,
        delivered_at: null,
        updated_at: at,
      })
      .where('webhook_id', '=', webhookId)
      .where('id', '=', id)
      .returning('generation')
      .executeTakeFirst();
    return row?.generation;
  }

  /**
   * Takes a pending delivery of this generation for one attempt, if its endpoint is enabled: one
   * more attempt, the retry window started by the first. Undefined when there is nothing to do.
   */
  async claim(id: string, generation: number, at: Date): Promise<ClaimedDelivery | undefined> {
    const res = await sql<
      Omit<ClaimedDelivery, 'event'> & {
        event_id: string;
        event_name: string;
        schema_version: number;
        seq: number;
        occurred_at: Date;
        data: Record<string, unknown>;
      }
    >`
      UPDATE webhook_deliveries d
      SET attempts = d.attempts + 1,
          window_started_at = coalesce(d.window_started_at, ${at}),
          last_attempt_at = ${at},
          next_attempt_at = NULL,
          updated_at = ${at}
      FROM webhook_subscriptions s, events e
      WHERE d.id = ${id} AND d.generation = ${generation} AND d.status = 'pending'
        AND s.id = d.webhook_id AND s.enabled
        AND e.account_id = d.account_id AND e.seq = d.event_seq
      RETURNING d.id, d.account_id, d.webhook_id, d.generation, d.attempts, d.window_started_at,
                s.url, s.secret, e.id AS event_id, e.event AS event_name, e.schema_version, e.seq,
                e.occurred_at, e.data`.execute(this.db);
    const r = res.rows[0];
    if (!r) return undefined;
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
        seq: r.seq,
        occurred_at: r.occurred_at,
        account_id: r.account_id,
        data: r.data,
      },
    };
  }

  /**
   * Settles a failed attempt of this generation, final or to be retried (a replay in the meantime
   * owns the delivery now): false when it was replayed or deleted.
   */
  async settle(
    tx: Tx,
    id: string,
    generation: number,
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
        delivered_at: null,
        updated_at: at,
      })
      .where('id', '=', id)
      .where('generation', '=', generation)
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  /**
   * A 2xx, in one statement (its own transaction): the attempt of this generation settled as
   * delivered (unless a replay owns the delivery now, or it was deleted) and the endpoint healthy,
   * its failure streak over. The common outcome costs one round trip instead of a transaction's four.
   */
  async settleDelivered(
    id: string,
    generation: number,
    webhookId: string,
    at: Date,
    responseStatus: number,
  ): Promise<void> {
    await this.db
      .with('d', (db) =>
        db
          .updateTable('webhook_deliveries')
          .set({
            status: 'delivered',
            last_response_status: responseStatus,
            last_error: null,
            next_attempt_at: null,
            delivered_at: at,
            updated_at: at,
          })
          .where('id', '=', id)
          .where('generation', '=', generation)
          .returning('id'),
      )
      .updateTable('webhook_subscriptions')
      .set({ failing_since: null, last_success_at: at })
      .where('id', '=', webhookId)
      .execute();
  }

  /** A delivery whose endpoint was disabled before its attempt: failed, not retried. */
  async failIfDisabled(id: string, generation: number, at: Date): Promise<void> {
    await this.db
      .updateTable('webhook_deliveries as d')
      .set({ status: 'failed', last_error: DISABLED_ERROR, next_attempt_at: null, updated_at: at })
      .where('d.id', '=', id)
      .where('d.generation', '=', generation)
      .where('d.status', '=', 'pending')
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom('webhook_subscriptions as s')
            .select(sql`1`.as('one'))
            .whereRef('s.id', '=', 'd.webhook_id')
            .where('s.enabled', '=', false),
        ),
      )
      .execute();
  }

  /** Every pending delivery of a disabled endpoint: failed, their scheduled attempts find nothing. */
  async failPending(tx: Tx, webhookId: string, at: Date): Promise<void> {
    await tx
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', last_error: DISABLED_ERROR, next_attempt_at: null, updated_at: at })
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
