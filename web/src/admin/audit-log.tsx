import { useState } from 'react';
import { get, qs } from '../api';
import { textOr, useI18n } from '../i18n';
import type { AuditEntry, AuditPage, User } from '../models';
import { SelectField, TextField } from './fields';
import { DataTable, LoadState, PageHeader, ShortId, type Column } from './list-page';
import { errorMessages, onForm, useLoad } from './load';

const PAGE_SIZE = 50;
// The action filter's choices: each a prefix of the actions it lists (`audit.group.*` names them).
const ACTION_GROUPS = [
  'user.',
  'apikey.',
  'channel.',
  'team.',
  'webhook.',
  'bot.',
  'contact.',
  'retention.',
  'label.',
  'attribute.',
  'canned.',
  'report.',
] as const;

interface Filters {
  actorId: string;
  action: string;
  targetId: string;
  from: string;
  to: string;
}
const NO_FILTERS: Filters = { actorId: '', action: '', targetId: '', from: '', to: '' };

/** A local calendar day's start as an instant; `next` gives the following day's (an inclusive "to"). */
function dayStart(day: string, next = false): string | undefined {
  if (!day) return undefined;
  const d = new Date(`${day}T00:00:00`);
  if (Number.isNaN(d.getTime())) return undefined;
  if (next) d.setDate(d.getDate() + 1);
  return d.toISOString();
}

const query = (f: Filters, before?: string) =>
  qs({
    actorId: f.actorId,
    action: f.action,
    targetId: f.targetId,
    from: dayStart(f.from),
    to: dayStart(f.to, true),
    before,
    limit: PAGE_SIZE,
  });

/** The account's audit log: who did what to what, when and from where; filters and older pages. */
export function AuditLogPage() {
  const { t, time } = useI18n();
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [applied, setApplied] = useState<Filters>(NO_FILTERS);
  const users = useLoad(() => get<User[]>('/api/users'), 'users');
  const log = useLoad(() => get<AuditPage>(`/api/audit-log${query(applied)}`), JSON.stringify(applied));
  const [moreError, setMoreError] = useState<string[] | null>(null);

  const loadMore = async () => {
    const before = log.data?.nextBefore;
    if (!before) return;
    try {
      const page = await get<AuditPage>(`/api/audit-log${query(applied, before)}`);
      log.setData((prev) =>
        prev ? { entries: [...prev.entries, ...page.entries], nextBefore: page.nextBefore } : page,
      );
      setMoreError(null);
    } catch (err) {
      setMoreError(errorMessages(err, t('common.error')));
    }
  };

  const who = (e: AuditEntry) =>
    e.actor.type === 'system'
      ? t('audit.system')
      : `${e.actor.name ?? (e.actor.id ? `…${e.actor.id.slice(-8)}` : '?')}${e.actor.type === 'api_key' ? ` (${t('audit.apiKey')})` : ''}`;

  const columns: Column<AuditEntry>[] = [
    { key: 'when', label: t('audit.when'), render: (e) => time(e.createdAt) },
    { key: 'who', label: t('audit.actor'), render: (e) => who(e) },
    {
      key: 'action',
      label: t('audit.action'),
      render: (e) => (
        <span>
          {textOr(t, `audit.action.${e.action}`, e.action)} <code className="muted">{e.action}</code>
        </span>
      ),
    },
    {
      key: 'target',
      label: t('audit.target'),
      render: (e) => (
        <span>
          {e.target.type} {e.target.id && <ShortId id={e.target.id} />}
        </span>
      ),
    },
    {
      key: 'details',
      label: t('audit.details'),
      render: (e) => <code className="adm-break">{JSON.stringify(e.details)}</code>,
    },
    {
      key: 'origin',
      label: t('audit.origin'),
      render: (e) => (
        <span className="adm-break">
          {e.ip ?? '—'}
          {e.userAgent && <small className="muted adm-block">{e.userAgent}</small>}
        </span>
      ),
    },
  ];

  const set = (key: keyof Filters) => (value: string) => setDraft((d) => ({ ...d, [key]: value }));

  return (
    <>
      <PageHeader title={t('audit.title')}>
        <button type="button" className="btn" disabled={log.loading} onClick={() => void log.reload()}>
          {t('audit.refresh')}
        </button>
      </PageHeader>
      <form
        className="adm-filters"
        role="search"
        aria-label={t('audit.filters')}
        onSubmit={onForm(() => setApplied(draft))}
      >
        <SelectField
          label={t('audit.actor')}
          name="actorId"
          value={draft.actorId}
          onChange={set('actorId')}
          options={[
            { value: '', label: t('audit.anyone') },
            ...(users.data ?? []).map((u) => ({ value: u.id, label: u.name })),
          ]}
        />
        <SelectField
          label={t('audit.action')}
          name="action"
          value={draft.action}
          onChange={set('action')}
          options={[
            { value: '', label: t('audit.anyAction') },
            ...ACTION_GROUPS.map((g) => ({ value: g, label: textOr(t, `audit.group.${g.slice(0, -1)}`, g) })),
          ]}
        />
        <TextField
          label={t('audit.targetId')}
          name="targetId"
          value={draft.targetId}
          onChange={set('targetId')}
        />
        <TextField
          label={t('audit.from')}
          name="from"
          type="date"
          value={draft.from}
          onChange={set('from')}
        />
        <TextField label={t('audit.to')} name="to" type="date" value={draft.to} onChange={set('to')} />
        <button type="submit" className="btn primary">
          {t('audit.apply')}
        </button>
      </form>
      <LoadState loading={log.loading && !log.data} error={log.error} onRetry={() => void log.reload()} />
      {log.data && (
        <DataTable
          caption={t('audit.caption')}
          columns={columns}
          rows={log.data.entries}
          rowKey={(e) => e.id}
          empty={t('audit.empty')}
          testId="audit-log"
        />
      )}
      {moreError && (
        <p className="error" role="alert">
          {moreError.join('; ')}
        </p>
      )}
      {log.data?.nextBefore && (
        <button type="button" className="btn" onClick={() => void loadMore()}>
          {t('audit.more')}
        </button>
      )}
    </>
  );
}
