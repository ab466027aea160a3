import { sql } from 'kysely';
import type { Db } from '../../db/index.js';
import { COUNTERS, DURATIONS } from './figures.js';
import type { TallyRow } from './tally.js';

export interface RollupFilter {
  accountId: string;
  span: number;
  grain: number;
  start: Date;
  end: Date;
  /** null: every team. */
  teams: readonly string[] | null;
  userId?: string | undefined;
  channelId?: string | undefined;
  labelId?: string | undefined;
  groupColumn: 'team_id' | 'user_id' | 'channel_id' | 'label_id' | null;
}

/** A rollup row as `rows` selects it: arrays as PostgreSQL prints them (`{1,2,3}`). */
interface RawRollup {
  hour_ms: number;
  grp: string;
  counters: string;
  csat: string;
  n: string;
  sum: string;
  fr_hist: string;
  wait_hist: string;
  handling_hist: string;
  resolution_hist: string;
}

/** The numbers of a one-dimensional array's text (`{1,2.5,3}`). */
const numbers = (text: string): number[] => text.slice(1, -1).split(',').map(Number);

type Kind = 'team' | 'user' | 'channel' | 'label';
const TABLES = { team: 'teams', user: 'users', channel: 'channels', label: 'labels' } as const;

/** Reads of the rollups and of what reports name (`report_rollups`, migration 059). */
export class ReportsRepo {
  constructor(private readonly db: Db) {}

  /**
   * The rows of one grain in [start, end), filtered, oldest hour first: one range of the primary key.
   * The histograms come as their JSON text, for `Tally` to read without building objects.
   */
  async rows(f: RollupFilter): Promise<TallyRow[]> {
    const conditions = [
      sql`account_id = ${f.accountId}`,
      sql`span = ${f.span}`,
      sql`grain = ${f.grain}`,
      sql`hour >= ${f.start}`,
      sql`hour < ${f.end}`,
    ];
    if (f.teams) {
      conditions.push(sql`team_id = ANY(${f.teams.length > 0 ? [...f.teams] : ['']}::text[])`);
    }
    if (f.userId) conditions.push(sql`user_id = ${f.userId}`);
    if (f.channelId) conditions.push(sql`channel_id = ${f.channelId}`);
    if (f.labelId) conditions.push(sql`label_id = ${f.labelId}`);
    const group = f.groupColumn ? sql.ref(f.groupColumn) : sql.lit('');
    const { rows } = await sql<RawRollup>`
      SELECT extract(epoch FROM hour)::float8 * 1000 AS hour_ms, ${group} AS grp,
        ARRAY[${sql.join(COUNTERS.map((c) => sql.ref(c)))}]::int[]::text AS counters, csat::text AS csat,
        ARRAY[${sql.join(DURATIONS.map((d) => sql.ref(`${d}_n`)))}]::int[]::text AS n,
        ARRAY[${sql.join(DURATIONS.map((d) => sql.ref(`${d}_sum`)))}]::float8[]::text AS sum,
        ${sql.join(DURATIONS.map((d) => sql`${sql.ref(`${d}_hist`)}::text AS ${sql.ref(`${d}_hist`)}`))}
      FROM report_rollups
      WHERE ${sql.join(conditions, sql` AND `)}
      ORDER BY hour`.execute(this.db);
    return rows.map((r) => ({
      hour: r.hour_ms,
      group: r.grp,
      counters: numbers(r.counters),
      csat: numbers(r.csat),
      n: numbers(r.n),
      sum: numbers(r.sum),
      hist: [r.fr_hist, r.wait_hist, r.handling_hist, r.resolution_hist],
    }));
  }

  /** Which of these ids are the account's (a team, a user, a channel, a label). */
  async existing(accountId: string, kind: Kind, ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    const rows = await this.db
      .selectFrom(TABLES[kind])
      .select(['id', 'name'])
      .where('account_id', '=', accountId)
      .where('id', 'in', [...ids])
      .execute();
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  /** Open conversations a user attends now. */
  async openOf(accountId: string, userId: string): Promise<number> {
    const row = await this.db
      .selectFrom('chats')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', accountId)
      .where('user_id', '=', userId)
      .where('status', '=', 'open')
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /**
   * How far the rollups are: the instant of the first event not yet applied (every event before it
   * is counted), or null when every event is.
   */
  async freshness(): Promise<{ nextAt: Date | null; now: Date }> {
    const { rows } = await sql<{ next_at: Date | null; now: Date }>`
      SELECT (SELECT e.occurred_at FROM events e WHERE e.seq > c.seq ORDER BY e.seq LIMIT 1) AS next_at,
             now() AS now
      FROM report_cursor c`.execute(this.db);
    return { nextAt: rows[0]?.next_at ?? null, now: rows[0]?.now ?? new Date() };
  }
}
