import { sql, type Kysely } from 'kysely';

/**
 * Shorter holds on the rows every change of an account shares, which made its changes queue behind
 * each other (transfers especially):
 * - The per-account counter moves from `accounts.event_seq` to a table of its own. Every
 *   event-writing transaction updates it, and every insert into a table with a foreign key to
 *   `accounts` (chats, transfers, notifications, events…) takes a key-share lock on the account's
 *   row: on one row, the two made PostgreSQL create a multixact for each such insert while the
 *   counter was held. Nothing references `event_seqs`, so its row is only ever the counter.
 * - `events_audience_idx` goes: `GET /api/events` filters the audience on a bounded primary-key
 *   window of the log (EventsRepo.page), never through this index, so it cost every event insert
 *   (several GIN entries, and now and then a pending-list clean-up while the counter was held) and
 *   served no read.
 * - The list totals' counters (`chat_counts`) are kept at commit: the trigger becomes a deferred
 *   constraint trigger. A counter row is shared by every change that moves chats into or out of its
 *   combination of filters; taken at the chat's UPDATE, it was held through every later statement
 *   and round trip of the transaction, and concurrent transfers queued on it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE event_seqs (
  account_id text PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  seq bigint NOT NULL
);
INSERT INTO event_seqs (account_id, seq) SELECT id, event_seq FROM accounts;
ALTER TABLE accounts DROP COLUMN event_seq;
DROP INDEX events_audience_idx;
DROP TRIGGER chats_count_trigger ON chats;
CREATE CONSTRAINT TRIGGER chats_count_trigger
AFTER INSERT OR DELETE OR UPDATE OF account_id, status, channel_id, team_id, queue, user_id ON chats
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW EXECUTE FUNCTION chat_counts_apply();
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DROP TRIGGER chats_count_trigger ON chats;
CREATE TRIGGER chats_count_trigger
AFTER INSERT OR DELETE OR UPDATE OF account_id, status, channel_id, team_id, queue, user_id ON chats
FOR EACH ROW EXECUTE FUNCTION chat_counts_apply();
CREATE INDEX events_audience_idx ON events USING gin (audience);
ALTER TABLE accounts ADD COLUMN event_seq bigint NOT NULL DEFAULT 0;
UPDATE accounts a SET event_seq = s.seq FROM event_seqs s WHERE s.account_id = a.id;
DROP TABLE event_seqs;
`.execute(db);
}
