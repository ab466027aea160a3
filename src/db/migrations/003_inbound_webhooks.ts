import { sql, type Kysely } from 'kysely';

/** Provider webhook deliveries waiting for (or done with) processing, and message status history. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
-- One verified webhook delivery, stored before answering 200 so a crash never loses it; the
-- inbound-webhook job turns it into chats, messages and statuses, then sets processed_at.
CREATE TABLE inbound_webhook_events (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  channel_id text NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
  provider text NOT NULL,
  body jsonb NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz
);
CREATE INDEX inbound_webhook_events_channel_idx ON inbound_webhook_events (channel_id, received_at DESC);
CREATE INDEX inbound_webhook_events_pending_idx ON inbound_webhook_events (received_at)
  WHERE processed_at IS NULL;

-- Every provider status seen for a message sent on a channel, keyed by the provider's message id so
-- a status that arrives before its message is known is kept too. Redeliveries hit the primary key.
CREATE TABLE message_status_events (
  channel_id text NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
  provider_message_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('sent', 'delivered', 'read', 'failed')),
  -- {code, message} of a failure
  error jsonb,
  occurred_at timestamptz NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (channel_id, provider_message_id, status)
);
`.execute(db);
}
