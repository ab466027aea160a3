import { sql, type Kysely } from 'kysely';

/**
 * Notification preferences: per user, which moments (a new conversation in their teams' queues, a new
 * customer message in their conversations, a conversation transferred to them, a mention) the console
 * announces with a sound and with a desktop notification. One row per user who changed them; a user
 * without a row has the defaults. Kept as one JSON document read with the defaults filled in, so a new
 * kind of moment needs no migration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE notification_preferences (
  user_id text PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  preferences jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE notification_preferences;`.execute(db);
}
