import { sql, type Kysely } from 'kysely';

/**
 * List totals' counters kept once per statement instead of once per chat row
 * (docs/adr/0053-counters-once-per-statement.md). With a slot per database session (migration 022)
 * no counter row is ever shared by two open transactions, so there is nothing left to gain by
 * deferring the counting to commit; counting per row cost one statement's executor start-up per chat at commit, most of
 * PostgreSQL's time per transfer once transfers were written together. Now three statement triggers
 * with transition tables sum the chats a statement inserted, deleted or moved (−1 for each row as it
 * was, +1 as it is; a row whose filters did not change cancels out) and write both counter tables in
 * one statement. Counting stays exact: each statement's changes are counted in its transaction.
 */
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

const rows = (table: string, n: number) =>
  `SELECT account_id, status, channel_id, team_id, queue, coalesce(user_id, ''), ${n} FROM ${table}`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `
DROP TRIGGER chats_count_trigger ON chats;
DROP FUNCTION chat_counts_apply();

CREATE FUNCTION chat_counts_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${apply(rows('new_chats', 1))}
  RETURN NULL;
END
$$;
CREATE FUNCTION chat_counts_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${apply(rows('old_chats', -1))}
  RETURN NULL;
END
$$;
CREATE FUNCTION chat_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${apply(`${rows('old_chats', -1)} UNION ALL ${rows('new_chats', 1)}`)}
  RETURN NULL;
END
$$;

CREATE TRIGGER chats_count_inserted AFTER INSERT ON chats
REFERENCING NEW TABLE AS new_chats FOR EACH STATEMENT EXECUTE FUNCTION chat_counts_inserted();
CREATE TRIGGER chats_count_deleted AFTER DELETE ON chats
REFERENCING OLD TABLE AS old_chats FOR EACH STATEMENT EXECUTE FUNCTION chat_counts_deleted();
CREATE TRIGGER chats_count_updated AFTER UPDATE ON chats
REFERENCING OLD TABLE AS old_chats NEW TABLE AS new_chats FOR EACH STATEMENT EXECUTE FUNCTION chat_counts_updated();
`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DROP TRIGGER chats_count_inserted ON chats;
DROP TRIGGER chats_count_deleted ON chats;
DROP TRIGGER chats_count_updated ON chats;
DROP FUNCTION chat_counts_inserted();
DROP FUNCTION chat_counts_deleted();
DROP FUNCTION chat_counts_updated();
CREATE FUNCTION chat_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  a text := coalesce(NEW.account_id, OLD.account_id);
  os text; och text; ot text; oq text; ou text;
  ns text; nch text; nt text; nq text; nu text;
BEGIN
  IF TG_OP = 'UPDATE' AND (OLD.account_id, OLD.status, OLD.channel_id, OLD.team_id, OLD.queue, OLD.user_id)
      IS NOT DISTINCT FROM (NEW.account_id, NEW.status, NEW.channel_id, NEW.team_id, NEW.queue, NEW.user_id) THEN
    RETURN NULL;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    os := OLD.status; och := OLD.channel_id; ot := OLD.team_id; oq := OLD.queue; ou := coalesce(OLD.user_id, '');
  END IF;
  IF TG_OP <> 'DELETE' THEN
    ns := NEW.status; nch := NEW.channel_id; nt := NEW.team_id; nq := NEW.queue; nu := coalesce(NEW.user_id, '');
  END IF;
  WITH d (s, ch, t, q, u, n) AS (
    SELECT os, och, ot, oq, ou, -1 WHERE os IS NOT NULL
    UNION ALL
    SELECT ns, nch, nt, nq, nu, 1 WHERE ns IS NOT NULL
  ), live AS (
    SELECT 1 FROM accounts WHERE id = a
  ), counts AS (
    INSERT INTO chat_counts AS c (account_id, status, channel_id, team_id, queue, user_id, slot, n)
    SELECT a, s, ch, t, q, u, pg_backend_pid(), sum(n) FROM d, live
    GROUP BY s, ch, t, q, u HAVING sum(n) <> 0
    ON CONFLICT (account_id, status, channel_id, team_id, queue, user_id, slot)
      DO UPDATE SET n = c.n + EXCLUDED.n
  )
  INSERT INTO chat_totals AS c (account_id, status, dim, value, queue, slot, n)
  SELECT a, s, v.dim, v.value, q, pg_backend_pid(), sum(n)
  FROM d CROSS JOIN LATERAL (VALUES ('channel', d.ch), ('team', d.t), ('user', d.u)) AS v (dim, value), live
  GROUP BY s, v.dim, v.value, q HAVING sum(n) <> 0
  ON CONFLICT (account_id, status, dim, value, queue, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER chats_count_trigger
AFTER INSERT OR DELETE OR UPDATE OF account_id, status, channel_id, team_id, queue, user_id ON chats
DEFERRABLE INITIALLY DEFERRED
FOR EACH ROW EXECUTE FUNCTION chat_counts_apply();
`.execute(db);
}
