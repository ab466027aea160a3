import { sql, type Kysely } from 'kysely';
import { countsUpdated } from './051_label_totals.js';

/**
 * A label's chats in list order (docs/adr/0099-label-list-order.md). A list filtered by a label
 * (`?label=`) walked the newest chats of the status and looked each up among the label's links, or
 * gathered every link of the label and sorted their chats; which one depended on the planner's guess
 * at the label's share, and the wrong guess cost hundreds of milliseconds on a large account (a label
 * on 1 % of 1,000,000 chats: 97 ms; on 10 %, planned as a hash join: 557 ms).
 *
 * Each link now carries its chat's status and creation instant (`chat_status`, `chat_created_at`), and
 * `chat_labels_list_idx` orders a label's links as the lists order chats (newest first), so a page of
 * a label's open chats is the first entries of one index range, each joined to its chat: under a
 * millisecond whatever the label's share. They are kept in the same transactions as the chats:
 *
 * - a link inserted takes them from its chat (a row trigger before the insert);
 * - a chat whose status or creation instant an update changes passes them to its links, as one more
 *   part of the chats' single update trigger (migrations 023, 047, 051), so other updates pay a join
 *   of the statement's few rows that finds nothing to change.
 *
 * `chat_labels_label_idx` (account, label, chat) is a prefix of the new index's use and goes.
 */
// The moved chats are found first (OFFSET 0 keeps them a subquery of their own), so an update that
// moves nothing — a message, a read, a transfer — looks up no link.
const linksMoved = `links_moved AS (
    UPDATE chat_labels l SET chat_status = m.status, chat_created_at = m.created_at
    FROM (SELECT n.id, n.status, n.created_at FROM old_chats o JOIN new_chats n ON n.id = o.id
          WHERE (o.status, o.created_at) IS DISTINCT FROM (n.status, n.created_at) OFFSET 0) AS m
    WHERE l.chat_id = m.id
    RETURNING 1
  ), `;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `
ALTER TABLE chat_labels ADD COLUMN chat_status text, ADD COLUMN chat_created_at timestamptz;
UPDATE chat_labels l SET chat_status = c.status, chat_created_at = c.created_at FROM chats c WHERE c.id = l.chat_id;
ALTER TABLE chat_labels ALTER COLUMN chat_status SET NOT NULL, ALTER COLUMN chat_created_at SET NOT NULL;

CREATE FUNCTION chat_label_list_position() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT c.status, c.created_at INTO NEW.chat_status, NEW.chat_created_at FROM chats c WHERE c.id = NEW.chat_id;
  RETURN NEW;
END
$$;
CREATE TRIGGER chat_label_list_position BEFORE INSERT ON chat_labels
FOR EACH ROW EXECUTE FUNCTION chat_label_list_position();
${countsUpdated(true, linksMoved)}
CREATE INDEX chat_labels_list_idx ON chat_labels (account_id, label_id, chat_status, chat_created_at DESC, chat_id DESC);
DROP INDEX chat_labels_label_idx;
ANALYZE chat_labels;
`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(
      `
CREATE INDEX chat_labels_label_idx ON chat_labels (account_id, label_id, chat_id);
DROP INDEX chat_labels_list_idx;
${countsUpdated(true)}
DROP TRIGGER chat_label_list_position ON chat_labels;
DROP FUNCTION chat_label_list_position();
ALTER TABLE chat_labels DROP COLUMN chat_status, DROP COLUMN chat_created_at;
`,
    )
    .execute(db);
}
