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
   * Appends events to the account's log in one statement: reserves their seqs (the UPDATE holds the
   * account row until commit, so the account's event-writing transactions commit in seq order), writes
   * them, and creates the webhook deliveries the account's enabled subscriptions are owed. Callers run
   * it last, after their own row locks, so the account row is held for this statement and the commit
   * only, and locks are taken in the same order everywhere. Answers the first seq, the time written
   * (`occurred_at`), and the deliveries, whose jobs the caller queues in the same transaction.
   */
  async append(
    tx: Tx,
    accountId: string,
    events: readonly {
      id: string;
      event: string;
      schema_version: number;
      rooms: string[];
      audience: string[];
      data: Record<string, unknown>;
    }[],
  ): Promise<{ first: number; occurredAt: Date; deliveries: { id: string; webhookId: string }[] }> {
    const rows = events.map((e, i) => ({ ...e, ord: i }));
    const { rows: out } = await sql<{
      last: number;
      now: Date;
      deliveries: { id: string; webhookId: string }[];
    }>`
      WITH r AS (
        UPDATE accounts SET event_seq = event_seq + ${events.length} WHERE id = ${accountId}
        RETURNING event_seq AS last, clock_timestamp() AS now
      ), ev AS (
        INSERT INTO events (account_id, seq, id, event, schema_version, occurred_at, rooms, audience, data)
        SELECT ${accountId}, r.last - ${events.length} + 1 + x.ord, x.id, x.event, x.schema_version, r.now,
               x.rooms, x.audience, x.data
        FROM r, jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          AS x(ord int, id uuid, event text, schema_version int, rooms text[], audience text[], data jsonb)
        RETURNING account_id, seq, event
      ), wd AS (
        INSERT INTO webhook_deliveries (id, account_id, webhook_id, event_seq)
        SELECT gen_random_uuid(), ev.account_id, s.id, ev.seq
        FROM ev JOIN webhook_subscriptions s ON s.account_id = ev.account_id
        WHERE s.enabled AND (ev.event = ANY(s.events) OR '*' = ANY(s.events))
        RETURNING id, webhook_id
      )
      SELECT r.last, r.now,
             coalesce((SELECT json_agg(json_build_object('id', wd.id, 'webhookId', wd.webhook_id)) FROM wd),
                      '[]'::json) AS deliveries
      FROM r`.execute(tx);
    const row = out[0];
    if (!row) throw new Error(`account ${accountId} not found while recording events`);
    return { first: Number(row.last) - events.length + 1, occurredAt: row.now, deliveries: row.deliveries };
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
