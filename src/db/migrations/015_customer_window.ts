import { sql, type Kysely } from 'kysely';

/**
 * The 24-hour customer-service window: when the customer last wrote on the channel. Kept on the
 * contact (a contact belongs to one channel), since the window is the customer's with that number,
 * whichever conversation their message landed in; every chat read joins the contact already, so the
 * lists show the window at no extra query. Contacts who wrote in the last 24 hours get it from their
 * stored messages; older ones would be closed anyway and stay null.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE contacts ADD COLUMN last_inbound_at timestamptz;`.execute(db);
  await sql`
    UPDATE contacts ct SET last_inbound_at = recent.at
    FROM (
      SELECT c.contact_id, max(m.created_at) AS at
      FROM messages m JOIN chats c ON c.id = m.chat_id
      WHERE m.origin = 'contact' AND m.created_at > now() - interval '24 hours'
      GROUP BY c.contact_id
    ) recent
    WHERE ct.id = recent.contact_id;`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE contacts DROP COLUMN last_inbound_at;`.execute(db);
}
