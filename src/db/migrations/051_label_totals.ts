import { sql, type Kysely } from 'kysely';

/**
 * A label's list total from the counters (docs/adr/0082-label-totals.md). `chat_totals` gains the
 * dimension `label` (value: the label's id): how many chats carrying the label are in each list status
 * and queue. A list filtered by a label alone (`?label=`) read its exact total by counting the label's
 * chats, ≈ 0.7 s for a label on 100,000 open chats; now it reads a few rows, as the channel, team and
 * attendant totals do.
 *
 * Kept in the same transactions as the chats and links they count, once per statement:
 *
 * - `chat_labels` inserted or deleted: ±1 under the chat's list status and queue as they are now.
 * - `chats` updated: the statement trigger of migrations 023/047 (`chat_counts_updated`, restated
 *   here) adds, for each chat whose list status or queue changed, −1 under the old and +1 under the
 *   new for each of its labels. A chat whose status and queue did not change (a message, a read)
 *   costs a join of the statement's few rows and writes nothing.
 * - `chats` deleted: its links go by cascade after the row, when its status can no longer be read, so
 *   a row trigger before the delete takes its labels off first; the cascade's own statement trigger
 *   then finds no chat and counts nothing again. A chat inserted has no links yet.
 */
const listStatus = (t: string) =>
  `CASE WHEN ${t}.status = 'open' AND ${t}.snoozed_at IS NOT NULL THEN 'snoozed' ELSE ${t}.status END`;

/** The INSERT adding label deltas `(account_id, s, label_id, q, n)` to `chat_totals`, in the session's slot. */
const insertLabels = (deltas: string) => `
  INSERT INTO chat_totals AS c (account_id, status, dim, value, queue, slot, n)
  SELECT account_id, s, 'label', label_id, q, pg_backend_pid(), sum(n)
  FROM (${deltas}) AS d (account_id, s, label_id, q, n)
  -- An account being deleted: its counters went with it (cascade), none is written again.
  WHERE EXISTS (SELECT 1 FROM accounts a WHERE a.id = d.account_id)
  GROUP BY account_id, s, label_id, q HAVING sum(n) <> 0
  ON CONFLICT (account_id, status, dim, value, queue, slot) DO UPDATE SET n = c.n + EXCLUDED.n`;

/** `insertLabels` as a statement of its own. */
const applyLabels = (deltas: string) => `${insertLabels(deltas)};`;

const linkDeltas = (links: string, n: number) =>
  `SELECT c.account_id, ${listStatus('c')}, l.label_id, c.queue, ${n}
   FROM ${links} l JOIN chats c ON c.id = l.chat_id`;

// The chats whose list status or queue a statement changed, with their labels as they are: −1 as the
// chat was, +1 as it is, from one join of the statement's rows with their links.
const movedDeltas = `
  SELECT v.account_id, v.s, l.label_id, v.q, v.n
  FROM old_chats o JOIN new_chats n ON n.id = o.id JOIN chat_labels l ON l.chat_id = o.id
  CROSS JOIN LATERAL (VALUES (o.account_id, ${listStatus('o')}, o.queue, -1),
                             (n.account_id, ${listStatus('n')}, n.queue, 1)) AS v (account_id, s, q, n)
  WHERE (${listStatus('o')}, o.queue) IS DISTINCT FROM (${listStatus('n')}, n.queue)`;

/**
 * The update trigger's function of migration 047, restated with the label totals as one more part of
 * its single statement (`labels`), so a chat update fires no second trigger: a move pays one join of
 * the statement's rows with their links, other updates a join that finds no move. Without labels (the
 * way down) it is 047's again. Later migrations restate it with parts of their own (`more`: CTEs, each
 * ending in a comma), written before the counters' parts.
 */
export const countsUpdated = (labels: boolean, more = '') => {
  const row = (table: string, n: number) =>
    `SELECT account_id, ${listStatus(table)}, channel_id, team_id, queue, coalesce(user_id, ''), ${n} FROM ${table}`;
  const labelPart = labels
    ? `labels AS (${insertLabels(movedDeltas)}
  ), `
    : '';
  return `
CREATE OR REPLACE FUNCTION chat_counts_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH ${more}${labelPart}d (account_id, s, ch, t, q, u, n) AS (${row('old_chats', -1)} UNION ALL ${row('new_chats', 1)}
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
  ON CONFLICT (account_id, status, dim, value, queue, slot) DO UPDATE SET n = c.n + EXCLUDED.n;
  RETURN NULL;
END
$$;`;
};

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `
ALTER TABLE chat_totals DROP CONSTRAINT chat_totals_dim_check;
ALTER TABLE chat_totals ADD CONSTRAINT chat_totals_dim_check CHECK (dim IN ('channel', 'team', 'user', 'label'));

INSERT INTO chat_totals (account_id, status, dim, value, queue, slot, n)
SELECT c.account_id, ${listStatus('c')}, 'label', l.label_id, c.queue, 0, count(*)
FROM chat_labels l JOIN chats c ON c.id = l.chat_id
GROUP BY 1, 2, 4, 5;

CREATE FUNCTION chat_label_totals_linked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${applyLabels(linkDeltas('new_links', 1))}
  RETURN NULL;
END
$$;
CREATE FUNCTION chat_label_totals_unlinked() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${applyLabels(linkDeltas('old_links', -1))}
  RETURN NULL;
END
$$;
${countsUpdated(true)}
CREATE FUNCTION chat_label_totals_chat_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${applyLabels(`SELECT OLD.account_id, ${listStatus('OLD')}, l.label_id, OLD.queue, -1 FROM chat_labels l WHERE l.chat_id = OLD.id`)}
  RETURN OLD;
END
$$;

CREATE TRIGGER chat_label_totals_linked AFTER INSERT ON chat_labels
REFERENCING NEW TABLE AS new_links FOR EACH STATEMENT EXECUTE FUNCTION chat_label_totals_linked();
CREATE TRIGGER chat_label_totals_unlinked AFTER DELETE ON chat_labels
REFERENCING OLD TABLE AS old_links FOR EACH STATEMENT EXECUTE FUNCTION chat_label_totals_unlinked();
CREATE TRIGGER chat_label_totals_chat_deleted BEFORE DELETE ON chats
FOR EACH ROW EXECUTE FUNCTION chat_label_totals_chat_deleted();
`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `
DROP TRIGGER chat_label_totals_chat_deleted ON chats;
DROP TRIGGER chat_label_totals_unlinked ON chat_labels;
DROP TRIGGER chat_label_totals_linked ON chat_labels;
DROP FUNCTION chat_label_totals_chat_deleted();
${countsUpdated(false)}
DROP FUNCTION chat_label_totals_unlinked();
DROP FUNCTION chat_label_totals_linked();
DELETE FROM chat_totals WHERE dim = 'label';
ALTER TABLE chat_totals DROP CONSTRAINT chat_totals_dim_check;
ALTER TABLE chat_totals ADD CONSTRAINT chat_totals_dim_check CHECK (dim IN ('channel', 'team', 'user'));
`,
    )
    .execute(db);
}
