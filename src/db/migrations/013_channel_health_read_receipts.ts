import { sql, type Kysely } from 'kysely';

/**
 * Channel health and read receipts.
 *
 * - `channels.health`: `unhealthy` once the provider refused the channel's credentials (WhatsApp's
 *   Graph error 190, an expired or revoked access token), with the provider's reason and since when;
 *   back to `ok` when an admin stores a new token. Sends on an unhealthy channel fail at once.
 * - `channels.send_read_receipts`: whether an agent reading a chat tells the provider (the customer's
 *   blue ticks). Off by default: it is a choice of the business.
 * - `read_receipts`: one row per inbound message a receipt was queued for, so it is queued at most once.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    ALTER TABLE channels
      ADD COLUMN health text NOT NULL DEFAULT 'ok' CHECK (health IN ('ok', 'unhealthy')),
      ADD COLUMN health_reason jsonb,
      ADD COLUMN unhealthy_since timestamptz,
      ADD COLUMN send_read_receipts boolean NOT NULL DEFAULT false;
  `.execute(db);
  await sql`
    CREATE TABLE read_receipts (
      message_id text PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
      account_id text NOT NULL,
      channel_id text NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
      queued_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz,
      error jsonb
    );
  `.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE read_receipts;`.execute(db);
  await sql`
    ALTER TABLE channels
      DROP COLUMN health, DROP COLUMN health_reason, DROP COLUMN unhealthy_since,
      DROP COLUMN send_read_receipts;
  `.execute(db);
}
