import { sql, type Kysely } from 'kysely';

/**
 * Message search reads the newest messages' matches first (docs/adr/0101-message-search-by-period.md).
 *
 * A word in about one message in ten thousand (≈ 1,000 of 10,000,000) was found through the text
 * search index, every one of its matches then read from the table and its conversation checked before
 * the newest page was kept: 11–23 ms of PostgreSQL for twenty results. Two common words together were
 * found by walking the newest messages, tens of thousands before a page held both: 70–90 ms.
 *
 * - `search_period(t)`: the 30-day period of an instant, counted from the Unix epoch (immutable: an
 *   instant's epoch does not depend on the time zone), and `search_period_start(k)`, where period `k`
 *   starts.
 * - `messages_search_period_idx`, a GIN index on (period, vector) — the period's entries through
 *   `btree_gin` — replaces `messages_search_vector_idx`: the index intersects a period's messages with
 *   a word's, so only the matches of that period are read from the table. A search for the vector
 *   alone uses it as it used the old one (GIN takes any of its columns).
 * - `ANALYZE messages`: the planner's statistics of the period expression, so it costs a period's
 *   share of the messages from what is stored.
 *
 * Building the index reads every message while message writes wait: 44 s for 10,000,000 messages on
 * the benchmark's two-core machine, with the analysis (docs/operating.md says how to build it
 * beforehand).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE OR REPLACE FUNCTION search_period(t timestamptz) RETURNS integer
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT floor(extract(epoch FROM t) / 2592000)::integer $$;
CREATE OR REPLACE FUNCTION search_period_start(k integer) RETURNS timestamptz
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT to_timestamp(k::double precision * 2592000) $$;
CREATE INDEX IF NOT EXISTS messages_search_period_idx ON messages
  USING gin (search_period(created_at), search_vector);
DROP INDEX IF EXISTS messages_search_vector_idx;
ANALYZE messages;`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE INDEX IF NOT EXISTS messages_search_vector_idx ON messages USING gin (search_vector);
DROP INDEX IF EXISTS messages_search_period_idx;
DROP FUNCTION IF EXISTS search_period_start(integer);
DROP FUNCTION IF EXISTS search_period(timestamptz);`.execute(db);
}
