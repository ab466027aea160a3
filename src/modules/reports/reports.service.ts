import type { UserActor } from '../../access/actors.js';
import type { AuditService } from '../audit/index.js';
import { badRequest, forbidden, notFound } from '../../http/errors.js';
import { en } from '../../http/language.js';
import { canonicalTimeZone, DEFAULT_TIME_ZONE, isCalendarDate, type TeamsRepo } from '../teams/index.js';
import { grainFor, REPORT_DAY_ZONE, SPAN_DAY, SPAN_HOUR, type Dim } from './grains.js';
import type { ReportsRepo, RollupFilter } from './reports.repo.js';
import {
  HOURLY_MAX_DAYS,
  MAX_RANGE_DAYS,
  type AgentReportQueryT,
  type ExportQueryT,
  type FreshnessT,
  type GroupBy,
  type MyReportQueryT,
  type MyReportT,
  type ReportQueryT,
  type ReportT,
} from './reports.schemas.js';
import { reportCsv, type GroupSeries } from './reports.csv.js';
import { BucketSeries, Tally } from './tally.js';
import { bucketIndex, bucketsOf, datesBetween, localDate } from './zone.js';

/** The backlog, in seconds, past which a report says its rollups are catching up. */
export const CATCHING_UP_SECONDS = 10;

export const BAD_DATE = en('from and to must be dates YYYY-MM-DD', 'from e to devem ser datas AAAA-MM-DD');
export const RANGE_BACKWARDS = en('to must not be before from', 'to não pode ser anterior a from');
export const RANGE_TOO_LONG = en(
  `The range must be at most ${MAX_RANGE_DAYS} days`,
  `O período deve ter no máximo ${MAX_RANGE_DAYS} dias`,
);
export const HOURLY_TOO_LONG = en(
  `granularity hour needs a range of at most ${HOURLY_MAX_DAYS} days`,
  `granularity hour exige um período de no máximo ${HOURLY_MAX_DAYS} dias`,
);
export const UNKNOWN_TIME_ZONE = en('Unknown time zone', 'Fuso horário desconhecido');

const GROUP_COLUMN = {
  team: 'team_id',
  agent: 'user_id',
  channel: 'channel_id',
  label: 'label_id',
} as const;
const GROUP_DIM: Record<Exclude<GroupBy, 'none'>, Dim> = {
  team: 'team',
  agent: 'user',
  channel: 'channel',
  label: 'label',
};
const GROUP_KIND = { team: 'team', agent: 'user', channel: 'channel', label: 'label' } as const;

interface Query {
  from: string;
  to: string;
  timeZone?: string | undefined;
  granularity?: 'hour' | 'day' | undefined;
  teamId?: string | undefined;
  channelId?: string | undefined;
  agentId?: string | undefined;
  labelId?: string | undefined;
  groupBy?: GroupBy | undefined;
}

/**
 * Conversation and agent reports read from the rollups (docs/adr/0089-reports-and-rollups.md):
 * admins (`chats:supervise`) the whole account, supervisors (`chats:supervise_team`) their teams',
 * everyone their own (`me`).
 */
export class ReportsService {
  private readonly zones = new Map<string, string>();

  constructor(
    private readonly repo: ReportsRepo,
    private readonly teams: TeamsRepo,
    private readonly audit: AuditService,
  ) {}

  async conversations(actor: UserActor, query: ReportQueryT): Promise<ReportT> {
    const teams = await this.scope(actor);
    return (await this.build(actor, query, teams)).report;
  }

  /** Either report as CSV (`reportCsv`). */
  async export(actor: UserActor, query: ExportQueryT): Promise<string> {
    const teams = await this.scope(actor);
    const { report: which, ...q } = query;
    const groupBy = which === 'agents' ? 'agent' : q.groupBy;
    const built = await this.build(actor, { ...q, groupBy }, teams, true);
    // Figures per agent are about people: who downloaded which report is kept (ids and dates only).
    await this.audit.recordDownload(actor, {
      action: 'report.export',
      target: { type: 'report', id: which },
      details: { ...q, groupBy },
    });
    return reportCsv(built.report, built.groupSeries);
  }

  async agents(actor: UserActor, query: AgentReportQueryT): Promise<ReportT> {
    const teams = await this.scope(actor);
    return (await this.build(actor, { ...query, groupBy: 'agent' }, teams)).report;
  }

  async me(actor: UserActor, query: MyReportQueryT): Promise<MyReportT> {
    const timeZone = this.zone(query.timeZone);
    const today = localDate(timeZone, Date.now());
    const q = { from: today, to: today, timeZone, granularity: query.granularity, agentId: actor.userId };
    const [report, openNow] = await Promise.all([
      this.build(actor, q, null),
      this.repo.openOf(actor.accountId, actor.userId),
    ]);
    return { ...report.report, openNow };
  }

  /** null: every team of the account (an admin); else the supervisor's teams. */
  private async scope(actor: UserActor): Promise<string[] | null> {
    if (actor.permissions.has('chats:supervise')) return null;
    if (actor.permissions.has('chats:supervise_team')) return this.teams.teamsOf(actor.userId);
    throw forbidden(
      en('Reports are for supervisors and admins', 'Relatórios são para supervisores e administradores'),
    );
  }

  private zone(timeZone: string | undefined): string {
    if (timeZone === undefined) return DEFAULT_TIME_ZONE;
    // Known names are kept (resolving one builds a formatter); unknown ones are not, so no caller grows it.
    let tz = this.zones.get(timeZone);
    if (tz === undefined) {
      tz = canonicalTimeZone(timeZone);
      if (!tz) throw badRequest(UNKNOWN_TIME_ZONE);
      if (this.zones.size < 1_000) this.zones.set(timeZone, tz);
    }
    return tz;
  }

  private range(q: Query): { timeZone: string; granularity: 'hour' | 'day' } {
    if (!isCalendarDate(q.from) || !isCalendarDate(q.to)) throw badRequest(BAD_DATE);
    if (q.to < q.from) throw badRequest(RANGE_BACKWARDS);
    const days = datesBetween(q.from, q.to, MAX_RANGE_DAYS).length;
    if (days > MAX_RANGE_DAYS) throw badRequest(RANGE_TOO_LONG);
    const granularity = q.granularity ?? 'day';
    if (granularity === 'hour' && days > HOURLY_MAX_DAYS) throw badRequest(HOURLY_TOO_LONG);
    return { timeZone: this.zone(q.timeZone), granularity };
  }

  /** Another account's ids are 404; a supervisor's filter on a team not theirs is 403. */
  private async checkFilters(actor: UserActor, q: Query, teams: string[] | null): Promise<void> {
    const checks: [string | undefined, 'team' | 'user' | 'channel' | 'label'][] = [
      [q.teamId, 'team'],
      [q.agentId === actor.userId ? undefined : q.agentId, 'user'],
      [q.channelId, 'channel'],
      [q.labelId, 'label'],
    ];
    const found = await Promise.all(
      checks.map(
        async ([id, kind]) =>
          id === undefined || (await this.repo.existing(actor.accountId, kind, [id])).has(id),
      ),
    );
    if (found.includes(false)) throw notFound();
    if (q.teamId !== undefined && teams && !teams.includes(q.teamId)) {
      throw forbidden(en('Not a team you supervise', 'Não é uma equipe que você supervisiona'));
    }
  }

  private async build(
    actor: UserActor,
    q: Query,
    teams: string[] | null,
    withGroupSeries = false,
  ): Promise<{ report: ReportT; groupSeries: GroupSeries }> {
    const { timeZone, granularity } = this.range(q);
    await this.checkFilters(actor, q, teams);
    const groupBy = q.groupBy ?? 'none';
    const dims = new Set<Dim>();
    if (q.teamId || teams) dims.add('team');
    if (q.agentId) dims.add('user');
    if (q.channelId) dims.add('channel');
    if (q.labelId) dims.add('label');
    if (groupBy !== 'none') dims.add(GROUP_DIM[groupBy]);
    const { starts, start, end } = bucketsOf(timeZone, q.from, q.to, granularity);
    const filter: RollupFilter = {
      accountId: actor.accountId,
      // Days in the day rows' zone read one row a day; anything else the hour rows.
      span: granularity === 'day' && timeZone === REPORT_DAY_ZONE ? SPAN_DAY : SPAN_HOUR,
      grain: grainFor(dims),
      start: new Date(start),
      end: new Date(end),
      teams: q.teamId ? [q.teamId] : teams,
      userId: q.agentId,
      channelId: q.channelId,
      labelId: q.labelId,
      groupColumn: groupBy === 'none' ? null : GROUP_COLUMN[groupBy],
    };
    const [rows, freshness] = await Promise.all([this.repo.rows(filter), this.freshness()]);
    // Rows come oldest first: a bucket is complete when a row of a later one arrives (BucketSeries).
    const totals = new Tally();
    const series = new BucketSeries();
    const groups = new Map<string, Tally>();
    const perGroup = new Map<string, BucketSeries>();
    for (const row of rows) {
      const i = bucketIndex(starts, row.hour);
      series.closeUpTo(i, totals);
      series.open.addRow(row);
      if (groupBy === 'none') continue;
      let g = groups.get(row.group);
      if (!g) groups.set(row.group, (g = new Tally()));
      g.addRow(row);
      if (!withGroupSeries) continue;
      let gs = perGroup.get(row.group);
      if (!gs) perGroup.set(row.group, (gs = new BucketSeries()));
      gs.closeUpTo(i);
      gs.open.addRow(row);
    }
    series.closeUpTo(starts.length, totals);
    const groupSeries: GroupSeries = new Map(
      [...perGroup.entries()].map(([id, gs]) => {
        gs.closeUpTo(starts.length);
        return [id, gs.metrics];
      }),
    );
    const names =
      groupBy === 'none'
        ? new Map<string, string>()
        : await this.repo.existing(
            actor.accountId,
            GROUP_KIND[groupBy],
            [...groups.keys()].filter((id) => id !== ''),
          );
    const report: ReportT = {
      range: { from: q.from, to: q.to, timeZone, granularity },
      freshness,
      totals: totals.metrics(),
      series: starts.map((s, i) => ({
        start: new Date(s).toISOString(),
        metrics: series.metrics[i] ?? new Tally().metrics(),
      })),
      // What no attendant (or no label) held is in the totals and the series only.
      groups: [...groups.entries()]
        .filter(([id]) => id !== '')
        .map(([id, tally]) => ({ id, name: names.get(id) ?? '', metrics: tally.metrics() }))
        .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id)),
    };
    return { report, groupSeries };
  }

  private async freshness(): Promise<FreshnessT> {
    const { nextAt, now } = await this.repo.freshness();
    const upTo = nextAt && nextAt < now ? nextAt : now;
    const lagSeconds = Math.max(0, (now.getTime() - upTo.getTime()) / 1000);
    return {
      upTo: upTo.toISOString(),
      lagSeconds: Math.round(lagSeconds * 1000) / 1000,
      catchingUp: lagSeconds > CATCHING_UP_SECONDS,
    };
  }
}
