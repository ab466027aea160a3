/**
 * The reports' rollups of the seeded data, set-based (docs/adr/0089-reports-and-rollups.md): the
 * seed writes chats and messages with SQL, not through the services, so no event tells the consumer
 * about them; this fills `report_rollups` as the consumer would have, grain by grain, and moves the
 * consumer's cursor past the seed's events.
 *
 * Facts per seeded chat: opened in the hour it was created; closed (the closed ones) in the hour of
 * `closed_at` with its resolution (close − creation) and handling (close − assignment); messages in
 * and out in the hour of each message (read from `messages`). The seed has no capture instants, so a
 * chat's wait is drawn from a hash of its id (10 s – 30 min; assigned at creation + wait) and its
 * first response comes 4 minutes after (the seed's attendant answers 4 minutes after each customer
 * message): figures shaped like real ones, on the seed's real chats, dimensions and labels. Hour rows
 * and the day rows of the reports' day zone (America/Sao_Paulo), as the consumer writes them.
 */
import type pg from 'pg';

const BIN = (v: string) => `CASE WHEN ${v} <= 1 THEN 0 ELSE ceil(16 * ln(${v}) / ln(2))::int END`;

// Each grain's dimensions (src/modules/reports/grains.ts): team, user, channel, label.
const GRAINS: ReadonlyArray<[number, boolean, boolean, boolean, boolean]> = [
  [0, false, false, false, false],
  [1, true, false, false, false],
  [2, true, true, false, false],
  [3, true, false, true, false],
  [4, true, false, false, true],
  [5, true, true, true, false],
  [6, true, true, true, true],
];
const GRAINS_SQL = `(VALUES ${GRAINS.map((g) => `(${g.join(', ')})`).join(', ')}) AS g(grain, gt, gu, gc, gl)`;

/** Fills the account's rollups (in one transaction); answers how many rows. */
export async function fillRollups(c: pg.Client, accountId: string): Promise<number> {
  await c.query('BEGIN');
  await c.query('DELETE FROM report_rollups WHERE account_id = $1', [accountId]);
  // One row per fact: its hour, the chat's dimensions and labels, what it adds.
  await c.query(
    `CREATE TEMP TABLE seed_facts ON COMMIT DROP AS
     WITH ch AS (
       SELECT c.id, c.team_id, coalesce(c.user_id, '') AS user_id, c.channel_id, c.created_at, c.closed_at,
              10 + (hashtext(c.id) & 2147483647) % 1790 AS wait_s,
              ARRAY(SELECT l.label_id FROM chat_labels l WHERE l.chat_id = c.id) AS labels
       FROM chats c WHERE c.account_id = $1
     ), msg AS (
       SELECT chat_id, date_trunc('hour', created_at) AS hour,
              count(*) FILTER (WHERE origin = 'contact')::int AS mi,
              count(*) FILTER (WHERE origin <> 'contact')::int AS mo
       FROM messages WHERE account_id = $1 GROUP BY 1, 2
     )
     SELECT ch.team_id, ch.user_id, ch.channel_id, ch.labels, f.*
     FROM ch CROSS JOIN LATERAL (
       SELECT date_trunc('hour', ch.created_at) AS hour, 1 AS opened, 0 AS closed, 0 AS mi, 0 AS mo,
              ch.wait_s::float8 AS wait_s, (ch.wait_s + 240)::float8 AS fr_s,
              NULL::float8 AS handling_s, NULL::float8 AS resolution_s
       UNION ALL
       SELECT date_trunc('hour', ch.closed_at), 0, 1, 0, 0, NULL, NULL,
              greatest(0, extract(epoch FROM ch.closed_at - ch.created_at) - ch.wait_s),
              extract(epoch FROM ch.closed_at - ch.created_at)
       WHERE ch.closed_at IS NOT NULL
     ) AS f
     UNION ALL
     SELECT ch.team_id, ch.user_id, ch.channel_id, ch.labels, msg.hour, 0, 0, msg.mi, msg.mo,
            NULL, NULL, NULL, NULL
     FROM msg JOIN ch ON ch.id = msg.chat_id`,
    [accountId],
  );
  // Each fact in every grain (the label grains once per label of the chat).
  await c.query(
    `CREATE TEMP TABLE seed_grains ON COMMIT DROP AS
     SELECT sp.span, g.grain,
            CASE WHEN sp.span = 0 THEN f.hour
                 ELSE date_trunc('day', f.hour AT TIME ZONE 'America/Sao_Paulo') AT TIME ZONE 'America/Sao_Paulo' END AS hour,
            CASE WHEN g.gt THEN f.team_id ELSE '' END AS team_id,
            CASE WHEN g.gu THEN f.user_id ELSE '' END AS user_id,
            CASE WHEN g.gc THEN f.channel_id ELSE '' END AS channel_id,
            l.label_id, f.opened, f.closed, f.mi, f.mo, f.wait_s, f.fr_s, f.handling_s, f.resolution_s
     FROM seed_facts f CROSS JOIN ${GRAINS_SQL} CROSS JOIN (VALUES (0), (1)) AS sp(span)
     CROSS JOIN LATERAL unnest(CASE WHEN g.gl THEN f.labels ELSE ARRAY[''] END) AS l(label_id)`,
  );
  const keys = 'span, grain, hour, team_id, user_id, channel_id, label_id';
  const inserted = await c.query(
    `INSERT INTO report_rollups (account_id, ${keys}, opened, closed, messages_in, messages_out)
     SELECT $1, ${keys}, sum(opened), sum(closed), sum(mi), sum(mo)
     FROM seed_grains GROUP BY ${keys}`,
    [accountId],
  );
  for (const d of ['wait', 'fr', 'handling', 'resolution']) {
    await c.query(
      `WITH b AS (
         SELECT ${keys}, ${BIN(`${d}_s`)} AS bin, count(*)::int AS n, sum(${d}_s) AS s
         FROM seed_grains WHERE ${d}_s IS NOT NULL GROUP BY ${keys}, bin
       ), h AS (
         SELECT ${keys}, sum(n)::int AS n, sum(s) AS s, jsonb_object_agg(bin::text, jsonb_build_array(n, s)) AS hist
         FROM b GROUP BY ${keys}
       )
       UPDATE report_rollups r SET ${d}_n = h.n, ${d}_sum = h.s, ${d}_hist = h.hist
       FROM h WHERE r.account_id = $1 AND r.span = h.span AND r.grain = h.grain AND r.hour = h.hour AND r.team_id = h.team_id
         AND r.user_id = h.user_id AND r.channel_id = h.channel_id AND r.label_id = h.label_id`,
      [accountId],
    );
  }
  // The seed's own events (the account, its users and teams) are before the data: nothing to apply.
  await c.query(
    `UPDATE report_cursor SET seq = greatest(seq, coalesce(pg_sequence_last_value('events_seq'), 0))`,
  );
  await c.query('COMMIT');
  await c.query('VACUUM (ANALYZE) report_rollups');
  return inserted.rowCount ?? 0;
}

/** Fills the rollups of a seed made before reports existed (a reused database); a no-op once filled. */
export async function ensureRollups(
  c: pg.Client,
  accountId: string,
  log: (line: string) => void,
): Promise<void> {
  const { rows } = await c.query('SELECT 1 FROM report_rollups WHERE account_id = $1 LIMIT 1', [accountId]);
  if (rows.length > 0) return;
  const t = Date.now();
  const n = await fillRollups(c, accountId);
  log(`  report rollups filled: ${n} rows (${Math.round((Date.now() - t) / 100) / 10} s)`);
}
