import { sql, type Kysely } from 'kysely';

/**
 * A conversation's activity, read from the event log (docs/adr/0075-activity-from-the-event-log.md).
 *
 * Activity events are the chat events other than `chat.new` and `chat.update` (so `chat.capture`,
 * `chat.transfer`, `chat.queue`, `chat.close`, `chat.split`, and any `chat.*` event added later): a
 * pattern, so a new chat event needs no new index. They are rare beside messages and list updates.
 *
 * - `events_chat_activity_idx`: a chat's activity lines, by the chat's id in the event's data.
 * - `events_expiring_idx`: the rest of the log by age, for the retention clean-up, which keeps activity
 *   events longer (`ATENDE_ACTIVITY_RETENTION_DAYS`) and so must not walk over them each round.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE INDEX events_chat_activity_idx ON events (account_id, (data #>> '{chat,id}'), seq)
  WHERE event LIKE 'chat.%' AND event NOT IN ('chat.new', 'chat.update');
CREATE INDEX events_expiring_idx ON events (occurred_at)
  WHERE NOT (event LIKE 'chat.%' AND event NOT IN ('chat.new', 'chat.update'));
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DROP INDEX events_expiring_idx;
DROP INDEX events_chat_activity_idx;
`.execute(db);
}
