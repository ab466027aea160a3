import { sql, type Kysely } from 'kysely';

/** Outgoing webhooks: per-account subscriptions and the delivery log of each event sent to them. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE webhook_subscriptions (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  url text NOT NULL,
  -- Event names of the catalogue, or '*' for every event.
  events text[] NOT NULL,
  -- Kept as given: every attempt signs its body with it (HMAC), so it cannot be hashed. Never logged,
  -- never returned after the answer that created or rotated it.
  secret text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  -- First failed attempt since the last success; an endpoint failing for the retry window is disabled.
  failing_since timestamptz,
  last_success_at timestamptz,
  disabled_at timestamptz,
  -- 'failing' (disabled by the platform) or 'manual' (PATCH enabled: false).
  disabled_reason text,
  created_by text REFERENCES users(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Every event write looks up the account's subscriptions (the fan-out), and the admin list.
CREATE INDEX webhook_subscriptions_account_idx ON webhook_subscriptions (account_id, created_at DESC, id DESC);

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY,
  account_id text NOT NULL,
  webhook_id text NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
  event_seq bigint NOT NULL,
  -- pending (an attempt is due or running), delivered (2xx) or failed (final).
  status text NOT NULL DEFAULT 'pending',
  attempts integer NOT NULL DEFAULT 0,
  -- Bumped by a replay: a job scheduled for an earlier generation finds nothing to do.
  generation integer NOT NULL DEFAULT 0,
  -- Start of the retry window: the first attempt, or the replay.
  window_started_at timestamptz,
  last_attempt_at timestamptz,
  last_response_status integer,
  last_error text,
  next_attempt_at timestamptz DEFAULT now(),
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- The body is the event itself; the log is kept as long as the event (its retention removes both).
  FOREIGN KEY (account_id, event_seq) REFERENCES events (account_id, seq) ON DELETE CASCADE
);
-- The delivery log, newest first, with and without the status filter.
CREATE INDEX webhook_deliveries_log_idx ON webhook_deliveries (webhook_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_status_idx
  ON webhook_deliveries (webhook_id, status, created_at DESC, id DESC);
-- The cascade from the event log's retention.
CREATE INDEX webhook_deliveries_event_idx ON webhook_deliveries (account_id, event_seq);
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DROP TABLE webhook_deliveries;
DROP TABLE webhook_subscriptions;
`.execute(db);
}
