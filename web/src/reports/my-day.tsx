import { useMemo } from 'react';
import { qs } from '../api';
import { useI18n } from '../i18n';
import { useMe } from '../session';
import { CsatFigure } from './csat';
import { columnsOf, inMinutes } from './figures';
import { Figure, type Row } from './figure';
import { bucketFormatter, formatCount } from './format';
import { Freshness } from './freshness';
import { browserTimeZone } from './query';
import { Totals } from './totals';
import type { MyReport } from './types';
import { useReport } from './use-report';

// "Meu dia" (/my-day), for every user: their own conversations today hour by hour, their response
// times and their CSAT (getMyReport), in the browser's time zone; kept current as the reports page.
// The hours are the table's rows; the totals above are the day's.

export function MyDayPage() {
  const { t, lang } = useI18n();
  const { me } = useMe();
  const timeZone = useMemo(() => browserTimeZone(), []);
  const { report, error, loading, reload } = useReport<MyReport>(
    `/api/reports/me${qs({ timeZone, granularity: 'hour' })}`,
  );
  const cols = useMemo(() => columnsOf(t, lang), [t, lang]);
  const rows = useMemo<Row[]>(() => {
    if (!report) return [];
    const label = bucketFormatter(lang, report.range.timeZone, report.range.granularity, false);
    return report.series.map((b) => ({ key: b.start, label: label(b.start), metrics: b.metrics }));
  }, [report, lang]);
  const minutesText = useMemo(() => (v: number) => `${new Intl.NumberFormat(lang).format(v)} min`, [lang]);
  const day = new Intl.DateTimeFormat(lang, { timeZone, dateStyle: 'full' }).format(new Date());
  const hourHeading = report?.range.granularity === 'day' ? t('reports.day') : t('reports.hour');
  const common = report && {
    rows,
    totals: report.totals,
    totalLabel: t('reports.total'),
    rowHeading: hourHeading,
  };

  return (
    <section className="page reports-page my-day" aria-labelledby="my-day-title" data-testid="my-day-page">
      <header className="page-head report-head">
        <div>
          <h1 id="my-day-title">{t('myDay.title')}</h1>
          <p className="muted">{t('myDay.subtitle', { name: me.user.name, day })}</p>
        </div>
        <div className="report-actions">
          <button type="button" className="btn" onClick={reload}>
            {t('reports.refresh')}
          </button>
        </div>
      </header>
      <Freshness report={report} loading={loading} />
      {error && (
        <div className="error" role="alert">
          {error.map((m) => (
            <p key={m}>{m}</p>
          ))}
        </div>
      )}
      {report && common && (
        <>
          <Totals
            totals={report.totals}
            extra={[{ label: t('myDay.openNow'), value: formatCount(lang, report.openNow) }]}
          />
          <div className="report-figures">
            <Figure
              id="my-conversations"
              title={t('myDay.conversations')}
              type="bar"
              columns={cols.conversations}
              {...common}
            />
            <Figure
              id="my-times"
              title={t('myDay.times')}
              description={t('reports.fig.timesNote')}
              type="line"
              columns={cols.times}
              format={minutesText}
              chartValue={inMinutes}
              {...common}
            />
            <CsatFigure id="my-csat" csat={report.totals.csat} />
          </div>
        </>
      )}
    </section>
  );
}
