import { sql, type Kysely } from 'kysely';

/**
 * The job layer moves from pg-boss 12 (schema `pgboss`) to pg-boss 10 (schema `atende_jobs`), the last
 * pg-boss for Node 20. pg-boss 10 cannot use the newer schema, so the jobs the previous version had not
 * finished (queued, waiting for a retry, or running when it stopped) are kept in `requeued_jobs`, the
 * old schema is dropped, and the job queue inserts them into pg-boss 10 at start and deletes them from
 * here in one transaction (src/jobs/queue.ts). A job that was running starts over; retry counts start
 * over too.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE TABLE requeued_jobs (
  id bigserial PRIMARY KEY,
  queue text NOT NULL,
  data jsonb NOT NULL,
  start_after timestamptz NOT NULL DEFAULT now()
);
`.execute(db);

  // Columns every pg-boss layout has. Outgoing webhook deliveries are not carried over: their rows are
  // their own queue now (migration 017 keeps each pending one's schedule).
  await sql`
DO $$
BEGIN
  IF to_regclass('pgboss.job') IS NOT NULL THEN
    INSERT INTO requeued_jobs (queue, data, start_after)
    SELECT j.name,
           coalesce(j.data, '{}'::jsonb),
           CASE WHEN j.state::text = 'active' THEN now() ELSE j.start_after END
    FROM pgboss.job j
    WHERE j.name IN ('inbound-webhook', 'read-receipt', 'media-download')
      AND j.state::text IN ('created', 'retry', 'active')
    ORDER BY j.created_on, j.id;
  END IF;
END $$;
`.execute(db);
  await sql`DROP SCHEMA IF EXISTS pgboss CASCADE`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE requeued_jobs`.execute(db);
}
