import { sql } from 'kysely';
import type { Db, Tx } from '../db/index.js';

export interface EventRow {
  account_id: string;
  seq: number;
  id: string;
  event: string;
  schema_version: number;
  occurred_at: Date;
  data: Record<string, unknown>;
}

export class EventsRepo {
  constructor(private readonly db: Db) {}

  /**
   * Reserves `count` seqs of the account's log. The UPDATE holds the account row until commit, so
   * the account's event-writing transactions commit in seq order; callers take it last, after
   * their own row locks, to keep the hold short and the lock order the same everywhere.
   */
  async reserve(tx: Tx, accountId: string, count: number): Promise<{ last: number; now: Date }> {
    const row = await tx
      .updateTable('accounts')
      .set({ event_seq: sql`event_seq + ${count}` })
      .where('id', '=', accountId)
      .returning([sql<number>`event_seq`.as('last'), sql<Date>`clock_timestamp()`.as('now')])
      .executeTakeFirst();
    if (!row) throw new Error(`account ${accountId} not found while recording events`);
    return row;
  }

  /**
   * Writes events, and the webhook deliveries they are owed; answers the deliveries, whose jobs the
   * caller queues in the same transaction.
   */
  async insert(
    tx: Tx,
    rows: {
      account_id: string;
      seq: number;
      id: string;
      event: string;
      schema_version: number;
      occurred_at: Date;
      rooms: string[];
      audience: string[];
      data: Record<string, unknown>;
    }[],
  ): Promise<{ id: string; webhookId: string }[]> {
    if (rows.length === 0) return [];
    // One statement for the events and the webhook deliveries of the account's enabled
    // subscriptions that take them: an account without subscriptions pays no extra round trip.
    const deliveries = await tx
      .with('ev', (db) =>
        db
          .insertInto('events')
          .values(rows.map((r) => ({ ...r, data: JSON.stringify(r.data) })))
          .returning(['account_id', 'seq', 'event']),
      )
      .insertInto('webhook_deliveries')
      .columns(['id', 'account_id', 'webhook_id', 'event_seq'])
      .expression((eb) =>
        eb
          .selectFrom('ev')
          .innerJoin('webhook_subscriptions as s', 's.account_id', 'ev.account_id')
          .select([sql<string>`gen_random_uuid()`.as('id'), 'ev.account_id', 's.id', 'ev.seq'])
          .where('s.enabled', '=', true)
          .where(sql<boolean>`(ev.event = ANY(s.events) OR '*' = ANY(s.events))`),
      )
      .returning(['id', 'webhook_id'])
      .execute();
    return deliveries.map((d) => ({ id: d.id, webhookId: d.webhook_id }));
  }

  async lastSeq(accountId: string): Promise<number> {
    const row = await this.db
      .selectFrom('accounts')
      .select('event_seq')
      .where('id', '=', accountId)
      .executeTakeFirst();
    return row?.event_seq ?? 0;
  }

  /**
   * Events after `after` whose audience meets `tags`, in seq order. At most `scan` rows of the log
   * are looked at (a primary-key range), so a user who may see little of a busy account still costs
   * a bounded read; `scannedTo` is the last seq looked at.
   */
  async page(
    accountId: string,
    after: number,
    tags: string[],
    limit: number,
    scan: number,
  ): Promise<{ rows: EventRow[]; scannedTo: number | null }> {
    const window = this.db
      .selectFrom('events')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('seq', '>', after)
      .orderBy('seq')
      .limit(scan);
    const rows = await this.db
      .selectFrom(window.as('w'))
      .select(['account_id', 'seq', 'id', 'event', 'schema_version', 'occurred_at', 'data'])
      .where(sql<boolean>`w.audience && ${sql.val(tags)}::text[]`)
      .orderBy('seq')
      .limit(limit)
      .execute();
    if (rows.length === limit) return { rows, scannedTo: rows.at(-1)?.seq ?? null };
    const end = await this.db
      .selectFrom(
        this.db
          .selectFrom('events')
          .select('seq')
          .where('account_id', '=', accountId)
          .where('seq', '>', after)
          .orderBy('seq')
          .limit(scan)
          .as('w'),
      )
      .select(sql<number | null>`max(w.seq)`.as('max'))
      .executeTakeFirst();
    return { rows, scannedTo: end?.max ?? null };
  }

  /** Deletes events older than the cutoff, a batch at a time; how many went. */
  async deleteOlderThan(cutoff: Date, batch: number): Promise<number> {
    const res = await sql<{ n: number }>`
      WITH gone AS (
        DELETE FROM events WHERE ctid = ANY(ARRAY(
          SELECT ctid FROM events WHERE occurred_at < ${cutoff} LIMIT ${batch}
        ))
        RETURNING 1
      )
      SELECT count(*)::int AS n FROM gone`.execute(this.db);
    return res.rows[0]?.n ?? 0;
  }
}
