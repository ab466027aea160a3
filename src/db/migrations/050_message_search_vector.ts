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
 * - Statistics of the column from a ten times larger sample (statistics target 1000), analyzed at
 *   once. The planner chooses between the walk and the index by a word's frequency, and takes any
 *   word missing from its list of common words for one at half the rarest listed one's frequency (at
 *   most 0.5 %): with the default sample, a word in 50 of 10,000,000 messages was costed as one in
 *   50,000 and walked the whole table (13 s, bench/README.md); with this sample, words down to ≈ 0.01 %
 *   are listed and the rest are costed as rare. Analyzing 10,000,000 messages takes ≈ 8 s.
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
ALTER TABLE messages ALTER COLUMN search_vector SET STATISTICS 1000;
ANALYZE messages (search_vector);`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE INDEX IF NOT EXISTS messages_search_idx ON messages USING gin (message_search_vector(content));
ALTER TABLE messages DROP COLUMN IF EXISTS search_vector;`.execute(db);
}
