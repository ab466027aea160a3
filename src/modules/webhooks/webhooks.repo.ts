import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { WebhookDeliveryStatus } from '../../db/types.js';
import { WEBHOOKS_CHANNEL } from '../../events/events.repo.js';

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
  bot_id: string | null;
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
  'bot_id',
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

  /** The account's own subscriptions (bots' endpoints count against the bots' limit). */
  async count(accountId: string): Promise<number> {
    const row = await this.db
      .selectFrom('webhook_subscriptions')
      .select(sql<number>`count(*)::int8`.as('n'))
      .where('account_id', '=', accountId)
      .where('bot_id', 'is', null)
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

  /** `tx`: within the transaction that creates the bot the endpoint belongs to (`bot_id`). */
  async insert(
    row: {
      id: string;
      account_id: string;
      url: string;
      events: string[];
      secret: string;
      created_by: string;
      bot_id?: string;
    },
    tx: Db | Tx = this.db,
  ): Promise<WebhookRow> {
    return tx
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

  /** A bot's endpoint, by the bot. */
  async findByBot(botId: string, tx: Db | Tx = this.db): Promise<WebhookRow | undefined> {
    return tx
      .selectFrom('webhook_subscriptions')
      .select(webhookColumns)
      .where('bot_id', '=', botId)
      .executeTakeFirst();
  }

  /** The endpoints of these bots. */
  async findByBots(botIds: readonly string[]): Promise<WebhookRow[]> {
    if (botIds.length === 0) return [];
    return this.db
      .selectFrom('webhook_subscriptions')
      .select(webhookColumns)
      .where('bot_id', 'in', botIds)
      .execute();
  }

  async delete(accountId: string, id: string, tx: Db | Tx = this.db): Promise<boolean> {
    const res = await tx
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
