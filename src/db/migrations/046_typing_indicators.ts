import { sql, type Kysely } from 'kysely';

/**
 * WhatsApp's typing indicator, shown to the customer while an agent types: it is sent with a read
 * receipt of the customer's latest message, on channels that send read receipts. One row per chat
 * holds when the last one was claimed, so every node together sends at most one per chat per interval
 * (the claim is one conditional upsert); `message_id` is the customer's message it was sent with.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE typing_indicators (
  chat_id text PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
  account_id text NOT NULL,
  message_id text NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  claimed_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz,
  error jsonb
);`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE typing_indicators;`.execute(db);
}
