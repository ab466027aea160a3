import type { ReactNode } from 'react';
import { useI18n } from '../i18n';
import type { Loaded } from './load';

// The admin list pages: a header with its actions, the loading state, and a table that turns into
// cards on a phone. AdminListPage puts them together for the five lists (users, teams, channels, API
// keys, webhooks); the pieces serve the pages that are not plain lists (a channel, a webhook's
// deliveries).

/**
 * One admin list: the title with its "new" button, the loading state (or the API's error and a
 * retry), filters and a count when the screen has them, and the table; the screen's dialogs follow.
 */
export function AdminListPage<T>(props: {
  title: string;
  newLabel: string;
  onNew: () => void;
  list: Loaded<T[]>;
  /** The rows shown: the list itself unless the screen filters it. */
  rows?: T[];
  filters?: ReactNode;
  count?: ReactNode;
  columns: Column<T>[];
  rowKey: (row: T) => string;
  rowClass?: (row: T) => string | undefined;
  empty: ReactNode;
  testId: string;
  /** The screen's dialogs. */
  children?: ReactNode;
}) {
  const { list } = props;
  return (
    <>
      <PageHeader title={props.title}>
        <button type="button" className="btn primary" onClick={props.onNew}>
          {props.newLabel}
        </button>
      </PageHeader>
      {props.filters}
      <LoadState loading={list.loading && !list.data} error={list.error} onRetry={() => void list.reload()} />
      {list.data && (
        <>
          {props.count}
          <DataTable
            caption={props.title}
            columns={props.columns}
            rows={props.rows ?? list.data}
            rowKey={props.rowKey}
            rowClass={props.rowClass}
            empty={props.empty}
            testId={props.testId}
          />
        </>
      )}
      {props.children}
    </>
  );
}

export interface Column<T> {
  key: string;
  label: string;
  render: (row: T) => ReactNode;
  className?: string;
}

/**
 * A table that becomes one card per row on narrow screens: every cell carries its column's label,
 * which the stylesheet shows before the value there.
 */
export function DataTable<T>(props: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  rowClass?: (row: T) => string | undefined;
  empty: ReactNode;
  testId?: string;
}) {
  if (props.rows.length === 0) return <p className="muted adm-empty">{props.empty}</p>;
  return (
    <div className="adm-table-wrap">
      <table className="adm-table" data-testid={props.testId}>
        <caption className="sr-only">{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((c) => (
              <th key={c.key} scope="col" className={c.className}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)} className={props.rowClass?.(row)}>
              {props.columns.map((c) => (
                <td key={c.key} data-label={c.label} className={c.className}>
                  {c.render(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function PageHeader(props: { title: string; children?: ReactNode; back?: ReactNode }) {
  return (
    <header className="adm-header">
      <div>
        {props.back}
        <h1>{props.title}</h1>
      </div>
      {props.children && <div className="adm-header-actions">{props.children}</div>}
    </header>
  );
}

export function LoadState(props: { loading: boolean; error: string[] | null; onRetry: () => void }) {
  const { t } = useI18n();
  if (props.error) {
    return (
      <div className="error adm-errors" role="alert">
        <p>{props.error.join('; ')}</p>
        <button type="button" className="btn" onClick={props.onRetry}>
          {t('admin.retry')}
        </button>
      </div>
    );
  }
  if (props.loading)
    return (
      <p className="muted" role="status">
        {t('common.loading')}
      </p>
    );
  return null;
}

export function Badge(props: { tone: 'ok' | 'warn' | 'bad' | 'neutral' | 'info'; children: ReactNode }) {
  return <span className={`adm-badge ${props.tone}`}>{props.children}</span>;
}

/** Page navigation of a paged list. */
export function Pager(props: { page: number; limit: number; total: number; onPage: (page: number) => void }) {
  const { t } = useI18n();
  const pages = Math.max(1, Math.ceil(props.total / props.limit));
  if (props.total === 0) return null;
  return (
    <nav className="adm-pager" aria-label={t('common.page', { page: props.page, pages })}>
      <button
        type="button"
        className="btn"
        disabled={props.page <= 1}
        onClick={() => props.onPage(props.page - 1)}
      >
        {t('common.previous')}
      </button>
      <span>
        {t('common.page', { page: props.page, pages })} · {t('admin.total', { n: props.total })}
      </span>
      <button
        type="button"
        className="btn"
        disabled={props.page >= pages}
        onClick={() => props.onPage(props.page + 1)}
      >
        {t('common.next')}
      </button>
    </nav>
  );
}

/** A short, readable form of a long id (the full one in the title and for screen readers). */
export function ShortId(props: { id: string }) {
  // Ids begin with their creation time (ObjectIds and UUIDv7 alike), so ids made close together share
  // their start: the end is what tells them apart.
  return (
    <code className="adm-id" title={props.id}>
      {shortId(props.id)}
    </code>
  );
}

/** The distinguishing end of a long id. */
export const shortId = (id: string) => (id.length > 12 ? `…${id.slice(-8)}` : id);
