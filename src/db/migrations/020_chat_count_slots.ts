import { sql, type Kysely } from 'kysely';

/**
 * List totals' counters that concurrent changes never wait on (docs/adr/0046-list-totals-in-slots.md).
 * A counter row is shared by every change that moves a chat into or out of its combination
 * of filters; even taken at commit (migration 018), it is held until that commit's WAL flush, so
 * changes that move chats into the same totals (transfers to one team's queue) committed one after
 * another. Now each combination has one or more slots: a change adds its ±1 to any slot no other
 * transaction holds (`FOR UPDATE SKIP LOCKED`), and only when all are held does it open a slot of its
 * own. A total is still the sum of its rows, exact in any snapshot; a combination has as many slots as
 * changes once ran on it at the same moment, and housekeeping folds them back into one. A slot is
 * opened only while the account exists: deleting an account deletes its counters (cascade) before its
 * chats' deferred triggers run.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE SEQUENCE chat_count_slots;
-- Counters went with their account's chats but not with the account: an account deleted (its chats
-- by cascade) left its counters behind. They go with it now, like every other row of the account.
DELETE FROM chat_counts c WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = c.account_id);
ALTER TABLE chat_counts ADD CONSTRAINT chat_counts_account_id_fkey
  FOREIGN KEY (account_id) REFERENCES accounts(id) ON DELETE CASCADE;
ALTER TABLE chat_counts ADD COLUMN slot bigint NOT NULL DEFAULT 0;
ALTER TABLE chat_counts DROP CONSTRAINT chat_counts_pkey;
ALTER TABLE chat_counts ADD PRIMARY KEY (account_id, status, channel_id, team_id, queue, user_id, slot);

CREATE OR REPLACE FUNCTION chat_counts_add(a text, s text, ch text, t text, q text, u text, d int)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE chat_counts SET n = n + d
   WHERE ctid = (SELECT ctid FROM chat_counts
                  WHERE account_id = a AND status = s AND channel_id = ch AND team_id = t AND queue = q
                    AND user_id = u
                  LIMIT 1 FOR UPDATE SKIP LOCKED);
  IF NOT FOUND THEN
    -- Every slot is held by another transaction (or there is none yet): a slot of this one's own,
    -- unless the account itself is being deleted (its counters went with it).
    INSERT INTO chat_counts (account_id, status, channel_id, team_id, queue, user_id, slot, n)
    SELECT a, s, ch, t, q, u, nextval('chat_count_slots'), d
    WHERE EXISTS (SELECT 1 FROM accounts WHERE id = a);
  END IF;
END
$$;

CREATE OR REPLACE FUNCTION chat_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND (OLD.account_id, OLD.status, OLD.channel_id, OLD.team_id, OLD.queue, OLD.user_id)
      IS NOT DISTINCT FROM (NEW.account_id, NEW.status, NEW.channel_id, NEW.team_id, NEW.queue, NEW.user_id) THEN
    RETURN NULL;
  END IF;
  -- No waits, so no order to keep between the two rows.
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
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE OR REPLACE FUNCTION chat_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  old_key text;
  new_key text;
BEGIN
  IF TG_OP = 'UPDATE' AND (OLD.account_id, OLD.status, OLD.channel_id, OLD.team_id, OLD.queue, OLD.user_id)
      IS NOT DISTINCT FROM (NEW.account_id, NEW.status, NEW.channel_id, NEW.team_id, NEW.queue, NEW.user_id) THEN
    RETURN NULL;
  END IF;
  IF TG_OP <> 'INSERT' THEN
    old_key := concat_ws('|', OLD.status, OLD.channel_id, OLD.team_id, OLD.queue, coalesce(OLD.user_id, ''));
  END IF;
  IF TG_OP <> 'DELETE' THEN
    new_key := concat_ws('|', NEW.status, NEW.channel_id, NEW.team_id, NEW.queue, coalesce(NEW.user_id, ''));
  END IF;
  IF old_key IS NOT NULL AND (new_key IS NULL OR old_key < new_key) THEN
    UPDATE chat_counts SET n = n - 1
     WHERE account_id = OLD.account_id AND status = OLD.status AND channel_id = OLD.channel_id
       AND team_id = OLD.team_id AND queue = OLD.queue AND user_id = coalesce(OLD.user_id, '');
    old_key := NULL;
  END IF;
  IF new_key IS NOT NULL THEN
    INSERT INTO chat_counts AS c (account_id, status, channel_id, team_id, queue, user_id, n)
    VALUES (NEW.account_id, NEW.status, NEW.channel_id, NEW.team_id, NEW.queue, coalesce(NEW.user_id, ''), 1)
    ON CONFLICT (account_id, status, channel_id, team_id, queue, user_id) DO UPDATE SET n = c.n + 1;
  END IF;
  IF old_key IS NOT NULL THEN
    UPDATE chat_counts SET n = n - 1
     WHERE account_id = OLD.account_id AND status = OLD.status AND channel_id = OLD.channel_id
       AND team_id = OLD.team_id AND queue = OLD.queue AND user_id = coalesce(OLD.user_id, '');
  END IF;
  RETURN NULL;
END
$$;
DROP FUNCTION chat_counts_add(text, text, text, text, text, text, int);
CREATE TEMP TABLE folded AS
  SELECT account_id, status, channel_id, team_id, queue, user_id, sum(n) AS n FROM chat_counts GROUP BY 1, 2, 3, 4, 5, 6;
DELETE FROM chat_counts;
ALTER TABLE chat_counts DROP CONSTRAINT chat_counts_pkey;
ALTER TABLE chat_counts DROP COLUMN slot;
ALTER TABLE chat_counts ADD PRIMARY KEY (account_id, status, channel_id, team_id, queue, user_id);
INSERT INTO chat_counts SELECT account_id, status, channel_id, team_id, queue, user_id, n FROM folded;
DROP TABLE folded;
ALTER TABLE chat_counts DROP CONSTRAINT chat_counts_account_id_fkey;
DROP SEQUENCE chat_count_slots;
`.execute(db);
}
