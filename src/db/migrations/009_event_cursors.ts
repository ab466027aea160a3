import { sql, type Kysely } from 'kysely';

/**
 * Live events are sent by the gateway that tails the event log (src/events/tail.ts), not by the
 * process that wrote them. With several gateway nodes one of them tails at a time and records here,
 * per account, the last seq it has sent, so the node taking over continues from there. Existing
 * accounts start at their current seq: what was written before the upgrade has been sent already.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE event_cursors (
  account_id text PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  published_seq bigint NOT NULL
);
INSERT INTO event_cursors (account_id, published_seq) SELECT id, event_seq FROM accounts;
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE event_cursors;`.execute(db);
}
