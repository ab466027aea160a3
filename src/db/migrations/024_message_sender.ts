import { sql, type Kysely } from 'kysely';

/**
 * Who wrote each customer's message: the provider's address of the sender (WhatsApp's `wa_id`) and the
 * profile name it carried. Until now only the contact kept them, overwritten by each message, so a
 * contact that two customers' messages had landed in could not be told apart from one customer.
 * Older messages stay null here; `atende doctor` reads their senders from the stored webhooks
 * (`inbound_webhook_events`) and records them. Nullable columns without a default: adding them
 * rewrites nothing.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE messages ADD COLUMN sender_address text, ADD COLUMN sender_name text;`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE messages DROP COLUMN sender_address, DROP COLUMN sender_name;`.execute(db);
}
