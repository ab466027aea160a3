import { sql, type Kysely } from 'kysely';

/**
 * Snooze (docs/adr/0078-snooze.md): a conversation leaves the lists until a time or until the customer
 * writes. Three columns on `chats`: `snoozed_at` (set while snoozed), `snoozed_until` (the wake-up
 * time; null when only the customer's message ends it) and `snoozed_by` (who snoozed it).
 *
 * - The counters count a snoozed open chat under the list status `snoozed` instead of `open`, so the
 *   open lists' totals leave it out and the snoozed view's total is exact, still from the counters:
 *   the three statement triggers of migration 023 read that status from the row. No chat is snoozed
 *   yet, so the counters need no rebuild.
 * - Only an open chat is snoozed: a change to another status clears the snooze in the same row
 *   (every writer that closes a chat, whatever its statement), so nothing wakes a closed chat. The
 *   trigger's WHEN is checked without calling the function, so other updates pay nothing.
 * - `chats_snooze_due_idx`: the wake-up loop's claim of due snoozes, in time order.
 * - `chats_snoozed_idx`: the snoozed view, newest first (and the pending view's snoozed half).
 */
const listStatus = `CASE WHEN status = 'open' AND snoozed_at IS NOT NULL THEN 'snoozed' ELSE status END`;

const apply = (deltas: string) => `
  WITH d (account_id, s, ch, t, q, u, n) AS (${deltas}
  ), g AS (
    SELECT account_id, s, ch, t, q, u, sum(n) AS n FROM d
    -- An account being deleted: its counters went with it (cascade), none is written again.
    WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.id = d.account_id)
    GROUP BY account_id, s, ch, t, q, u HAVING sum(n) <> 0
  ), counts AS (
    INSERT INTO chat_counts AS c (account_id, status, channel_id, team_id, queue, user_id, slot, n)
    SELECT account_id, s, ch, t, q, u, pg_backend_pid(), n FROM g
    ON CONFLICT (account_id, status, channel_id, team_id, queue, user_id, slot)
      DO UPDATE SET n = c.n + EXCLUDED.n
  )
  INSERT INTO chat_totals AS c (account_id, status, dim, value, queue, slot, n)
  SELECT g.account_id, g.s, v.dim, v.value, g.q, pg_backend_pid(), sum(g.n)
  FROM g CROSS JOIN LATERAL (VALUES ('channel', g.ch), ('team', g.t), ('user', g.u)) AS v (dim, value)
  GROUP BY g.account_id, g.s, v.dim, v.value, g.q HAVING sum(g.n) <> 0
  ON CONFLICT (account_id, status, dim, value, queue, slot) DO UPDATE SET n = c.n + EXCLUDED.n;`;

const rows = (table: string, n: number, status: string) =>
  `SELECT account_id, ${status}, channel_id, team_id, queue, coalesce(user_id, ''), ${n} FROM ${table}`;

const functions = (status: string) => `
CREATE OR REPLACE FUNCTION chat_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${apply(rows('new_chats', 1, status))}
  RETURN NULL;
END
$$;
CREATE OR REPLACE FUNCTION chat_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${apply(rows('old_chats', -1, status))}
  RETURN NULL;
END
$$;
CREATE OR REPLACE FUNCTION chat_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${apply(`${rows('old_chats', -1, status)} UNION ALL ${rows('new_chats', 1, status)}`)}
  RETURN NULL;
END
$$;`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `
ALTER TABLE chats
  ADD COLUMN snoozed_at timestamptz,
  ADD COLUMN snoozed_until timestamptz,
  ADD COLUMN snoozed_by text;
CREATE INDEX chats_snooze_due_idx ON chats (snoozed_until) WHERE snoozed_until IS NOT NULL;
CREATE INDEX chats_snoozed_idx ON chats (account_id, created_at DESC, id DESC) WHERE snoozed_at IS NOT NULL;

CREATE FUNCTION chats_snooze_cleared() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.snoozed_at := NULL;
  NEW.snoozed_until := NULL;
  NEW.snoozed_by := NULL;
  RETURN NEW;
END
$$;
CREATE TRIGGER chats_snooze_cleared BEFORE UPDATE OF status ON chats
FOR EACH ROW WHEN (NEW.status <> 'open' AND NEW.snoozed_at IS NOT NULL)
EXECUTE FUNCTION chats_snooze_cleared();
${functions(listStatus)}
`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `
-- Snoozed chats count as open again before the columns go.
UPDATE chats SET snoozed_at = NULL WHERE snoozed_at IS NOT NULL;
${functions('status')}
DROP TRIGGER chats_snooze_cleared ON chats;
DROP FUNCTION chats_snooze_cleared();
DROP INDEX chats_snoozed_idx;
DROP INDEX chats_snooze_due_idx;
ALTER TABLE chats DROP COLUMN snoozed_at, DROP COLUMN snoozed_until, DROP COLUMN snoozed_by;
`,
    )
    .execute(db);
}
