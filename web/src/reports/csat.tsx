import { useMemo } from 'react';
import { useI18n } from '../i18n';
import { ReportChart } from './chart';
import { formatCount, formatPercent, formatScore } from './format';
import type { Metrics } from './types';

// CSAT: how many ratings of each score (1 to 5) the range got, their number and average; the chart
// and its table.

const SCORES = [1, 2, 3, 4, 5];

export function CsatFigure(props: { csat: Metrics['csat']; id?: string }) {
  const { t, lang } = useI18n();
  const { csat } = props;
  const id = props.id ?? 'csat';
  const tableId = `table-${id}`;
  const labels = useMemo(() => SCORES.map((s) => t('reports.csat.score', { n: s })), [t]);
  const series = useMemo(
    () => [{ label: t('reports.csat.ratings'), data: SCORES.map((_, i) => csat.distribution[i] ?? 0) }],
    [csat, t],
  );
  const share = (n: number) => (csat.count > 0 ? n / csat.count : null);

  return (
    <section className="report-figure card" aria-labelledby={`${id}-title`} data-testid={`figure-${id}`}>
      <h2 id={`${id}-title`}>{t('reports.fig.csat')}</h2>
      <p className="report-figure-note">
        {csat.count > 0
          ? t('reports.csat.summary', {
              avg: formatScore(lang, csat.average),
              n: formatCount(lang, csat.count),
            })
          : t('reports.csat.none')}
      </p>
      <div className="report-figure-body">
        <ReportChart
          type="bar"
          labels={labels}
          series={series}
          tableId={tableId}
          title={t('reports.fig.csat')}
        />
        <div className="report-table-wrap" role="region" tabIndex={0} aria-labelledby={`${id}-title`}>
          <table className="report-table" id={tableId} data-testid={tableId}>
            <caption className="sr-only">{t('reports.fig.csat')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('reports.csat.scoreHeading')}</th>
                <th scope="col">{t('reports.csat.ratings')}</th>
                <th scope="col">{t('reports.csat.share')}</th>
              </tr>
            </thead>
            <tbody>
              {SCORES.map((s, i) => {
                const n = csat.distribution[i] ?? 0;
                return (
                  <tr key={s} data-row={String(s)}>
                    <th scope="row">{labels[i]}</th>
                    <td data-col="count">{formatCount(lang, n)}</td>
                    <td data-col="share">{formatPercent(lang, share(n))}</td>
                  </tr>
                );
              })}
            </tbody>
            <tfoot>
              <tr data-row="total">
                <th scope="row">{t('reports.total')}</th>
                <td data-col="count">{formatCount(lang, csat.count)}</td>
                <td data-col="average">
                  {t('reports.csat.average', { avg: formatScore(lang, csat.average) })}
                </td>
              </tr>
            </tfoot>
          </table>
        </div>
      </div>
    </section>
  );
}
