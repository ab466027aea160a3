import { sql, type Kysely } from 'kysely';

/**
 * Outgoing webhook deliveries are their own queue (src/modules/webhooks/webhooks.worker.ts): a pending
 * row is due at `next_attempt_at`; a worker claims it until `claimed_until` (a lease), so a crashed
 * node's attempts come back when the lease ends. Replaces one pg-boss job per attempt.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
ALTER TABLE webhook_deliveries ADD COLUMN claimed_until timestamptz;
-- The claim: an endpoint's pending deliveries, due first. A claimed one is due again when its lease ends.
CREATE INDEX webhook_deliveries_due_idx
  ON webhook_deliveries (webhook_id, (coalesce(claimed_until, next_attempt_at)))
  WHERE status = 'pending';
-- Attempts in flight per endpoint (the per-endpoint cap); settled rows leave the index.
CREATE INDEX webhook_deliveries_claimed_idx
  ON webhook_deliveries (webhook_id, claimed_until)
  WHERE claimed_until IS NOT NULL;
`.execute(db);

  // Deliveries an earlier version had pending keep their schedule (a retry's next_attempt_at, which its
  // pg-boss job had as start time); one whose attempt was running (next_attempt_at cleared while it
  // ran) is due now. Their pg-boss jobs are gone with the old job schema (migration 016).
  await sql`
UPDATE webhook_deliveries SET next_attempt_at = now() WHERE status = 'pending' AND next_attempt_at IS NULL;
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DROP INDEX webhook_deliveries_claimed_idx;
DROP INDEX webhook_deliveries_due_idx;
ALTER TABLE webhook_deliveries DROP COLUMN claimed_until;
`.execute(db);
}
