import { sql, type Selectable } from 'kysely';
import type { Db, Tx } from '../db/index.js';
import type { EventsTable } from '../db/types.js';
import { Statement } from '../db/prepared.js';
import { isoTime } from '../db/sql-text.js';
import { EVENT_NAMES } from './catalogue.js';

/**
 * The channel that wakes the gateway's tail in other processes once events are committed (no payload).
 * Writers do not notify in their transaction: PostgreSQL makes every notifying transaction wait for
 * the previous one's commit, so a NOTIFY per change would queue every change of the cluster behind one
 * another. The process that wrote rings it after commit, for many commits at once (src/db/doorbell.ts).
 */
export const EVENTS_CHANNEL = 'atende_events';

/** The channel that wakes the webhook delivery workers once deliveries are committed (no payload). */
export const WEBHOOKS_CHANNEL = 'atende_webhooks';

/** An event as the gateway's tail sends it: the envelope's fields and its rooms. */
export interface TailRow extends EventRow {
  rooms: string[];
}

/** How many events one tail read takes, at most. */
export const TAIL_BATCH = 500;

// Read by the gateway's tail: the next events of every account, in seq order, up to a settled seq.
const tailAfter =
  Statement.prepared<TailRow>(`SELECT account_id, seq, id, event, schema_version, occurred_at, rooms, data
FROM events WHERE seq > $1::bigint AND seq <= $2::bigint ORDER BY seq LIMIT ${TAIL_BATCH}`);

/**
 * The CTEs that write an account's events and the webhook deliveries its enabled subscriptions are
 * owed (events of the catalogue only: the gateway's own entries, ACCESS_CHANGE, are never delivered),
 * for a statement that also makes the change (`gate`: a CTE whose one row means the change was made;
 * without one the events are written unconditionally). `events` is JSON from EventBuffer.json: each
 * event's seq is the column's default, atende_event_seq() (the writer registers, then takes the number,
 * migration 019), in the order given; a `stamp` path in an event's data gets the transaction's time
 * (`now()`, what the change's own timestamps hold). A bot's endpoint (`bot_id`) is owed only the events
 * sent to its room (`bot:<id>`: those of the conversations it holds, and the end of its hold). The
 * statement reads `ev` (account_id, seq) and `wd`.
 */
export function eventWritesSql(p: { account: string; events: string; names: string; gate?: string }): string {
  return `evt AS (
  SELECT clock_timestamp() AS at
), ev AS (
  INSERT INTO events (account_id, id, event, schema_version, occurred_at, rooms, audience, data)
  SELECT ${p.account}, x.id, x.event, x.schema_version, evt.at, x.rooms, x.audience,
         CASE WHEN x.stamp IS NULL THEN x.data ELSE jsonb_set(x.data, x.stamp, to_jsonb(${isoTime('now()')})) END
  FROM ${p.gate ? `${p.gate}, ` : ''}evt, jsonb_to_recordset(${p.events})
    AS x(id uuid, event text, schema_version int, rooms text[], audience text[], data jsonb, stamp text[])
  RETURNING account_id, seq, event, rooms
), wd AS (
  INSERT INTO webhook_deliveries (id, account_id, webhook_id, event_seq)
  SELECT gen_random_uuid(), ev.account_id, s.id, ev.seq
  FROM ev JOIN webhook_subscriptions s ON s.account_id = ev.account_id
  WHERE s.enabled AND (ev.event = ANY(s.events) OR '*' = ANY(s.events)) AND ev.event = ANY(${p.names})
    AND (s.bot_id IS NULL OR 'bot:' || s.bot_id = ANY(ev.rooms))
  RETURNING 1
)`;
}

/** What a statement built with `eventWritesSql` reads back: the last seq written and whether deliveries were made. */
export const EVENT_WRITES_RESULT =
  '(SELECT max(seq) FROM ev) AS last_seq, EXISTS (SELECT 1 FROM wd) AS deliveries';

/**
 * Which events of the log are a conversation's activity (its timeline's lines, kept
 * `ATENDE_ACTIVITY_RETENTION_DAYS`): every chat event but `chat.new` and `chat.update`. Written as the
 * predicate of migration 044's partial indexes, which a statement must repeat to use them.
 */
export const ACTIVITY_EVENTS_SQL = "event LIKE 'chat.%' AND event NOT IN ('chat.new', 'chat.update')";

/** The catalogue's names, the parameter `eventWritesSql` takes as `names`. */
export const DELIVERABLE_EVENTS = EVENT_NAMES;

// Every event-writing transaction's last statement, so it goes out prepared: parsed and planned once
// per connection instead of for every change (see EventsRepo.append).
const appendEvents = Statement.prepared<{ last_seq: number | null; deliveries: boolean }>(
  `WITH ${eventWritesSql({ account: '$1::text', events: '$2::jsonb', names: '$3::text[]' })}
SELECT ${EVENT_WRITES_RESULT}`,
);

// One step of a reader's horizon (src/events/horizon.ts).
const horizonStep = Statement.prepared<{
  settled: number | null;
  read_seq: number | null;
  next_seq: number | null;
  next_writers: string[] | null;
}>('SELECT settled, read_seq, next_seq, next_writers FROM atende_event_horizon($1::bigint, $2::text[])');

/** What one step of the horizon found (EventHorizon). */
export interface HorizonStep {
  /** A seq up to which every event is settled (committed or never to be), when this step found one. */
  settled: number | null;
  /** The sequence's last value, when this step read one. */
  read: number | null;
  /** The candidate waiting for its writers, for the next step. */
  next: { seq: number; writers: string[] } | null;
}

/** A stored event, as an envelope is made of it. */
export type EventRow = Pick<
  Selectable<EventsTable>,
  'id' | 'event' | 'schema_version' | 'seq' | 'occurred_at' | 'account_id' | 'data'
>;

export class EventsRepo {
  constructor(private readonly db: Db) {}

  /**
   * Appends events (EventBuffer.json) to the account's log in one statement with their webhook
   * deliveries (`eventWritesSql`). Seqs come from one sequence; no row is shared with other writers,
   * so concurrent changes of an account do not wait for each other here. Answers the last seq written
   * and whether deliveries were created (the rows are the delivery queue, due at once:
   * src/modules/webhooks/webhooks.worker.ts).
   */
  async append(
    tx: Tx,
    accountId: string,
    eventsJson: string,
  ): Promise<{ last: number; deliveries: boolean }> {
    const [row] = await appendEvents.execute(tx, [accountId, eventsJson, DELIVERABLE_EVENTS]);
    if (!row || row.last_seq === null) throw new Error(`no event recorded for account ${accountId}`);
    return { last: Number(row.last_seq), deliveries: row.deliveries };
  }

  /** One step of the horizon, given the candidate the previous step left pending (src/events/horizon.ts). */
  async horizonStep(pending: { seq: number; writers: string[] } | null): Promise<HorizonStep> {
    const [row] = await horizonStep.execute(this.db, [pending?.seq ?? null, pending?.writers ?? null]);
    if (!row) throw new Error('atende_event_horizon answered no row');
    return {
      settled: row.settled === null ? null : Number(row.settled),
      read: row.read_seq === null ? null : Number(row.read_seq),
      next: row.next_seq === null ? null : { seq: Number(row.next_seq), writers: row.next_writers ?? [] },
    };
  }

  /**
   * Events after `after`, up to `upTo` (a settled seq: EventHorizon), whose audience meets `tags`, in
   * seq order. At most `scan` rows of the log are looked at (a primary-key range), so a user who may
   * see little of a busy account still costs a bounded read; `scannedTo` is how far the read went: the
   * last seq looked at when the page or the scan window filled, else `upTo` (the account has no other
   * event up to it).
   */
  async page(
    accountId: string,
    after: number,
    upTo: number,
    tags: string[],
    limit: number,
    scan: number,
  ): Promise<{ rows: EventRow[]; scannedTo: number; complete: boolean }> {
    // The page and the window's extent in one statement, so one snapshot.
    const { rows } = await sql<EventRow & { scanned_to: number | null; scanned: number }>`
      WITH w AS (
        SELECT * FROM events WHERE account_id = ${accountId} AND seq > ${after} AND seq <= ${upTo}
        ORDER BY seq LIMIT ${scan}
      )
      SELECT p.account_id, p.seq, p.id, p.event, p.schema_version, p.occurred_at, p.data, m.scanned_to, m.scanned
      FROM (SELECT max(seq) AS scanned_to, count(*)::int AS scanned FROM w) AS m
      LEFT JOIN LATERAL (
        SELECT * FROM w WHERE w.audience && ${tags}::text[] ORDER BY seq LIMIT ${limit}
      ) AS p ON true
      ORDER BY p.seq`.execute(this.db);
    const page: EventRow[] = [];
    for (const { scanned_to: _scannedTo, scanned: _scanned, ...row } of rows)
      if (row.seq !== null) page.push(row);
    const last = page.at(-1)?.seq;
    if (page.length === limit && last !== undefined)
      return { rows: page, scannedTo: Number(last), complete: false };
    const first = rows[0];
    if (first && first.scanned >= scan && first.scanned_to !== null) {
      return { rows: page, scannedTo: Number(first.scanned_to), complete: false };
    }
    return { rows: page, scannedTo: upTo, complete: true };
  }

  /** The next events (at most TAIL_BATCH) of every account after `after` and up to `upTo`, in seq order. */
  async tail(after: number, upTo: number): Promise<TailRow[]> {
    return tailAfter.execute(this.db, [after, upTo]);
  }

  /**
   * Where the tail of a gateway starting to send events for everyone stands: the seq recorded by the
   * previous sender, and the seqs of the last events written more than `olderThanMs` ago and more than
   * `recentMs` ago (0 if none) — found through the time index from the newest, so only recent rows are read.
   */
  async tailStart(
    olderThanMs: number,
    recentMs: number,
  ): Promise<{ stored: number; older: number; recent: number }> {
    const { rows } = await sql<{ stored: number | null; older: number | null; recent: number | null }>`
      SELECT (SELECT published_seq FROM event_tail) AS stored,
             (SELECT max(seq) FROM (
                SELECT seq FROM events
                WHERE occurred_at < clock_timestamp() - ${olderThanMs} * interval '1 millisecond'
                ORDER BY occurred_at DESC LIMIT 100) AS o) AS older,
             (SELECT max(seq) FROM (
                SELECT seq FROM events
                WHERE occurred_at < clock_timestamp() - ${recentMs} * interval '1 millisecond'
                ORDER BY occurred_at DESC LIMIT 100) AS r) AS recent`.execute(this.db);
    const row = rows[0];
    return {
      stored: Number(row?.stored ?? 0),
      older: Number(row?.older ?? 0),
      recent: Number(row?.recent ?? 0),
    };
  }

  /** Records how far events were sent; the cursor never moves back. */
  async storeCursor(seq: number): Promise<void> {
    await sql`
      INSERT INTO event_tail (id, published_seq) VALUES (true, ${seq})
      ON CONFLICT (id) DO UPDATE SET published_seq = greatest(event_tail.published_seq, excluded.published_seq)`.execute(
      this.db,
    );
  }

  /**
   * Deletes a batch of events older than the cutoff: conversations' activity events (`activity`) or
   * the others, each through its own index (migration 044), so neither walks over the other's rows
   * kept longer; how many went.
   */
  async deleteOlderThan(cutoff: Date, batch: number, activity: boolean): Promise<number> {
    const which = activity ? sql.raw(ACTIVITY_EVENTS_SQL) : sql.raw(`NOT (${ACTIVITY_EVENTS_SQL})`);
    const res = await sql<{ n: number }>`
      WITH gone AS (
        DELETE FROM events WHERE ctid = ANY(ARRAY(
          SELECT ctid FROM events WHERE occurred_at < ${cutoff} AND ${which} LIMIT ${batch}
        ))
        RETURNING 1
      )
      SELECT count(*)::int AS n FROM gone`.execute(this.db);
    return res.rows[0]?.n ?? 0;
  }
}
