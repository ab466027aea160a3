import { sql, type Selectable } from 'kysely';
import type { Db, Tx } from '../db/index.js';
import type { EventsTable } from '../db/types.js';
import { Statement } from '../db/prepared.js';
import { EVENT_NAMES } from './catalogue.js';

/**
 * The channel every event-writing transaction notifies, with `<account id>:<last seq>` as payload;
 * PostgreSQL delivers a notification only on commit, so a listener reads only committed events.
 */
export const EVENTS_CHANNEL = 'atende_events';

/**
 * The channel an event write notifies when it created webhook deliveries (no payload: PostgreSQL folds
 * a transaction's identical notifications into one); it wakes the delivery workers on commit.
 */
export const WEBHOOKS_CHANNEL = 'atende_webhooks';

/** An event as the gateway's tail sends it: the envelope's fields and its rooms. */
export interface TailRow extends EventRow {
  rooms: string[];
}

/** How many events of one account one tail read takes, at most. */
export const TAIL_BATCH = 500;

// Read on every notification the gateway's tail gets: the next events of each account named, past
// its cursor, by primary key.
const tailAfter = Statement.prepared<TailRow>(`SELECT e.account_id, e.seq, e.id, e.event, e.schema_version,
       e.occurred_at, e.rooms, e.data
FROM unnest($1::text[], $2::bigint[]) AS c(account_id, after)
CROSS JOIN LATERAL (
  SELECT * FROM events WHERE events.account_id = c.account_id AND events.seq > c.after
  ORDER BY events.seq LIMIT ${TAIL_BATCH}
) e`);

// Every event-writing transaction's last statement, so it goes out prepared: parsed and planned once
// per connection instead of for every change (see EventsRepo.append).
const appendEvents = Statement.prepared<{ last: number; now: Date }>(`WITH r AS (
  INSERT INTO event_seqs AS q (account_id, seq) VALUES ($1::text, $2::int)
  ON CONFLICT (account_id) DO UPDATE SET seq = q.seq + excluded.seq
  RETURNING q.seq AS last, clock_timestamp() AS now
), ev AS (
  INSERT INTO events (account_id, seq, id, event, schema_version, occurred_at, rooms, audience, data)
  SELECT $1::text, r.last - $2::int + 1 + x.ord, x.id, x.event, x.schema_version, r.now, x.rooms, x.audience, x.data
  FROM r, jsonb_to_recordset($3::jsonb)
    AS x(ord int, id uuid, event text, schema_version int, rooms text[], audience text[], data jsonb)
  RETURNING account_id, seq, event
), wd AS (
  INSERT INTO webhook_deliveries (id, account_id, webhook_id, event_seq)
  SELECT gen_random_uuid(), ev.account_id, s.id, ev.seq
  FROM ev JOIN webhook_subscriptions s ON s.account_id = ev.account_id
  WHERE s.enabled AND (ev.event = ANY(s.events) OR '*' = ANY(s.events)) AND ev.event = ANY($4::text[])
  RETURNING 1
)
SELECT r.last, r.now
FROM r CROSS JOIN LATERAL (SELECT pg_notify('${EVENTS_CHANNEL}', $1::text || ':' || r.last)) AS n
  LEFT JOIN LATERAL (SELECT pg_notify('${WEBHOOKS_CHANNEL}', '') WHERE EXISTS (SELECT 1 FROM wd)) AS w ON true`);

/** A stored event, as an envelope is made of it. */
export type EventRow = Pick<
  Selectable<EventsTable>,
  'id' | 'event' | 'schema_version' | 'seq' | 'occurred_at' | 'account_id' | 'data'
>;

export class EventsRepo {
  constructor(private readonly db: Db) {}

  /**
   * Appends events to the account's log in one statement: reserves their seqs (the upsert holds the
   * account's `event_seqs` row until commit, so the account's event-writing transactions commit in seq
   * order), writes
   * them, and creates the webhook deliveries the account's enabled subscriptions are owed (events of
   * the catalogue only: the gateway's own entries, ACCESS_CHANGE, are never delivered). Callers run
   * it last, after their own row locks, so the counter row is held for this statement and the commit
   * only, and locks are taken in the same order everywhere. Answers the first seq and the time written
   * (`occurred_at`). It notifies EVENTS_CHANNEL, which the gateway's tail listens to
   * (src/events/tail.ts), and WEBHOOKS_CHANNEL when it created deliveries: the rows are the delivery
   * queue (src/modules/webhooks/webhooks.worker.ts), due at once.
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
  ): Promise<{ first: number; occurredAt: Date }> {
    const rows = events.map((e, i) => ({ ...e, ord: i }));
    const out = await appendEvents.execute(tx, [accountId, events.length, JSON.stringify(rows), EVENT_NAMES]);
    const row = out[0];
    if (!row) throw new Error(`account ${accountId} not found while recording events`);
    return { first: Number(row.last) - events.length + 1, occurredAt: row.now };
  }

  async lastSeq(accountId: string): Promise<number> {
    const row = await this.db
      .selectFrom('event_seqs')
      .select('seq')
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return Number(row?.seq ?? 0);
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
    // The page and the last seq looked at in one statement, so one snapshot: read apart, events
    // committed between the reads would move `scannedTo` past events the page did not see, and the
    // client's cursor would skip them. One row even for an empty page, carrying `scanned_to`.
    const { rows } = await sql<EventRow & { scanned_to: number | null }>`
      WITH w AS (
        SELECT * FROM events WHERE account_id = ${accountId} AND seq > ${after} ORDER BY seq LIMIT ${scan}
      )
      SELECT p.account_id, p.seq, p.id, p.event, p.schema_version, p.occurred_at, p.data, m.scanned_to
      FROM (SELECT max(seq) AS scanned_to FROM w) AS m
      LEFT JOIN LATERAL (
        SELECT * FROM w WHERE w.audience && ${tags}::text[] ORDER BY seq LIMIT ${limit}
      ) AS p ON true
      ORDER BY p.seq`.execute(this.db);
    const page: EventRow[] = [];
    for (const { scanned_to: _scannedTo, ...row } of rows) if (row.seq !== null) page.push(row);
    if (page.length === limit) return { rows: page, scannedTo: page.at(-1)?.seq ?? null };
    return { rows: page, scannedTo: rows[0]?.scanned_to ?? null };
  }

  /** Every account's last seq (`event_seqs`; 0 for an account that has written none). */
  async heads(): Promise<Map<string, number>> {
    const rows = await this.db
      .selectFrom('accounts as a')
      .leftJoin('event_seqs as q', 'q.account_id', 'a.id')
      .select(['a.id', sql<number>`coalesce(q.seq, 0)`.as('seq')])
      .execute();
    return new Map(rows.map((r) => [r.id, Number(r.seq)]));
  }

  /** The next events (at most TAIL_BATCH) of each account past its cursor, in any order. */
  async tail(cursors: ReadonlyMap<string, number>): Promise<TailRow[]> {
    return tailAfter.execute(this.db, [[...cursors.keys()], [...cursors.values()]]);
  }

  /**
   * Where the tail of a gateway starting to send events for everyone stands, per account: the last
   * seq, the seq recorded by the previous sender (null if none), and the last seq written more than
   * `olderThanMs` ago (0 if none) — scanned back from the newest event, so it reads only the recent ones.
   */
  async tailStart(
    olderThanMs: number,
  ): Promise<{ accountId: string; head: number; stored: number | null; older: number }[]> {
    const { rows } = await sql<{ id: string; head: number; stored: number | null; older: number }>`
      SELECT a.id, coalesce((SELECT q.seq FROM event_seqs q WHERE q.account_id = a.id), 0) AS head,
             c.published_seq AS stored,
             coalesce((SELECT e.seq FROM events e
                       WHERE e.account_id = a.id
                         AND e.occurred_at < clock_timestamp() - ${olderThanMs} * interval '1 millisecond'
                       ORDER BY e.seq DESC LIMIT 1), 0) AS older
      FROM accounts a LEFT JOIN event_cursors c ON c.account_id = a.id`.execute(this.db);
    return rows.map((r) => ({
      accountId: r.id,
      head: Number(r.head),
      stored: r.stored === null ? null : Number(r.stored),
      older: Number(r.older),
    }));
  }

  /** Records how far events were sent, per account; a cursor never moves back. */
  async storeCursors(cursors: ReadonlyMap<string, number>): Promise<void> {
    if (cursors.size === 0) return;
    await sql`
      INSERT INTO event_cursors (account_id, published_seq)
      SELECT u.account_id, u.seq
      FROM unnest(${[...cursors.keys()]}::text[], ${[...cursors.values()]}::bigint[]) AS u(account_id, seq)
      WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.id = u.account_id)
      ON CONFLICT (account_id) DO UPDATE
        SET published_seq = greatest(event_cursors.published_seq, excluded.published_seq)`.execute(this.db);
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
