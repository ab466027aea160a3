import { sql, type Kysely } from 'kysely';

/**
 * Exact list totals that cost a few rows to read (docs/adr/0051-list-totals-by-filter.md).
 * `chat_counts` counts chats per (status, channel, team, queue, attendant): a total without a
 * filter summed every combination of the account (≈ 1,100 rows on the benchmark's account, as much
 * PostgreSQL time as the page itself before its empty combinations were folded, and more with every
 * channel, team and agent). `chat_totals` counts them per status and queue for each channel, team or
 * attendant (`dim` 'channel', 'team', 'user'; `value` the id, '' for no attendant), in slots like
 * `chat_counts`. The same deferred trigger keeps both; a total with one of those filters, or none (the
 * sum over the channels), reads `chat_totals`, a combination of filters still reads `chat_counts`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE chat_totals (
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  status text NOT NULL,
  dim text NOT NULL CHECK (dim IN ('channel', 'team', 'user')),
  value text NOT NULL,
  queue text NOT NULL,
  slot bigint NOT NULL DEFAULT 0,
  n bigint NOT NULL,
  PRIMARY KEY (account_id, status, dim, value, queue, slot)
);
INSERT INTO chat_totals (account_id, status, dim, value, queue, n)
SELECT account_id, status, 'channel', channel_id, queue, count(*) FROM chats GROUP BY 1, 2, 4, 5
UNION ALL
SELECT account_id, status, 'team', team_id, queue, count(*) FROM chats GROUP BY 1, 2, 4, 5
UNION ALL
SELECT account_id, status, 'user', coalesce(user_id, ''), queue, count(*) FROM chats GROUP BY 1, 2, 4, 5;

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

-- One dimension's move: nothing when the chat stays in the same total.
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
  -- No waits, so no order to keep between the rows.
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

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE OR REPLACE FUNCTION chat_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND (OLD.account_id, OLD.status, OLD.channel_id, OLD.team_id, OLD.queue, OLD.user_id)
      IS NOT DISTINCT FROM (NEW.account_id, NEW.status, NEW.channel_id, NEW.team_id, NEW.queue, NEW.user_id) THEN
    RETURN NULL;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    PERFORM chat_counts_add(OLD.account_id, OLD.status, OLD.channel_id, OLD.team_id, OLD.queue,
                            coalesce(OLD.user_id, ''), -1);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM chat_counts_add(NEW.account_id, NEW.status, NEW.channel_id, NEW.team_id, NEW.queue,
                            coalesce(NEW.user_id, ''), 1);
  END IF;
  RETURN NULL;
END
$$;
DROP FUNCTION chat_totals_move(text, text, text, text, text, text, text, text);
DROP FUNCTION chat_totals_add(text, text, text, text, text, int);
DROP TABLE chat_totals;
`.execute(db);
}
