import { sql, type Kysely } from 'kysely';

/**
 * Finer statistics for the contact search's choice (docs/adr/0083-contact-search-walk.md).
 *
 * The planner walks the newest conversations for a common name or number part and gathers a rare one
 * from the trigram indexes, choosing by its estimate of how many contacts match. PostgreSQL estimates
 * `LIKE '%part%'` by trying the pattern on the column's histogram: with the default 100 entries a part
 * in 1.3 % of the names (`silva`) matched one or two of them or none, and was estimated at 332 contacts
 * where 13,134 match — gathered from the index it took 122 ms instead of a 3 ms walk. With 1,000 entries
 * (ANALYZE samples 300,000 rows) the estimates follow the data. `ANALYZE contacts` reads that sample:
 * about 2 s on a million contacts, without blocking writes.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
ALTER TABLE contacts ALTER COLUMN search_name SET STATISTICS 1000;
ALTER TABLE contacts ALTER COLUMN value SET STATISTICS 1000;
ANALYZE contacts;
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
ALTER TABLE contacts ALTER COLUMN search_name SET STATISTICS -1;
ALTER TABLE contacts ALTER COLUMN value SET STATISTICS -1;
`.execute(db);
}
