import { sql, type QueryExecutorProvider } from 'kysely';

/**
 * How many of an account's list totals differ from counting its chats: every `chat_counts`
 * combination and every `chat_totals` total (channel, team, attendant and label, migration 051), each
 * the sum of its slots, compared with a count of the chats under their list status (a snoozed open
 * chat counts as `snoozed`). Also counted: each label link whose list position (its chat's status and
 * creation instant, migration 064) is not its chat's. Zero when the counters are exact.
 */
export async function countersOff(db: QueryExecutorProvider, accountId: string): Promise<number> {
  const { rows } = await sql<{ bad: number }>`
    WITH listed AS (
      SELECT id, CASE WHEN status = 'open' AND snoozed_at IS NOT NULL THEN 'snoozed' ELSE status END AS status,
             channel_id, team_id, queue, coalesce(user_id, '') AS user_id
      FROM chats WHERE account_id = ${accountId}
    )
    SELECT (SELECT count(*) FROM
       (SELECT status, channel_id, team_id, queue, user_id, count(*) AS n FROM listed GROUP BY 1, 2, 3, 4, 5) a
       FULL JOIN (SELECT status, channel_id, team_id, queue, user_id, sum(n) AS n FROM chat_counts
                   WHERE account_id = ${accountId} GROUP BY 1, 2, 3, 4, 5 HAVING sum(n) <> 0) b
         USING (status, channel_id, team_id, queue, user_id)
      WHERE a.n IS DISTINCT FROM b.n)
     + (SELECT count(*) FROM
       (SELECT status, d.dim, d.value, queue, count(*) AS n
          FROM listed, LATERAL (VALUES ('channel', channel_id), ('team', team_id), ('user', user_id)) AS d(dim, value)
         GROUP BY 1, 2, 3, 4
        UNION ALL
        SELECT c.status, 'label', l.label_id, c.queue, count(*)
          FROM listed c JOIN chat_labels l ON l.chat_id = c.id GROUP BY 1, 3, 4) a
       FULL JOIN (SELECT status, dim, value, queue, sum(n) AS n FROM chat_totals
                   WHERE account_id = ${accountId} GROUP BY 1, 2, 3, 4 HAVING sum(n) <> 0) b
         USING (status, dim, value, queue)
      WHERE a.n IS DISTINCT FROM b.n)
     + (SELECT count(*) FROM chat_labels l JOIN chats c ON c.id = l.chat_id
         WHERE c.account_id = ${accountId}
           AND (l.chat_status, l.chat_created_at) IS DISTINCT FROM (c.status, c.created_at))::int AS bad`.execute(
    db,
  );
  return rows[0]!.bad;
}
