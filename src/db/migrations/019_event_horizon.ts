import { sql, type Kysely } from 'kysely';

/**
 * Event seqs without a lock shared by an account's writers
 * (docs/adr/0045-event-log-without-account-hold.md):
 * - One sequence numbers every account's events. A seq is still unique and increasing within an
 *   account (with gaps), but a transaction no longer holds the account's counter row from its events
 *   statement to the end of its commit, so an account's changes no longer commit one after another.
 * - A number taken from a sequence may commit after a larger one, so readers must not go past a
 *   number still in flight. Every writer registers before it takes a number: `atende_event_seq()`
 *   (the column's default) takes a shared transaction-level advisory lock, which writers never wait
 *   on, and releases it with its transaction. `atende_event_horizon()` gives readers the point up to
 *   which every number is settled (committed or never to be): the sequence's last value, once every
 *   writer registered when it was read has ended (see EventHorizon, src/events/horizon.ts).
 * - The gateway's tail reads the whole log in seq order (`events_seq_idx`) from one cursor
 *   (`event_tail`), instead of one cursor per account.
 *
 * Seqs written before keep their per-account values; the sequence starts above every one of them, so
 * each account's seqs keep increasing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE SEQUENCE events_seq;
SELECT CASE WHEN s.top > 0 THEN setval('events_seq', s.top, true) END
FROM (SELECT greatest(coalesce((SELECT max(seq) FROM events), 0),
                      coalesce((SELECT max(seq) FROM event_seqs), 0)) AS top) AS s;

-- The key (classid, objid) of the writers' shared lock; objsubid is 2 for two-integer keys.
CREATE FUNCTION atende_event_seq() RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  -- Registered before the number is taken: a reader that saw the number sees the registration.
  PERFORM pg_advisory_xact_lock_shared(1635020388, 1);
  RETURN nextval('events_seq');
END
$$;
ALTER TABLE events ALTER COLUMN seq SET DEFAULT atende_event_seq();

-- One step of a reader's horizon. Given the pending candidate (a seq and the writers registered just
-- after it was read), answers:
-- - settled: the candidate, once none of its writers is still running (else null);
-- - read_seq: the sequence's last value, when this step read one (a new candidate);
-- - next_seq/next_writers: the candidate to pass to the next step (null when none is pending).
-- A candidate is kept until it settles, so a log that is never idle cannot starve it; one with no
-- writer is settled at once. Each query in the function sees what committed before it, so the check
-- comes after the commits it counts on.
CREATE FUNCTION atende_event_horizon(pending_seq bigint, pending_writers text[],
                                     OUT settled bigint, OUT read_seq bigint,
                                     OUT next_seq bigint, OUT next_writers text[])
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  db oid := (SELECT oid FROM pg_database WHERE datname = current_database());
  running text[];
BEGIN
  IF pending_seq IS NOT NULL THEN
    running := ARRAY(
      SELECT l.virtualtransaction FROM pg_locks l
      WHERE l.locktype = 'advisory' AND l.database = db AND l.classid = 1635020388 AND l.objid = 1
        AND l.objsubid = 2 AND l.virtualtransaction = ANY (pending_writers));
    IF cardinality(running) > 0 THEN
      next_seq := pending_seq;
      next_writers := running;
      RETURN;
    END IF;
    settled := pending_seq;
  END IF;
  read_seq := coalesce(pg_sequence_last_value('events_seq'), 0);
  next_writers := ARRAY(
    SELECT l.virtualtransaction FROM pg_locks l
    WHERE l.locktype = 'advisory' AND l.database = db AND l.classid = 1635020388 AND l.objid = 1
      AND l.objsubid = 2);
  IF cardinality(next_writers) = 0 THEN
    settled := read_seq;
    next_writers := NULL;
  ELSE
    next_seq := read_seq;
  END IF;
END
$$;

CREATE INDEX events_seq_idx ON events (seq);

CREATE TABLE event_tail (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  published_seq bigint NOT NULL
);
INSERT INTO event_tail (published_seq) SELECT coalesce(pg_sequence_last_value('events_seq'), 0);
DROP TABLE event_cursors;
DROP TABLE event_seqs;
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE event_seqs (
  account_id text PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  seq bigint NOT NULL
);
INSERT INTO event_seqs (account_id, seq)
SELECT a.id, coalesce((SELECT max(e.seq) FROM events e WHERE e.account_id = a.id), 0) FROM accounts a;
CREATE TABLE event_cursors (
  account_id text PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  published_seq bigint NOT NULL
);
INSERT INTO event_cursors (account_id, published_seq) SELECT account_id, seq FROM event_seqs;
DROP TABLE event_tail;
DROP INDEX events_seq_idx;
ALTER TABLE events ALTER COLUMN seq DROP DEFAULT;
DROP FUNCTION atende_event_horizon(bigint, text[]);
DROP FUNCTION atende_event_seq();
DROP SEQUENCE events_seq;
`.execute(db);
}
