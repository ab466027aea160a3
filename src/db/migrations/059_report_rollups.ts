import { sql, type Kysely } from 'kysely';

/**
 * Reports built from the event log (docs/adr/0089-reports-and-rollups.md).
 *
 * - `report_rollups`: one row per account, grain, UTC hour and key of the grain (team, attendant,
 *   channel, label; '' where the grain leaves a dimension out), and the same per local day of the
 *   reports' day zone (America/Sao_Paulo), which daily reports in that zone read: 24 times fewer rows. Counters, and for each duration its
 *   count, its sum and a histogram (`{"<bin>": [count, sum]}`, log-scale bins of 2^(1/16)). A report
 *   reads one grain: the smallest that holds the dimensions it filters and groups by, so a 30-day
 *   report reads hundreds to a few thousand rows.
 * - `report_chats`: what the consumer knows of each conversation between its events (since when it
 *   waits for a person, when it reached a person's queue, its first response, its attendant...).
 * - `report_cursor`: the last event seq applied to the rollups; moved in the transaction that writes
 *   them, so a batch counts once whatever crashes. Starts at 0: the first run counts what the log
 *   still holds.
 * - `report_hist_add(a, b)`: the sum of two histograms, for the upserts.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
CREATE FUNCTION report_hist_add(a jsonb, b jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(jsonb_object_agg(k, jsonb_build_array(n, s)), '{}'::jsonb)
  FROM (
    SELECT k, sum((v->>0)::bigint) AS n, sum((v->>1)::float8) AS s
    FROM (SELECT * FROM jsonb_each(coalesce(a, '{}'::jsonb))
          UNION ALL SELECT * FROM jsonb_each(coalesce(b, '{}'::jsonb))) AS x(k, v)
    GROUP BY k
  ) AS y
$$;

CREATE TABLE report_rollups (
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  -- 0: an hour's row (hour = its UTC start); 1: a local day's in the reports' day zone (hour = its start).
  span smallint NOT NULL,
  grain smallint NOT NULL,
  hour timestamptz NOT NULL,
  team_id text NOT NULL DEFAULT '',
  user_id text NOT NULL DEFAULT '',
  channel_id text NOT NULL DEFAULT '',
  label_id text NOT NULL DEFAULT '',
  opened integer NOT NULL DEFAULT 0,
  closed integer NOT NULL DEFAULT 0,
  reopened integer NOT NULL DEFAULT 0,
  transfers integer NOT NULL DEFAULT 0,
  attended integer NOT NULL DEFAULT 0,
  messages_in integer NOT NULL DEFAULT 0,
  messages_out integer NOT NULL DEFAULT 0,
  csat integer[] NOT NULL DEFAULT '{0,0,0,0,0}',
  sla_fr_met integer NOT NULL DEFAULT 0,
  sla_fr_breached integer NOT NULL DEFAULT 0,
  sla_res_met integer NOT NULL DEFAULT 0,
  sla_res_breached integer NOT NULL DEFAULT 0,
  fr_n integer NOT NULL DEFAULT 0,
  fr_sum float8 NOT NULL DEFAULT 0,
  fr_hist jsonb NOT NULL DEFAULT '{}',
  wait_n integer NOT NULL DEFAULT 0,
  wait_sum float8 NOT NULL DEFAULT 0,
  wait_hist jsonb NOT NULL DEFAULT '{}',
  handling_n integer NOT NULL DEFAULT 0,
  handling_sum float8 NOT NULL DEFAULT 0,
  handling_hist jsonb NOT NULL DEFAULT '{}',
  resolution_n integer NOT NULL DEFAULT 0,
  resolution_sum float8 NOT NULL DEFAULT 0,
  resolution_hist jsonb NOT NULL DEFAULT '{}',
  PRIMARY KEY (account_id, span, grain, hour, team_id, user_id, channel_id, label_id)
);

CREATE TABLE report_chats (
  chat_id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  status text NOT NULL,
  queue text NOT NULL,
  team_id text NOT NULL,
  user_id text,
  channel_id text NOT NULL,
  label_ids text[] NOT NULL DEFAULT '{}',
  cycle_started_at timestamptz,
  human_since timestamptz,
  waiting_since timestamptz,
  assigned_at timestamptz,
  first_response_at timestamptz,
  first_response_due_at timestamptz,
  first_response_breached boolean NOT NULL DEFAULT false,
  closed_at timestamptz
);
-- The consumer forgets conversations closed long ago (their late events need little of it).
CREATE INDEX report_chats_closed_idx ON report_chats (closed_at) WHERE closed_at IS NOT NULL;

CREATE TABLE report_cursor (
  id boolean PRIMARY KEY DEFAULT true CHECK (id),
  seq bigint NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO report_cursor (seq) VALUES (0);
`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`
DROP TABLE report_cursor;
DROP TABLE report_chats;
DROP TABLE report_rollups;
DROP FUNCTION report_hist_add(jsonb, jsonb);
`.execute(db);
}
