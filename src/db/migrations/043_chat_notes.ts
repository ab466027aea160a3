import { sql, type Kysely } from 'kysely';

/**
 * Private notes in a conversation and the users they mention (docs/adr/0074-private-notes.md).
 *
 * - `chat_notes` is a table of its own, not `messages` with another origin: everything that sends,
 *   summarizes or publishes a message (the send queue, the list's last message, `message.*` events and
 *   webhooks, the Channel API's shapes) reads `messages`, so a note can reach none of them.
 * - `note_mentions`: one row per user a note mentions, with the notification that told them; its read
 *   state is that notification's (`notifications.read_at`), so the bell and "Menções" agree. Listed
 *   newest first per user (`note_mentions_user_idx`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE chat_notes (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  chat_id text NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
  user_id text REFERENCES users(id) ON DELETE SET NULL,
  text text NOT NULL,
  mentions text[] NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chat_notes_chat_idx ON chat_notes (chat_id, created_at DESC, id DESC);

CREATE TABLE note_mentions (
  note_id text NOT NULL REFERENCES chat_notes(id) ON DELETE CASCADE,
  user_id text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  chat_id text NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
  notification_id text NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (note_id, user_id)
);
CREATE INDEX note_mentions_user_idx ON note_mentions (user_id, created_at DESC, note_id DESC);
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DROP TABLE note_mentions;
DROP TABLE chat_notes;
`.execute(db);
}
