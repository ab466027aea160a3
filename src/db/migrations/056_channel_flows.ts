import { sql, type Kysely } from 'kysely';

/**
 * Built-in flows per channel (docs/adr/0086-built-in-flows.md):
 *
 * - `channel_flows`: one row per channel that has a flow; `settings` is the whole flow (greeting,
 *   menu, texts, timeouts, auto-close, CSAT), checked by the service and read whole with the channel
 *   by its primary key, so it has no other index.
 * - `chat_flows`: what the flow still waits for in a conversation — the customer's choice in the menu
 *   (`menu`, the chat in `Automação`), or their rating after the close (`csat`, the chat closed) —
 *   with when the wait ends (`due_at`): the crash-safe timer the worker claims with SKIP LOCKED.
 *   A rating is looked up by the customer's contact on the channel (`chat_flows_csat_idx`).
 * - `chat_csat`: a conversation's rating (1–5) with the attendant and team it is about; reports read
 *   it per agent or team and period (`chat_csat_user_idx`, `chat_csat_team_idx`).
 * - `chat_transfers.actor_type` gains `flow`: the flow's routing is recorded as a transfer made by
 *   the channel's flow (`actor_id`: the channel).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE channel_flows (
  channel_id text PRIMARY KEY REFERENCES channels(id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  enabled boolean NOT NULL DEFAULT false,
  settings jsonb NOT NULL CHECK (jsonb_typeof(settings) = 'object'),
  updated_by text REFERENCES users(id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE chat_flows (
  chat_id text PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  channel_id text NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
  contact_id text NOT NULL REFERENCES contacts(id) ON DELETE CASCADE,
  stage text NOT NULL CHECK (stage IN ('menu', 'csat')),
  attempts integer NOT NULL DEFAULT 0,
  due_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chat_flows_due_idx ON chat_flows (due_at);
CREATE INDEX chat_flows_csat_idx ON chat_flows (channel_id, contact_id) WHERE stage = 'csat';
CREATE TABLE chat_csat (
  chat_id text PRIMARY KEY REFERENCES chats(id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  channel_id text NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
  team_id text NOT NULL,
  user_id text REFERENCES users(id) ON DELETE SET NULL,
  score smallint NOT NULL CHECK (score BETWEEN 1 AND 5),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chat_csat_user_idx ON chat_csat (account_id, user_id, created_at);
CREATE INDEX chat_csat_team_idx ON chat_csat (account_id, team_id, created_at);
ALTER TABLE chat_transfers DROP CONSTRAINT chat_transfers_actor_type_check;
ALTER TABLE chat_transfers ADD CONSTRAINT chat_transfers_actor_type_check
  CHECK (actor_type IN ('api_key', 'user', 'flow')) NOT VALID;
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DELETE FROM chat_transfers WHERE actor_type = 'flow';
ALTER TABLE chat_transfers DROP CONSTRAINT chat_transfers_actor_type_check;
ALTER TABLE chat_transfers ADD CONSTRAINT chat_transfers_actor_type_check
  CHECK (actor_type IN ('api_key', 'user'));
DROP TABLE chat_csat;
DROP TABLE chat_flows;
DROP TABLE channel_flows;
`.execute(db);
}
