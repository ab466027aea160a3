import { sql, type Kysely } from 'kysely';

/**
 * Bots (docs/adr/0087-bots.md): an account's programs that hold new conversations of a channel in
 * queue `Automação`, hear their events through a webhook subscription of their own and answer through
 * the Channel API with an account key of their own.
 *
 * - `bots`: name, reply deadline, the key it acts with. Deleting one keeps the row (`deleted_at`): the
 *   messages it wrote keep naming it. Names are unique among the account's bots that are not deleted.
 * - `webhook_subscriptions.bot_id`: the bot's endpoint is a subscription like any other (signatures,
 *   retries, delivery log) that receives only the events of the conversations the bot holds.
 * - `channels.bot_id`, `channels.bot_hours`: a channel's routing; `bot_hours` is business hours'
 *   shape (`timeZone`, `weekly`, `holidays`), null: at any time.
 * - `chats.bot_id`: the bot holding the conversation; `chats.bot_due_at`: when the bot's answer to the
 *   customer is overdue, read by the worker that hands the conversation to the channel's team (its
 *   partial index holds only the conversations waiting for a bot).
 * - `messages.bot_id` (migration 054) gets its foreign key, NOT VALID: every existing row is null, and
 *   validating would read the whole table; new rows are checked.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE bots (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
  api_key_id text NOT NULL UNIQUE REFERENCES account_api_keys(id),
  reply_timeout_seconds int NOT NULL DEFAULT 60 CHECK (reply_timeout_seconds BETWEEN 5 AND 3600),
  created_by text REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX bots_account_name_idx ON bots (account_id, lower(name)) WHERE deleted_at IS NULL;
CREATE INDEX bots_account_idx ON bots (account_id, created_at, id) WHERE deleted_at IS NULL;

ALTER TABLE webhook_subscriptions ADD COLUMN bot_id text REFERENCES bots(id);
CREATE UNIQUE INDEX webhook_subscriptions_bot_idx ON webhook_subscriptions (bot_id) WHERE bot_id IS NOT NULL;

ALTER TABLE channels
  ADD COLUMN bot_id text REFERENCES bots(id),
  ADD COLUMN bot_hours jsonb;
CREATE INDEX channels_bot_idx ON channels (bot_id) WHERE bot_id IS NOT NULL;

ALTER TABLE chats
  ADD COLUMN bot_id text REFERENCES bots(id),
  ADD COLUMN bot_due_at timestamptz;
CREATE INDEX chats_bot_idx ON chats (bot_id) WHERE bot_id IS NOT NULL;
CREATE INDEX chats_bot_due_idx ON chats (bot_due_at) WHERE bot_due_at IS NOT NULL;

ALTER TABLE messages ADD CONSTRAINT messages_bot_id_fkey FOREIGN KEY (bot_id) REFERENCES bots(id) NOT VALID;
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
ALTER TABLE messages DROP CONSTRAINT messages_bot_id_fkey;
ALTER TABLE chats DROP COLUMN bot_due_at, DROP COLUMN bot_id;
ALTER TABLE channels DROP COLUMN bot_hours, DROP COLUMN bot_id;
ALTER TABLE webhook_subscriptions DROP COLUMN bot_id;
DROP TABLE bots;
`.execute(db);
}
