import { sql, type Kysely } from 'kysely';

/**
 * Full-text search of messages (`GET /api/search`): Portuguese stemming, accents and case ignored,
 * behind a GIN index (docs/adr/0068-message-search.md).
 *
 * - `search_words(text)`: how words compare, one definition for what is stored and what is asked —
 *   accents dropped (the `unaccent` extension, with its dictionary named so the function can be
 *   immutable; without the extension, `search_fold` of migration 014), lower case, and the plural
 *   endings the Portuguese stemmer leaves apart from their singular read as it: `-ões` as `-ão`
 *   (`ações` → `acao`; the stemmer gives `açõ` and `açã`), `-ais` as `-al` (`fiscais`), `-éis` as
 *   `-el` (`papéis`) — the last two only after a few letters, so `mais` and `seis` stay themselves.
 * - `message_search_text(content)`: what of a message is searched — its text (a customer's message
 *   keeps here what it shows) and a media's caption.
 * - `message_search_vector(content)`: the two above under the `portuguese` configuration (stemming,
 *   stop words); the index is on it, and every search repeats the same expression.
 * - `messages_account_time_idx`: an account's messages newest first. A word found in many messages
 *   is answered faster by walking the newest ones until a page matches than by reading all its
 *   matches from the GIN index and sorting them (the planner picks by the word's frequency); the date
 *   filters use it too.
 * - The functions are created with the migration's `search_path`, so the index's expression reads the
 *   same functions in every session, in a dump's restore too.
 * - On a large `messages` table the indexes take a while to build, and this migration blocks writes
 *   to messages meanwhile (about two minutes per million messages on a busy two-core machine:
 *   docs/adr/0068-message-search.md). Built beforehand with `CREATE INDEX CONCURRENTLY`, as
 *   docs/operating.md shows, they are kept: every statement here skips what exists.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // A trusted extension: the database's owner may create it. A server without it, or a user who may
  // not, falls back to migration 014's folding (the same letters the console folds).
  await sql`DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'unaccent') THEN
    BEGIN
      CREATE EXTENSION IF NOT EXISTS unaccent;
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE NOTICE 'unaccent not created: search folds accents with search_fold';
    END;
  END IF;
END $$`.execute(db);
  const { rows } = await sql<{ schema: string | null }>`
    SELECT n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'unaccent'`.execute(db);
  const schema = rows[0]?.schema;
  const fold =
    schema !== undefined && schema !== null
      ? `lower(${ident(schema)}.unaccent('${ident(schema)}.unaccent'::regdictionary, t))`
      : 'search_fold(t)';
  await sql
    .raw(
      `CREATE OR REPLACE FUNCTION search_words(t text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT
  AS $$ SELECT regexp_replace(regexp_replace(regexp_replace(${fold},
    'oes\\M', 'ao', 'g'), '([a-z]{3,})ais\\M', '\\1al', 'g'), '([a-z]{2,})eis\\M', '\\1el', 'g') $$;
CREATE OR REPLACE FUNCTION message_search_text(content jsonb) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT
  AS $$ SELECT coalesce(content->>'text', '') || ' ' || coalesce(content#>>'{media,caption}', '') $$;
CREATE OR REPLACE FUNCTION message_search_vector(content jsonb) RETURNS tsvector
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT
  AS $$ SELECT to_tsvector('pg_catalog.portuguese'::regconfig, search_words(message_search_text(content))) $$;
CREATE INDEX IF NOT EXISTS messages_search_idx ON messages USING gin (message_search_vector(content));
CREATE INDEX IF NOT EXISTS messages_account_time_idx ON messages (account_id, created_at DESC, id DESC);`,
    )
    .execute(db);
}

/** A schema name as an identifier, quoted when it must be. */
function ident(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS messages_account_time_idx;
DROP INDEX IF EXISTS messages_search_idx;
DROP FUNCTION IF EXISTS message_search_vector(jsonb);
DROP FUNCTION IF EXISTS message_search_text(jsonb);
DROP FUNCTION IF EXISTS search_words(text);`.execute(db);
}
