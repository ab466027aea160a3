import { sql, type Kysely } from 'kysely';

/**
 * The live board's read from an index of open conversations (docs/adr/0090-live-board.md).
 *
 * The board groups an account's open conversations by team and channel and by attendant on every
 * read. Open conversations lie among the closed ones across the table (one in ten on the benchmark's
 * set: 100,000 spread over 52,639 pages), so reading them took 195 ms, nearly all of it page reads.
 * `chats_board_idx` holds every column the board counts, for open conversations only: the same read
 * is an index-only scan of ≈ 1,700 pages (13 MB for 100,000 open) in 45 ms. The columns it includes
 * were already indexed or in index predicates, so no update that was HOT stops being one.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE INDEX chats_board_idx ON chats (account_id)
  INCLUDE (team_id, channel_id, user_id, queue, snoozed_at, waiting_since, first_responded_at,
    first_response_due_at, first_response_breached_at, resolution_due_at, resolution_breached_at)
  WHERE status = 'open';
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX chats_board_idx;`.execute(db);
}
