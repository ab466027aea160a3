import { sql, type Kysely } from 'kysely';

/** The event log (gateway, resync feed, webhooks), notifications and drafts. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
-- Per-account event counter, incremented (UPDATE … RETURNING) inside the transaction of the change:
-- the row lock orders an account's events by commit, so a reader of "seq > N" never sees a smaller
-- seq commit after a larger one (a global sequence would allow that, and readers would skip it).
ALTER TABLE accounts ADD COLUMN event_seq bigint NOT NULL DEFAULT 0;

CREATE TABLE events (
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  id uuid NOT NULL,
  event text NOT NULL,
  schema_version integer NOT NULL,
  occurred_at timestamptz NOT NULL,
  -- Socket.IO rooms it was published to.
  rooms text[] NOT NULL,
  -- Who may read it back (GET /api/events): user:<id>, team:<id> and the read_all tag.
  audience text[] NOT NULL,
  data jsonb NOT NULL,
  PRIMARY KEY (account_id, seq)
);
CREATE INDEX events_audience_idx ON events USING gin (audience);
-- Retention deletes by age.
CREATE INDEX events_occurred_at_idx ON events (occurred_at);

CREATE TABLE notifications (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  kind text NOT NULL,
  data jsonb NOT NULL,
  read_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX notifications_user_idx ON notifications (user_id, created_at DESC, id DESC);

CREATE TABLE drafts (
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  chat_id text NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  text text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, chat_id)
);
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DROP TABLE drafts;
DROP TABLE notifications;
DROP TABLE events;
ALTER TABLE accounts DROP COLUMN event_seq;
`.execute(db);
}
