import { sql, type Kysely } from 'kysely';

/**
 * Message search reads a stored vector (docs/adr/0081-message-search-stored-vector.md).
 *
 * - `search_vector`: `message_search_vector(content)` (migration 038) computed once, when a message
 *   is written or its content changes — a generated column, so every writer keeps it without knowing
 *   of it. A word in many messages is answered by walking the account's newest messages
 *   (`messages_account_time_idx`) until a page matches; with the vector computed per row, each row
 *   cost ≈ 40–120 µs (the accents dropped, three plural rules, stemming), ≈ 1,000 rows for a common
 *   word seen through an agent's teams: most of the search. Read from the row it costs a comparison.
 * - `messages_search_vector_idx` replaces the expression index `messages_search_idx` (same
 *   contents), since a query names the column to have both the index and the cheap comparison.
 * - `ANALYZE` of the new column at once: without its statistics the planner takes every word for a
 *   common one and walks the newest messages even for a rare word — the whole table, where the
 *   index had answered (the expression index's statistics went with it). A sample, seconds.
 * - Adding a stored generated column rewrites the table under an exclusive lock: on millions of
 *   messages this migration takes minutes (measured in the ADR) during which messages wait.
 *   docs/operating.md says how to schedule it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
ALTER TABLE messages ADD COLUMN IF NOT EXISTS search_vector tsvector
  GENERATED ALWAYS AS (message_search_vector(content)) STORED;
CREATE INDEX IF NOT EXISTS messages_search_vector_idx ON messages USING gin (search_vector);
DROP INDEX IF EXISTS messages_search_idx;
ANALYZE messages (search_vector);`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE INDEX IF NOT EXISTS messages_search_idx ON messages USING gin (message_search_vector(content));
ALTER TABLE messages DROP COLUMN IF EXISTS search_vector;`.execute(db);
}
