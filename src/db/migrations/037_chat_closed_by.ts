import { sql, type Kysely } from 'kysely';

/**
 * Who ended a conversation, for the customer's history ("closed by Ana"): the user who closed it, or
 * null when the Channel API, a repair or an earlier version closed it. A nullable column without a
 * default rewrites nothing, so adding it to a large `chats` table is instant. No foreign key: users
 * are cancelled, never deleted, and checking one would scan every chat while holding the table's lock.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE chats ADD COLUMN closed_by text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE chats DROP COLUMN closed_by`.execute(db);
}
