import { sql, type Kysely } from 'kysely';

/**
 * Business hours per team (docs/adr/0084-team-business-hours.md): one row per team that has them; a
 * team without a row is always open.
 *
 * - `time_zone`: an IANA name the server's runtime knows (checked by the service, which stores its
 *   canonical spelling); wall-clock times are read in it.
 * - `weekly`: seven arrays, Sunday first, of `{start, end}` intervals (`HH:MM`, at most four a day,
 *   checked by the service); null: no weekly hours (open at any time that is not a holiday).
 * - `holidays`: local dates closed all day, at most 100.
 * - A team's hours are read with the team (by its primary key) and written whole: no other index.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE team_business_hours (
  team_id text PRIMARY KEY REFERENCES teams(id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  time_zone text NOT NULL DEFAULT 'America/Sao_Paulo',
  weekly jsonb CHECK (weekly IS NULL OR (jsonb_typeof(weekly) = 'array' AND jsonb_array_length(weekly) = 7)),
  holidays text[] NOT NULL DEFAULT '{}' CHECK (cardinality(holidays) <= 100),
  updated_by text REFERENCES users(id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE team_business_hours;`.execute(db);
}
