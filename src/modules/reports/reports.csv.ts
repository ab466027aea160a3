import type { DurationT, MetricsT, ReportT } from './reports.schemas.js';

/**
 * A report as CSV (exportReport): one line per series bucket with the totals (group columns empty)
 * and, grouped, one line per group and bucket. Columns in English snake_case, durations in seconds,
 * an empty cell where the JSON has null.
 */

const DURATIONS = [
  ['first_response', 'firstResponse'],
  ['wait', 'wait'],
  ['handling', 'handling'],
  ['resolution', 'resolution'],
] as const;

export const CSV_COLUMNS = [
  'bucket_start',
  'group_id',
  'group_name',
  'opened',
  'closed',
  'reopened',
  'transfers',
  'attended',
  'messages_in',
  'messages_out',
  ...DURATIONS.flatMap(([n]) => [`${n}_count`, `${n}_avg_s`, `${n}_p50_s`, `${n}_p90_s`, `${n}_p95_s`]),
  'csat_count',
  'csat_avg',
  'csat_1',
  'csat_2',
  'csat_3',
  'csat_4',
  'csat_5',
  'sla_first_response_met',
  'sla_first_response_breached',
  'sla_resolution_met',
  'sla_resolution_breached',
  'sla_compliance',
] as const;

const num = (x: number | null) => (x === null ? '' : String(x));

function durationCells(d: DurationT): string[] {
  return [String(d.count), num(d.averageSeconds), num(d.p50Seconds), num(d.p90Seconds), num(d.p95Seconds)];
}

function metricCells(m: MetricsT): string[] {
  return [
    String(m.opened),
    String(m.closed),
    String(m.reopened),
    String(m.transfers),
    String(m.attended),
    String(m.messagesIn),
    String(m.messagesOut),
    ...DURATIONS.flatMap(([, k]) => durationCells(m[k])),
    String(m.csat.count),
    num(m.csat.average),
    ...m.csat.distribution.map(String),
    String(m.sla.firstResponse.met),
    String(m.sla.firstResponse.breached),
    String(m.sla.resolution.met),
    String(m.sla.resolution.breached),
    num(m.sla.compliance),
  ];
}

/** A cell quoted when it must be, and never read as a formula by a spreadsheet. */
function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) && !/^-?\d/.test(value) ? `'${value}` : value;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A group's figures per bucket, in the order of the report's series. */
export type GroupSeries = Map<string, MetricsT[]>;

export function reportCsv(report: ReportT, groupSeries: GroupSeries): string {
  const lines = [CSV_COLUMNS.join(',')];
  const line = (start: string, id: string, name: string, m: MetricsT) =>
    lines.push([start, id, name, ...metricCells(m)].map(cell).join(','));
  for (const b of report.series) line(b.start, '', '', b.metrics);
  for (const g of report.groups) {
    const series = groupSeries.get(g.id) ?? [];
    report.series.forEach((b, i) => {
      const m = series[i];
      if (m) line(b.start, g.id, g.name, m);
    });
  }
  return lines.join('\r\n') + '\r\n';
}
