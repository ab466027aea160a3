import { sql } from 'kysely';
import type { Db } from '../../db/index.js';
import { ACTIVITY_EVENTS_SQL } from '../../events/events.repo.js';

export interface ActivityRow {
  seq: string | number;
  id: string;
  event: string;
  occurred_at: Date;
  data: Record<string, unknown>;
}

/** A conversation's activity events, read from the event log (migration 044's index). */
export class ActivityRepo {
  constructor(private readonly db: Db) {}

  /**
   * The chat's events named in `events`, newest first, before `before` (a seq). Their data comes
   * without the chat's full copy, only where it stood (team, attendant, queue), and without the
   * message ids of a split.
   */
  async page(
    accountId: string,
    chatId: string,
    events: readonly string[],
    before: number | null,
    limit: number,
  ): Promise<ActivityRow[]> {
    const { rows } = await sql<ActivityRow>`
      SELECT seq, id, event, occurred_at,
             (data - 'chat' - 'into' - 'messageIds') || jsonb_build_object('chat', jsonb_build_object(
               'teamId', data #> '{chat,teamId}', 'userId', data #> '{chat,userId}', 'queue', data #> '{chat,queue}'
             )) AS data
      FROM events
      WHERE account_id = ${accountId} AND data #>> '{chat,id}' = ${chatId}
        AND ${sql.raw(ACTIVITY_EVENTS_SQL)} AND event = ANY(${events}::text[])
        AND seq < ${before ?? Number.MAX_SAFE_INTEGER}
      ORDER BY seq DESC
      LIMIT ${limit}`.execute(this.db);
    return rows;
  }
}
