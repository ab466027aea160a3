import { sql } from 'kysely';
import type { Db } from '../../db/index.js';
import type { Acc, Hist } from './figures.js';

/** A rollup row as a report reads it: its hour, the value of the dimension grouped by, its figures. */
export interface RollupRead {
  hour: number;
  group: string;
  acc: Acc;
}

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

type Kind = 'team' | 'user' | 'channel' | 'label';
const TABLES = { team: 'teams', user: 'users', channel: 'channels', label: 'labels' } as const;

/** Reads of the rollups and of what reports name (`report_rollups`, migration 059). */
export class ReportsRepo {
  constructor(private readonly db: Db) {}

  /** The rows of one grain in [start, end), filtered; one range of the primary key. */
  async rows(f: RollupFilter): Promise<RollupRead[]> {
    let q = this.db
      .selectFrom('report_rollups')
      .selectAll()
      .where('account_id', '=', f.accountId)
      .where('span', '=', f.span)
      .where('grain', '=', f.grain)
      .where('hour', '>=', f.start)
      .where('hour', '<', f.end);
    if (f.teams) q = q.where('team_id', 'in', f.teams.length > 0 ? [...f.teams] : ['']);
    if (f.userId) q = q.where('user_id', '=', f.userId);
    if (f.channelId) q = q.where('channel_id', '=', f.channelId);
    if (f.labelId) q = q.where('label_id', '=', f.labelId);
    const rows = await q.execute();
    return rows.map((r) => {
      const acc: Acc = {
        counters: {
          opened: r.opened,
          closed: r.closed,
          reopened: r.reopened,
          transfers: r.transfers,
          attended: r.attended,
          messages_in: r.messages_in,
          messages_out: r.messages_out,
          sla_fr_met: r.sla_fr_met,
          sla_fr_breached: r.sla_fr_breached,
          sla_res_met: r.sla_res_met,
          sla_res_breached: r.sla_res_breached,
        },
        csat: r.csat.map(Number),
        durations: {
          fr: { n: r.fr_n, sum: r.fr_sum, hist: r.fr_hist as Hist },
          wait: { n: r.wait_n, sum: r.wait_sum, hist: r.wait_hist as Hist },
          handling: { n: r.handling_n, sum: r.handling_sum, hist: r.handling_hist as Hist },
          resolution: { n: r.resolution_n, sum: r.resolution_sum, hist: r.resolution_hist as Hist },
        },
      };
      return { hour: r.hour.getTime(), group: f.groupColumn ? r[f.groupColumn] : '', acc };
    });
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
