import { qs } from '../api';

// What a report asks for: the range in a time zone, the buckets, the breakdown and the filters — the
// query the reports API shares between its operations (the page, its charts and the CSV export ask
// the same). It lives in the page's address, so a reload or a shared link shows the same report.

export type Granularity = 'hour' | 'day';
export type GroupBy = 'none' | 'team' | 'agent' | 'channel' | 'label';
export type ReportKind = 'conversations' | 'agents';

export const GROUP_BYS: GroupBy[] = ['none', 'team', 'agent', 'channel', 'label'];
/** The API's bounds: at most 366 days, hourly buckets for at most 31. */
export const MAX_DAYS = 366;
export const MAX_HOUR_DAYS = 31;

export interface ReportQuery {
  report: ReportKind;
  from: string;
  to: string;
  timeZone: string;
  granularity: Granularity;
  groupBy: GroupBy;
  teamId: string;
  channelId: string;
  agentId: string;
  labelId: string;
}

/** The browser's time zone (the API's default is the account's). */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'America/Sao_Paulo';
}

/** Today's date (YYYY-MM-DD) in a time zone. */
export function todayIn(timeZone: string, now = new Date()): string {
  // en-CA formats dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(now);
}

/** A date moved by whole days (calendar arithmetic on the date alone, no time zone involved). */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Days from `from` to `to`, both counted. */
export function daysIn(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}

export function defaultQuery(timeZone = browserTimeZone()): ReportQuery {
  const today = todayIn(timeZone);
  return {
    report: 'conversations',
    from: addDays(today, -6),
    to: today,
    timeZone,
    granularity: 'day',
    groupBy: 'none',
    teamId: '',
    channelId: '',
    agentId: '',
    labelId: '',
  };
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The query in an address's search string; what is missing or malformed keeps its default. */
export function parseQuery(search: string, base = defaultQuery()): ReportQuery {
  const p = new URLSearchParams(search);
  const pick = <T extends string>(key: string, allowed: readonly T[], fallback: T): T => {
    const v = p.get(key);
    return v !== null && (allowed as readonly string[]).includes(v) ? (v as T) : fallback;
  };
  const date = (key: string, fallback: string) => {
    const v = p.get(key);
    return v && DATE.test(v) ? v : fallback;
  };
  return {
    report: pick('report', ['conversations', 'agents'] as const, base.report),
    from: date('from', base.from),
    to: date('to', base.to),
    timeZone: p.get('timeZone') || base.timeZone,
    granularity: pick('granularity', ['hour', 'day'] as const, base.granularity),
    groupBy: pick('groupBy', GROUP_BYS, base.groupBy),
    teamId: p.get('teamId') ?? '',
    channelId: p.get('channelId') ?? '',
    agentId: p.get('agentId') ?? '',
    labelId: p.get('labelId') ?? '',
  };
}

/** What is wrong with a query before asking (the server says the same with a 400). */
export function queryProblem(q: ReportQuery): 'order' | 'tooLong' | 'hourTooLong' | null {
  if (!DATE.test(q.from) || !DATE.test(q.to) || q.from > q.to) return 'order';
  const days = daysIn(q.from, q.to);
  if (days > MAX_DAYS) return 'tooLong';
  if (q.granularity === 'hour' && days > MAX_HOUR_DAYS) return 'hourTooLong';
  return null;
}

/** The API's query string for a report (the agents report implies its breakdown). */
export function apiQuery(q: ReportQuery): string {
  return qs({
    from: q.from,
    to: q.to,
    timeZone: q.timeZone,
    granularity: q.granularity,
    groupBy: q.report === 'agents' ? undefined : q.groupBy,
    teamId: q.teamId,
    channelId: q.channelId,
    agentId: q.agentId,
    labelId: q.labelId,
  });
}

export const reportPath = (q: ReportQuery) => `/api/reports/${q.report}${apiQuery(q)}`;

/** The CSV export of the same report, with the same query. */
export function exportPath(q: ReportQuery): string {
  const rest = apiQuery(q).slice(1);
  return `/api/reports/export?report=${q.report}${rest ? `&${rest}` : ''}`;
}

/** The page's own address for a query: only what differs from the defaults, plus the range. */
export function pageSearch(q: ReportQuery): string {
  return qs({
    report: q.report === 'conversations' ? undefined : q.report,
    from: q.from,
    to: q.to,
    timeZone: q.timeZone,
    granularity: q.granularity === 'day' ? undefined : q.granularity,
    groupBy: q.groupBy === 'none' ? undefined : q.groupBy,
    teamId: q.teamId,
    channelId: q.channelId,
    agentId: q.agentId,
    labelId: q.labelId,
  });
}
