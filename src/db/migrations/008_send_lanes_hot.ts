import { sql, type Kysely } from 'kysely';

/**
 * Queueing a message into a lane that already has work only counts it (`pending + 1`). With the due
 * index's predicate on `pending`, every such update wrote a new row version and two index entries,
 * and left a dead version for vacuum. The due index is now on `ready_at`, which is null exactly when
 * the lane is empty, so counting is a heap-only update that PostgreSQL prunes on the page itself; the
 * fill factor leaves the room for it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
ALTER TABLE send_lanes ALTER COLUMN ready_at DROP NOT NULL;
UPDATE send_lanes SET ready_at = NULL WHERE pending <= 0;
DROP INDEX send_lanes_ready_idx;
CREATE INDEX send_lanes_ready_idx ON send_lanes (ready_at) WHERE ready_at IS NOT NULL;
ALTER TABLE send_lanes SET (fillfactor = 50);
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
ALTER TABLE send_lanes RESET (fillfactor);
DROP INDEX send_lanes_ready_idx;
UPDATE send_lanes SET ready_at = now() WHERE ready_at IS NULL;
ALTER TABLE send_lanes ALTER COLUMN ready_at SET NOT NULL;
CREATE INDEX send_lanes_ready_idx ON send_lanes (ready_at) WHERE pending > 0;
`.execute(db);
}
