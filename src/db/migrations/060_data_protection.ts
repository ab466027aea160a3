import { sql, type Kysely } from 'kysely';

/**
 * Data subjects' rights (docs/adr/0092-data-subject-rights.md).
 *
 * - `erasures`: the record of each erasure, without personal data: who asked, when, which customer
 *   (an opaque id) and how many rows each step changed. A running one is the work left of its job; one
 *   running erasure per customer (a second request answers the first).
 * - `account_retention`: how long an account keeps messages and their files (`days`; no row or null:
 *   forever), and whether the whole message goes or only its file (`scope`). Enforced by housekeeping
 *   through `messages_account_time_idx`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE erasures (
  id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  customer_id text NOT NULL,
  requested_by text REFERENCES users(id) ON DELETE SET NULL,
  status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done')),
  counts jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz
);
CREATE UNIQUE INDEX erasures_running_idx ON erasures (customer_id) WHERE status = 'running';
CREATE INDEX erasures_account_idx ON erasures (account_id, created_at DESC);
CREATE TABLE account_retention (
  account_id text PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
  days integer CHECK (days BETWEEN 1 AND 36500),
  scope text NOT NULL DEFAULT 'messages' CHECK (scope IN ('messages', 'media')),
  updated_by text REFERENCES users(id) ON DELETE SET NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`.execute(db);
}
