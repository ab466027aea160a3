import { sql } from 'kysely';
import type { Db } from '../../db/index.js';
import type { AssignmentMode, UserAvailability } from '../../db/types.js';
import { QUEUE_ATTENDING, QUEUE_WAITING, slaAtRiskSql, slaBreachedSql } from '../chats/index.js';

/** The figures of the open, not snoozed conversations of one team in one channel. */
export interface BoardCell {
  team_id: string;
  channel_id: string;
  waiting: number;
  longest: string | null;
  attending: number;
  at_risk: number;
  breached: number;
}

/** Everything the board of an account is built from, read in one statement (one snapshot). */
export interface BoardSnapshot {
  at: string;
  cells: BoardCell[];
  /** Open conversations per attendant, every team, snoozed ones included. */
  loads: { user_id: string; n: number }[];
  teams: {
    id: string;
    name: string;
    mode: AssignmentMode;
    max_open: number | null;
    overrides: Record<string, number>;
  }[];
  members: { team_id: string; user_id: string; name: string; availability: UserAvailability }[];
  channels: { id: string; name: string }[];
}

const WAITING = sql`queue = ${QUEUE_WAITING} AND user_id IS NULL`;
const BREACHED = sql.raw(slaBreachedSql(''));
const AT_RISK = sql.raw(slaAtRiskSql(''));

/**
 * What the live board reads (docs/adr/0090-live-board.md). One statement, so every figure is of one
 * snapshot and the board costs one round trip: a single pass over the account's **open** chats
 * (an index of open chats, or `chats_list_idx` by account and status — closed ones are never read;
 * `EXPLAIN` in the ADR) grouped two ways at once (by team
 * and channel for the figures, by attendant for the loads), plus the account's teams, their assignment
 * settings, members and channels by their account indexes.
 */
export class BoardRepo {
  constructor(private readonly db: Db) {}

  async snapshot(accountId: string): Promise<BoardSnapshot> {
    const { rows } = await sql<BoardSnapshot>`
WITH open AS (
  SELECT team_id, channel_id, user_id, GROUPING(user_id) AS by_cell,
    count(*) FILTER (WHERE snoozed_at IS NULL AND ${WAITING})::int AS waiting,
    min(waiting_since) FILTER (WHERE snoozed_at IS NULL AND ${WAITING}) AS longest,
    count(*) FILTER (WHERE snoozed_at IS NULL AND queue = ${QUEUE_ATTENDING})::int AS attending,
    count(*) FILTER (WHERE snoozed_at IS NULL AND ${AT_RISK})::int AS at_risk,
    count(*) FILTER (WHERE snoozed_at IS NULL AND ${BREACHED})::int AS breached,
    count(*)::int AS n
  FROM chats
  WHERE account_id = ${accountId} AND status = 'open'
  GROUP BY GROUPING SETS ((team_id, channel_id), (user_id))
)
SELECT
  to_json(now()) #>> '{}' AS at,
  coalesce((SELECT json_agg(json_build_object('team_id', team_id, 'channel_id', channel_id,
      'waiting', waiting, 'longest', longest, 'attending', attending, 'at_risk', at_risk, 'breached', breached))
    FROM open WHERE by_cell = 1), '[]') AS cells,
  coalesce((SELECT json_agg(json_build_object('user_id', user_id, 'n', n))
    FROM open WHERE by_cell = 0 AND user_id IS NOT NULL), '[]') AS loads,
  coalesce((SELECT json_agg(json_build_object('id', t.id, 'name', t.name, 'mode', coalesce(a.mode, 'off'),
      'max_open', a.max_open, 'overrides', coalesce(a.overrides, '{}')) ORDER BY t.name, t.id)
    FROM teams t LEFT JOIN team_assignment a ON a.team_id = t.id
    WHERE t.account_id = ${accountId} AND t.status = 'active'), '[]') AS teams,
  coalesce((SELECT json_agg(json_build_object('team_id', m.team_id, 'user_id', u.id, 'name', u.name,
      'availability', u.availability))
    FROM users u JOIN team_members m ON m.user_id = u.id
    WHERE u.account_id = ${accountId} AND u.status = 'active'
      AND EXISTS (SELECT 1 FROM roles r WHERE r.id = u.role_id AND 'chats:attend' = ANY(r.permissions))), '[]') AS members,
  coalesce((SELECT json_agg(json_build_object('id', c.id, 'name', c.name) ORDER BY c.name, c.id)
    FROM channels c WHERE c.account_id = ${accountId}), '[]') AS channels`.execute(this.db);
    const row = rows[0];
    if (!row) throw new Error('the board statement returned no row');
    return row;
  }
}
