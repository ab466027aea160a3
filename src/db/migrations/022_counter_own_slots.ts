import { sql, type Kysely } from 'kysely';

/**
 * Each database session counts in a slot of its own (docs/adr/0052-counters-slot-per-session.md).
 * Until now a change added its ±1 to any slot of a total no other transaction held
 * (`FOR UPDATE SKIP LOCKED`), one function call and statement per counter row: under concurrent
 * transfers into the same queues every call walked the slots the others held, and the trigger's eight
 * nested statements were over a quarter of PostgreSQL's CPU per transfer. Now the slot is the session's
 * backend pid: no two open transactions ever share one (a session runs one at a time), so a counter
 * change is a plain upsert that never waits on another change, and the trigger writes both tables in
 * one statement (its deltas summed per row, so no row is touched twice). Housekeeping still folds the
 * slots into one row per total; a total is still the sum of its rows, exact in any snapshot. A slot is
 * written only while the account exists: deleting an account deletes its counters (cascade) before its
 * chats' deferred triggers run.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE OR REPLACE FUNCTION chat_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
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
DROP FUNCTION chat_totals_move(text, text, text, text, text, text, text, text);
DROP FUNCTION chat_totals_add(text, text, text, text, text, int);
DROP FUNCTION chat_counts_add(text, text, text, text, text, text, int);
DROP SEQUENCE chat_count_slots;
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE SEQUENCE chat_count_slots START WITH 1000000000;
CREATE FUNCTION chat_counts_add(a text, s text, ch text, t text, q text, u text, d int)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE chat_counts SET n = n + d
   WHERE ctid = (SELECT ctid FROM chat_counts
                  WHERE account_id = a AND status = s AND channel_id = ch AND team_id = t AND queue = q
                    AND user_id = u
                  LIMIT 1 FOR UPDATE SKIP LOCKED);
  IF NOT FOUND THEN
    INSERT INTO chat_counts (account_id, status, channel_id, team_id, queue, user_id, slot, n)
    SELECT a, s, ch, t, q, u, nextval('chat_count_slots'), d
    WHERE EXISTS (SELECT 1 FROM accounts WHERE id = a);
  END IF;
END
$$;
CREATE FUNCTION chat_totals_add(a text, s text, dm text, v text, q text, d int)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE chat_totals SET n = n + d
   WHERE ctid = (SELECT ctid FROM chat_totals
                  WHERE account_id = a AND status = s AND dim = dm AND value = v AND queue = q
                  LIMIT 1 FOR UPDATE SKIP LOCKED);
  IF NOT FOUND THEN
    INSERT INTO chat_totals (account_id, status, dim, value, queue, slot, n)
    SELECT a, s, dm, v, q, nextval('chat_count_slots'), d
    WHERE EXISTS (SELECT 1 FROM accounts WHERE id = a);
  END IF;
END
$$;
CREATE FUNCTION chat_totals_move(a text, dm text, os text, ov text, oq text, ns text, nv text, nq text)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF (os, ov, oq) IS NOT DISTINCT FROM (ns, nv, nq) THEN
    RETURN;
  END IF;
  IF os IS NOT NULL THEN
    PERFORM chat_totals_add(a, os, dm, ov, oq, -1);
  END IF;
  IF ns IS NOT NULL THEN
    PERFORM chat_totals_add(a, ns, dm, nv, nq, 1);
  END IF;
END
$$;
CREATE OR REPLACE FUNCTION chat_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  a text := coalesce(NEW.account_id, OLD.account_id);
  os text;
  ns text;
BEGIN
  IF TG_OP = 'UPDATE' AND (OLD.account_id, OLD.status, OLD.channel_id, OLD.team_id, OLD.queue, OLD.user_id)
      IS NOT DISTINCT FROM (NEW.account_id, NEW.status, NEW.channel_id, NEW.team_id, NEW.queue, NEW.user_id) THEN
    RETURN NULL;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    os := OLD.status;
    PERFORM chat_counts_add(OLD.account_id, OLD.status, OLD.channel_id, OLD.team_id, OLD.queue,
                            coalesce(OLD.user_id, ''), -1);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    ns := NEW.status;
    PERFORM chat_counts_add(NEW.account_id, NEW.status, NEW.channel_id, NEW.team_id, NEW.queue,
                            coalesce(NEW.user_id, ''), 1);
  END IF;
  PERFORM chat_totals_move(a, 'channel', os, OLD.channel_id, OLD.queue, ns, NEW.channel_id, NEW.queue);
  PERFORM chat_totals_move(a, 'team', os, OLD.team_id, OLD.queue, ns, NEW.team_id, NEW.queue);
  PERFORM chat_totals_move(a, 'user', os, coalesce(OLD.user_id, ''), OLD.queue,
                           ns, coalesce(NEW.user_id, ''), NEW.queue);
  RETURN NULL;
END
$$;
`.execute(db);
}
