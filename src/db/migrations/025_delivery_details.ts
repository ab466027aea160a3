import { sql, type Kysely } from 'kysely';

/**
 * What a provider reports with delivery statuses besides the status
 * (docs/adr/0058-delivery-details-from-the-provider.md): how the message is charged, its conversation, the sender's callback
 * data and every error given (`DeliveryDetails` in src/providers/types.ts, as JSON).
 *
 * - `message_status_events.details`: as each status reported it (its history, and what a status that
 *   arrived before its message was stored carries over to it);
 * - `messages.delivery`: the message's own, each part from the latest status that reported it.
 *
 * Nullable columns without a default: adding them rewrites nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE message_status_events ADD COLUMN details jsonb`.execute(db);
  await sql`ALTER TABLE messages ADD COLUMN delivery jsonb`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE messages DROP COLUMN delivery`.execute(db);
  await sql`ALTER TABLE message_status_events DROP COLUMN details`.execute(db);
}
