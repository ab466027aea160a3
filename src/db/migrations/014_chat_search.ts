import { sql, type Kysely } from 'kysely';

/**
 * Finding open conversations by the customer's name or number (`GET /api/chats?q=`).
 *
 * - `pg_trgm` makes `LIKE '%…%'` an index search; it ships with PostgreSQL's contrib (the embedded
 *   PostgreSQL included) and is a trusted extension, so the database's owner may create it.
 * - `search_fold(text)` is the one definition of how names compare: accents dropped, then lower
 *   case. It is written with `translate` (uppercase letters included, because `lower` under the C
 *   collation touches ASCII only) instead of the `unaccent` extension, whose function is not
 *   immutable and so cannot back an index. The letters are those that lose their accent when
 *   decomposed (what the console does with `normalize('NFD')`), so both sides fold alike.
 * - The contacts matched lead to their chats through `chats_contact_idx`.
 */
const FOLD: [string, string][] = [
  ['àáâãäåāăą', 'a'],
  ['çćĉċč', 'c'],
  ['ď', 'd'],
  ['èéêëēĕėęě', 'e'],
  ['ĝğġģ', 'g'],
  ['ĥ', 'h'],
  ['ìíîïĩīĭį', 'i'],
  ['ĵ', 'j'],
  ['ķ', 'k'],
  ['ĺļľ', 'l'],
  ['ñńņň', 'n'],
  ['òóôõöōŏő', 'o'],
  ['ŕŗř', 'r'],
  ['śŝşš', 's'],
  ['ţť', 't'],
  ['ùúûüũūŭůűų', 'u'],
  ['ŵ', 'w'],
  ['ýÿŷ', 'y'],
  ['źżž', 'z'],
];

function foldTables(): { from: string; to: string } {
  let from = '';
  let to = '';
  for (const [letters, plain] of FOLD) {
    for (const ch of letters) {
      const upper = ch.toUpperCase();
      from += ch;
      to += plain;
      // ÿ's capital (Ÿ) and the like exist; a letter without one adds nothing twice.
      if (upper !== ch && upper.length === 1 && !from.includes(upper)) {
        from += upper;
        to += plain;
      }
    }
  }
  return { from, to };
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const { from, to } = foldTables();
  await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
  await sql
    .raw(
      `CREATE FUNCTION search_fold(t text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  AS $$ SELECT lower(translate(t, '${from}', '${to}')) $$`,
    )
    .execute(db);
  await sql`CREATE INDEX contacts_name_search_idx ON contacts USING gin (search_fold(name) gin_trgm_ops)`.execute(
    db,
  );
  await sql`CREATE INDEX contacts_value_search_idx ON contacts USING gin (value gin_trgm_ops)`.execute(db);
  await sql`CREATE INDEX chats_contact_idx ON chats (contact_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX chats_contact_idx`.execute(db);
  await sql`DROP INDEX contacts_value_search_idx`.execute(db);
  await sql`DROP INDEX contacts_name_search_idx`.execute(db);
  await sql`DROP FUNCTION search_fold(text)`.execute(db);
}
