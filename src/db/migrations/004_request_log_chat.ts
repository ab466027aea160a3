import { sql, type Kysely } from 'kysely';

/**
 * The chat a send request was delivered into. Set by the first attempt's conversation step (close the
 * previous chat, open one in queue API), so a retried attempt reuses that chat instead of closing it
 * again and opening yet another one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE request_logs ADD COLUMN chat_id text REFERENCES chats(id) ON DELETE SET NULL`.execute(
    db,
  );
}
