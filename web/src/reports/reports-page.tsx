import { useEffect, useMemo, useState } from 'react';
import { useI18n } from '../i18n';
import { useCommands, type Command } from '../keys/registry';
import { ReportFigures } from './figures';
import { ReportFilters } from './filters';
import { Freshness } from './freshness';
import { exportPath, pageSearch, parseQuery, queryProblem, reportPath, type ReportQuery } from './query';
import { Totals } from './totals';
import { useReport } from './use-report';

// "Relatórios" (/reports), for supervisors (their teams) and admins (the account): a range in a time
// zone, hourly or daily buckets, a breakdown and filters; the figures as charts with their tables;
// the same query as a CSV download; and how current the figures are.

export function ReportsPage() {
  const { t } = useI18n();
  const [query, setQuery] = useState<ReportQuery>(() => parseQuery(location.search));
  const problem = queryProblem(query);
  const { report, error, loading, reload } = useReport(problem ? null : reportPath(query));

  // The query is the page's address (replaced, not pushed: Back leaves the page).
  useEffect(() => {
    const search = pageSearch(query);
    if (location.pathname === '/reports' && location.search !== search)
      history.replaceState(null, '', `/reports${search}`);
  }, [query]);

  const commands = useMemo<Command[]>(
    () => [{ id: 'reports.refresh', group: 'general', title: t('reports.refresh'), run: reload }],
    [t, reload],
  );
  useCommands(commands);

  return (
    <section className="page reports-page" aria-labelledby="reports-title" data-testid="reports-page">
      <header className="page-head report-head">
        <h1 id="reports-title">{t('reports.title')}</h1>
        <div className="report-actions">
          <button type="button" className="btn" onClick={reload} disabled={Boolean(problem)}>
            {t('reports.refresh')}
          </button>
          {problem ? (
            <span className="btn" aria-disabled="true">
              {t('reports.export')}
            </span>
          ) : (
            <a
              className="btn primary"
              href={exportPath(query)}
              download={`${query.report}-${query.from}-${query.to}.csv`}
              data-testid="report-export"
            >
              {t('reports.export')}
            </a>
          )}
        </div>
      </header>
      <ReportFilters query={query} onChange={setQuery} />
      <Freshness report={report} loading={loading} />
      {problem && (
        <p className="error" role="alert">
          {t(`reports.problem.${problem}`)}
        </p>
      )}
      {error && !problem && (
        <div className="error" role="alert">
          {error.map((m) => (
            <p key={m}>{m}</p>
          ))}
        </div>
      )}
      {report && (
        <>
          <Totals totals={report.totals} />
          <ReportFigures report={report} groupBy={query.report === 'agents' ? 'agent' : query.groupBy} />
        </>
      )}
    </section>
  );
}
