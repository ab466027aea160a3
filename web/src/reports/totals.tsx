import { useI18n } from '../i18n';
import { formatCount, formatDuration, formatPercent, formatScore } from './format';
import type { Metrics } from './types';

/** The range's headline figures, above the charts. */
export function Totals(props: { totals: Metrics; extra?: { label: string; value: string }[] }) {
  const { t, lang } = useI18n();
  const m = props.totals;
  const items = [
    ...(props.extra ?? []),
    { label: t('reports.col.opened'), value: formatCount(lang, m.opened) },
    { label: t('reports.col.attended'), value: formatCount(lang, m.attended) },
    { label: t('reports.col.closed'), value: formatCount(lang, m.closed) },
    { label: t('reports.col.firstResponseAvg'), value: formatDuration(m.firstResponse.averageSeconds) },
    { label: t('reports.col.waitAvg'), value: formatDuration(m.wait.averageSeconds) },
    { label: t('reports.col.csatAvg'), value: formatScore(lang, m.csat.average) },
    { label: t('reports.col.slaCompliance'), value: formatPercent(lang, m.sla.compliance) },
  ];
  return (
    <dl className="report-totals" data-testid="report-totals">
      {items.map((i) => (
        <div key={i.label} className="report-total card">
          <dt>{i.label}</dt>
          <dd>{i.value}</dd>
        </div>
      ))}
    </dl>
  );
}
