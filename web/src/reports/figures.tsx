import { useMemo } from 'react';
import { useI18n, type Lang, type Translate } from '../i18n';
import { CsatFigure } from './csat';
import { Figure, type Column, type Row } from './figure';
import { bucketFormatter, formatCount, formatDuration, formatPercent, formatScore, minutes } from './format';
import type { GroupBy } from './query';
import type { Metrics, Report } from './types';

// The report's figures, each a chart with its table: conversations over time, response and wait
// times, messages, CSAT, SLA compliance; and, when the report is broken down, the groups side by side.

type CountKey = 'opened' | 'closed' | 'reopened' | 'transfers' | 'attended' | 'messagesIn' | 'messagesOut';
/** A count; `csv` is the export's name for it. */
const count = (lang: Lang, key: CountKey, csv: string, label: string): Column => ({
  key: csv,
  label,
  value: (m) => m[key],
  text: (m) => formatCount(lang, m[key]),
});

type DurationKey = 'firstResponse' | 'wait' | 'handling' | 'resolution';
const duration = (
  key: DurationKey,
  stat: 'averageSeconds' | 'p90Seconds',
  csv: string,
  label: string,
): Column => ({
  key: csv,
  label,
  value: (m) => m[key][stat],
  text: (m) => formatDuration(m[key][stat]),
  dashed: stat === 'p90Seconds',
});

export function columnsOf(t: Translate, lang: Lang) {
  const conversations: Column[] = [
    count(lang, 'opened', 'opened', t('reports.col.opened')),
    count(lang, 'closed', 'closed', t('reports.col.closed')),
    count(lang, 'reopened', 'reopened', t('reports.col.reopened')),
    { ...count(lang, 'transfers', 'transfers', t('reports.col.transfers')), charted: false },
    { ...count(lang, 'attended', 'attended', t('reports.col.attended')), charted: false },
  ];
  const times: Column[] = [
    duration('firstResponse', 'averageSeconds', 'first_response_avg_s', t('reports.col.firstResponseAvg')),
    duration('firstResponse', 'p90Seconds', 'first_response_p90_s', t('reports.col.firstResponseP90')),
    duration('wait', 'averageSeconds', 'wait_avg_s', t('reports.col.waitAvg')),
    duration('wait', 'p90Seconds', 'wait_p90_s', t('reports.col.waitP90')),
  ];
  const messages: Column[] = [
    count(lang, 'messagesIn', 'messages_in', t('reports.col.messagesIn')),
    count(lang, 'messagesOut', 'messages_out', t('reports.col.messagesOut')),
  ];
  const slaCount = (
    k: 'firstResponse' | 'resolution',
    v: 'met' | 'breached',
    csv: string,
    label: string,
  ): Column => ({
    key: csv,
    label,
    value: (m) => m.sla[k][v],
    text: (m) => formatCount(lang, m.sla[k][v]),
    charted: false,
  });
  const sla: Column[] = [
    {
      key: 'sla_compliance',
      label: t('reports.col.slaCompliance'),
      value: (m) => (m.sla.compliance === null ? null : Math.round(m.sla.compliance * 1000) / 10),
      text: (m) => formatPercent(lang, m.sla.compliance),
    },
    slaCount('firstResponse', 'met', 'sla_first_response_met', t('reports.col.slaFirstMet')),
    slaCount('firstResponse', 'breached', 'sla_first_response_breached', t('reports.col.slaFirstBreached')),
    slaCount('resolution', 'met', 'sla_resolution_met', t('reports.col.slaResolutionMet')),
    slaCount('resolution', 'breached', 'sla_resolution_breached', t('reports.col.slaResolutionBreached')),
  ];
  return { conversations, times, messages, sla };
}

export const inMinutes = (c: Column, m: Metrics) => minutes(c.value(m));

export function ReportFigures(props: { report: Report; groupBy: GroupBy }) {
  const { t, lang } = useI18n();
  const { report } = props;
  const { range } = report;
  const cols = useMemo(() => columnsOf(t, lang), [t, lang]);
  const rows = useMemo<Row[]>(() => {
    const label = bucketFormatter(lang, range.timeZone, range.granularity, range.from !== range.to);
    return report.series.map((b) => ({ key: b.start, label: label(b.start), metrics: b.metrics }));
  }, [report.series, lang, range]);
  const minutesText = useMemo(() => (v: number) => `${new Intl.NumberFormat(lang).format(v)} min`, [lang]);
  const percentText = useMemo(() => (v: number) => `${new Intl.NumberFormat(lang).format(v)}%`, [lang]);
  const bucketHeading = range.granularity === 'hour' ? t('reports.hour') : t('reports.day');
  const common = { rows, totals: report.totals, totalLabel: t('reports.total'), rowHeading: bucketHeading };

  return (
    <div className="report-figures">
      <Figure
        id="conversations"
        title={t('reports.fig.conversations')}
        type="line"
        columns={cols.conversations}
        {...common}
      />
      <Figure
        id="times"
        title={t('reports.fig.times')}
        description={t('reports.fig.timesNote')}
        type="line"
        columns={cols.times}
        format={minutesText}
        chartValue={inMinutes}
        {...common}
      />
      <Figure
        id="messages"
        title={t('reports.fig.messages')}
        type="bar"
        columns={cols.messages}
        {...common}
      />
      <CsatFigure csat={report.totals.csat} />
      <Figure
        id="sla"
        title={t('reports.fig.sla')}
        description={t('reports.fig.slaNote')}
        type="bar"
        columns={cols.sla}
        format={percentText}
        max={100}
        {...common}
      />
      {report.groups.length > 0 && props.groupBy !== 'none' && (
        <GroupsFigure report={report} heading={t(`reports.groupBy.${props.groupBy}`)} />
      )}
    </div>
  );
}

/** The breakdown: each group's totals, conversations drawn across. */
function GroupsFigure(props: { report: Report; heading: string }) {
  const { t, lang } = useI18n();
  const cols = useMemo(() => columnsOf(t, lang), [t, lang]);
  const columns = useMemo<Column[]>(
    () => [
      ...cols.conversations.slice(0, 2),
      ...cols.conversations.slice(2).map((c) => ({ ...c, charted: false })),
      ...cols.messages.map((c) => ({ ...c, charted: false })),
      ...cols.times.map((c) => ({ ...c, charted: false })),
      {
        key: 'csat_avg',
        label: t('reports.col.csatAvg'),
        value: (m: Metrics) => m.csat.average,
        text: (m: Metrics) => formatScore(lang, m.csat.average),
        charted: false,
      },
      { ...cols.sla[0]!, charted: false },
    ],
    [cols, t, lang],
  );
  const rows = useMemo<Row[]>(
    () => props.report.groups.map((g) => ({ key: g.id, label: g.name, metrics: g.metrics })),
    [props.report.groups],
  );
  return (
    <Figure
      id="groups"
      title={t('reports.fig.groups')}
      type="bar"
      horizontal
      tableBelow
      columns={columns}
      rows={rows}
      totals={props.report.totals}
      totalLabel={t('reports.total')}
      rowHeading={props.heading}
    />
  );
}
