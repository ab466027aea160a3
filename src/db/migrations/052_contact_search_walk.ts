import { sql, type Kysely } from 'kysely';

/**
 * Contact search that walks the newest conversations (docs/adr/0083-contact-search-walk.md).
 *
 * - `contacts.search_name`: `search_fold(name)` (migration 014) stored, a generated column, so every
 *   writer keeps it without knowing of it. A common name or number part is answered by walking the
 *   account's newest conversations until a page of contacts matches; the fold computed per row cost
 *   ≈ 9 µs of a ≈ 13 µs row, read from the row it costs a comparison. The trigram index moves to the
 *   column (same contents), so a query names the column and has both.
 * - `chats_account_time_idx`: the account's conversations newest first whatever their status, the
 *   order that walk reads (the list indexes start with the status).
 * - Adding a stored column rewrites `contacts` under an exclusive lock: about a second per 100,000
 *   contacts, during which inbound messages from new contacts wait (docs/operating.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
ALTER TABLE contacts ADD COLUMN search_name text GENERATED ALWAYS AS (search_fold(name)) STORED;
CREATE INDEX contacts_search_name_idx ON contacts USING gin (search_name gin_trgm_ops);
DROP INDEX contacts_name_search_idx;
CREATE INDEX chats_account_time_idx ON chats (account_id, created_at DESC, id DESC);
ANALYZE contacts;
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DROP INDEX chats_account_time_idx;
CREATE INDEX contacts_name_search_idx ON contacts USING gin (search_fold(name) gin_trgm_ops);
DROP INDEX contacts_search_name_idx;
ALTER TABLE contacts DROP COLUMN search_name;
`.execute(db);
}
