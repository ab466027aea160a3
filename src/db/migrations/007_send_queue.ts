import { sql, type Kysely } from 'kysely';

/**
 * The send queue (src/jobs/send-queue.ts): messages to one contact reach the provider in the order
 * they were accepted. A lane is one contact on one channel; its jobs run one at a time, oldest first.
 * Replaces pg-boss's FIFO-per-key queue, whose fetch read every queued job to find each key's head.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE send_lanes (
  lane text PRIMARY KEY,
  -- Jobs of the lane not yet finished; kept with its jobs in the same transactions.
  pending integer NOT NULL DEFAULT 0,
  -- When the lane's oldest job may run: now, or later after a temporary failure (backoff).
  ready_at timestamptz NOT NULL DEFAULT now(),
  -- A worker runs the lane's oldest job until then, renewing it while the job runs; an expired lease
  -- (a killed worker) lets another worker take the job again.
  leased_until timestamptz,
  lease_owner text
);
-- The fetch: lanes with work, due first. Empty lanes (pending 0) are outside the index.
CREATE INDEX send_lanes_ready_idx ON send_lanes (ready_at) WHERE pending > 0;

CREATE TABLE send_jobs (
  -- Acceptance order: a lane runs its jobs by id.
  id bigserial PRIMARY KEY,
  lane text NOT NULL,
  -- api_request (ref_id: request_logs.request_id) or agent_message (ref_id: messages.id).
  kind text NOT NULL CHECK (kind IN ('api_request', 'agent_message')),
  ref_id text NOT NULL,
  -- Attempts that ended in a temporary failure.
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX send_jobs_lane_idx ON send_jobs (lane, id);
`.execute(db);

  // Sends an earlier version queued with pg-boss and had not finished: moved over in their order.
  await sql`
DO $$
BEGIN
  IF to_regclass('pgboss.job') IS NOT NULL THEN
    INSERT INTO send_jobs (lane, kind, ref_id, created_at)
    SELECT singleton_key, data->>'kind',
           CASE data->>'kind' WHEN 'api_request' THEN data->>'requestId' ELSE data->>'messageId' END,
           created_on
    FROM pgboss.job
    WHERE name = 'send-message' AND state IN ('created', 'retry', 'active')
      AND singleton_key IS NOT NULL AND data->>'kind' IN ('api_request', 'agent_message')
    ORDER BY created_on, id;
    INSERT INTO send_lanes (lane, pending)
    SELECT lane, count(*) FROM send_jobs GROUP BY lane;
    DELETE FROM pgboss.job WHERE name = 'send-message';
  END IF;
END $$;
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DROP TABLE send_jobs;
DROP TABLE send_lanes;
`.execute(db);
}
