import { sql, type Kysely } from 'kysely';

/**
 * Customers known only by a business-scoped user id: WhatsApp users who adopt a username may reach a
 * business without a phone number, named by an id like `US.13491208655302741918`. Such a contact is
 * of type `user_id`, its value the id as received.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE contacts DROP CONSTRAINT contacts_type_check,
    ADD CONSTRAINT contacts_type_check CHECK (type IN ('phone', 'email', 'user_id'));`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE contacts DROP CONSTRAINT contacts_type_check,
    ADD CONSTRAINT contacts_type_check CHECK (type IN ('phone', 'email'));`.execute(db);
}
