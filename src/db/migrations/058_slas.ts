import { sql, type Kysely } from 'kysely';

/**
 * SLAs per team (docs/adr/0088-slas.md).
 *
 * - `team_slas`: one row per team that has targets, in business minutes of the team's hours; a null
 *   target is none. A team without a row has no SLA. Read by the team's key only.
 * - On `chats`, the conversation's clocks: `sla_started_at` (the customer's first message of the
 *   conversation), `first_response_due_at` / `resolution_due_at` (null: no target, or it is never
 *   reached because the team is closed every day), `first_responded_at` (a person's first message after
 *   the clock started) and `first_response_breached_at` / `resolution_breached_at` (set once, by the
 *   breach loop, with the `sla.breached` event). Nullable columns without defaults: no table rewrite.
 * - The breach loop's two claims, in due order, read only open conversations still able to breach:
 *   a partial index each, so a chat leaves it when answered, breached or closed, and conversations of
 *   teams without an SLA are in neither.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE team_slas (
  team_id text PRIMARY KEY REFERENCES teams(id) ON DELETE CASCADE,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  first_response_minutes integer CHECK (first_response_minutes BETWEEN 1 AND 525600),
  resolution_minutes integer CHECK (resolution_minutes BETWEEN 1 AND 525600),
  updated_by text REFERENCES users(id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE chats
  ADD COLUMN sla_started_at timestamptz,
  ADD COLUMN first_response_due_at timestamptz,
  ADD COLUMN first_responded_at timestamptz,
  ADD COLUMN first_response_breached_at timestamptz,
  ADD COLUMN resolution_due_at timestamptz,
  ADD COLUMN resolution_breached_at timestamptz;
CREATE INDEX chats_first_response_due_idx ON chats (first_response_due_at)
  WHERE status = 'open' AND first_responded_at IS NULL AND first_response_breached_at IS NULL
    AND first_response_due_at IS NOT NULL;
CREATE INDEX chats_resolution_due_idx ON chats (resolution_due_at)
  WHERE status = 'open' AND resolution_breached_at IS NULL AND resolution_due_at IS NOT NULL;
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DROP INDEX chats_resolution_due_idx;
DROP INDEX chats_first_response_due_idx;
ALTER TABLE chats
  DROP COLUMN sla_started_at,
  DROP COLUMN first_response_due_at,
  DROP COLUMN first_responded_at,
  DROP COLUMN first_response_breached_at,
  DROP COLUMN resolution_due_at,
  DROP COLUMN resolution_breached_at;
DROP TABLE team_slas;
`.execute(db);
}
