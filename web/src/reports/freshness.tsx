import { useI18n } from '../i18n';
import { formatUpTo } from './format';
import { todayIn } from './query';
import type { Report } from './types';

/**
 * How current the figures are: "up to 14:32" (the rollups' last bucket closed, in the report's time
 * zone), and a notice while the server's rollups catch up with the events, when the figures are short.
 */
export function Freshness(props: { report: Report | null; loading: boolean }) {
  const { t, lang } = useI18n();
  const { report } = props;
  if (!report) return <p className="report-freshness muted">{props.loading ? t('common.loading') : ''}</p>;
  const { freshness, range } = report;
  return (
    <>
      <p className="report-freshness muted" data-testid="report-freshness">
        {freshness.upTo
          ? t('reports.upTo', {
              time: formatUpTo(lang, range.timeZone, freshness.upTo, todayIn(range.timeZone)),
            })
          : t('reports.noData')}
        {props.loading && <span className="report-spinner" aria-hidden="true" />}
      </p>
      {freshness.catchingUp && (
        <p className="warning report-catching-up" role="status" data-testid="report-catching-up">
          {t('reports.catchingUp')}
        </p>
      )}
    </>
  );
}
