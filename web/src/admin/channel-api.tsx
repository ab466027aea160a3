import { useState, type ReactNode } from 'react';
import { get, patch, post, qs } from '../api';
import { Dialog } from '../components';
import { textOr, useI18n } from '../i18n';
import type { Channel, RequestLog, RequestLogPage } from '../models';
import { CopyField, FormErrors, SelectField, TextField } from './fields';
import { ConfirmDialog, SecretDialog } from './form-dialog';
import { Badge, DataTable, LoadState, Pager, ShortId, shortId, type Column } from './list-page';
import { errorMessages, onForm, useLoad } from './load';

const REQUEST_STATUSES = ['queued', 'processing', 'sent', 'failed'] as const;
const TONE: Record<string, 'info' | 'warn' | 'ok' | 'bad'> = {
  queued: 'info',
  processing: 'warn',
  sent: 'ok',
  failed: 'bad',
};
const PAGE_SIZE = 20;

interface LogQuery {
  requestId: string;
  status: string;
  flowId: string;
  page: number;
}
const NO_FILTERS: LogQuery = { requestId: '', status: '', flowId: '', page: 1 };

/**
 * The channel's API tab: the send API on or off, the channel key (generated here, shown once), how to
 * call the send route, and the request log with its filters and each entry's detail.
 */
export function ChannelApiTab(props: { channel: Channel; onChanged: (c: Channel) => void }) {
  const { t } = useI18n();
  const c = props.channel;
  const [toggling, setToggling] = useState(false);
  const [toggleError, setToggleError] = useState<string[]>([]);
  const [confirming, setConfirming] = useState(false);
  const [generating, setGenerating] = useState(false);
  const [keyError, setKeyError] = useState<string[]>([]);
  const [shown, setShown] = useState<{ key: string; replaced: boolean } | null>(null);

  const toggle = async (on: boolean) => {
    setToggling(true);
    setToggleError([]);
    try {
      props.onChanged(await patch<Channel>(`/api/channels/${c.id}`, { apiEnabled: on }));
    } catch (err) {
      setToggleError(errorMessages(err, t('common.error')));
    } finally {
      setToggling(false);
    }
  };

  const generate = async () => {
    const replaced = c.hasApiKey;
    setGenerating(true);
    setKeyError([]);
    try {
      const { apiKey } = await post<{ apiKey: string }>(`/api/channels/${c.id}/api-key`);
      setShown({ key: apiKey, replaced });
      props.onChanged({ ...c, hasApiKey: true });
    } finally {
      setGenerating(false);
    }
  };

  const example = [
    `# ${c.name} (${c.id})`,
    `curl -X POST '${location.origin}/channel-api/messages/send' \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -H 'x-channel-api-key: <CHANNEL_API_KEY>' \\`,
    `  -d '{"contact":{"value":"5511999999999","name":"Maria"},"message":{"type":"text","text":{"value":"Olá!"}},"flowId":"pedido-123"}'`,
  ].join('\n');

  return (
    <div className="adm-stack">
      <section className="card adm-card" aria-labelledby="api-switch-title">
        <h2 id="api-switch-title">{t('channels.api.enabled')}</h2>
        <label className="adm-switch">
          <input
            type="checkbox"
            role="switch"
            checked={c.apiEnabled}
            disabled={toggling}
            onChange={(e) => void toggle(e.target.checked)}
            aria-describedby="api-switch-hint"
            data-testid="api-enabled"
          />
          <span>{c.apiEnabled ? t('channels.apiOn') : t('channels.apiOff')}</span>
        </label>
        <small id="api-switch-hint" className="adm-hint">
          {t('api.toggleHint')}
        </small>
        <FormErrors messages={toggleError} />
      </section>

      <section className="card adm-card" aria-labelledby="api-key-title">
        <h2 id="api-key-title">{t('channels.api.key')}</h2>
        <p className={c.hasApiKey ? 'adm-note' : 'muted'}>
          {c.hasApiKey ? t('channels.api.hasKey') : t('channels.api.noKey')}
        </p>
        <FormErrors messages={keyError} />
        <button
          type="button"
          className="btn primary"
          disabled={generating}
          onClick={() =>
            c.hasApiKey
              ? setConfirming(true)
              : void generate().catch((err: unknown) => setKeyError(errorMessages(err, t('common.error'))))
          }
        >
          {c.hasApiKey ? t('channels.api.regenerate') : t('channels.api.generate')}
        </button>
      </section>

      <section className="card adm-card" aria-labelledby="api-example-title">
        <h2 id="api-example-title">{t('api.example')}</h2>
        <p className="adm-note">{t('channels.api.howto')}</p>
        <CopyField label={t('api.example')} value={example} rows={7} />
        <small className="adm-hint">{t('api.exampleHint')}</small>
        <small className="adm-hint adm-block">{t('api.followHint')}</small>
      </section>

      <RequestLogSection channelId={c.id} />

      {confirming && (
        <ConfirmDialog
          title={t('channels.api.regenerate')}
          message={t('channels.api.regenerateConfirm')}
          confirmLabel={t('channels.api.regenerate')}
          danger
          onConfirm={generate}
          onClose={() => setConfirming(false)}
        />
      )}
      {shown && (
        <SecretDialog
          title={t('api.keyTitle')}
          label={t('channels.api.key')}
          value={shown.key}
          notes={[t('api.keyUsage'), ...(shown.replaced ? [t('api.keyWarning')] : [])]}
          onClose={() => setShown(null)}
          testId="channel-key"
        />
      )}
    </div>
  );
}

function RequestLogSection(props: { channelId: string }) {
  const { t, time } = useI18n();
  const [draft, setDraft] = useState<LogQuery>(NO_FILTERS);
  const [query, setQuery] = useState<LogQuery>(NO_FILTERS);
  const [open, setOpen] = useState<RequestLog | null>(null);
  const log = useLoad(
    () =>
      get<RequestLogPage>(
        `/api/channels/${props.channelId}/request-logs${qs({
          requestId: query.requestId.trim(),
          status: query.status,
          flowId: query.flowId.trim(),
          page: query.page,
          limit: PAGE_SIZE,
        })}`,
      ),
    `${props.channelId}\u0000${JSON.stringify(query)}`,
  );
  // The filters' validation messages (a request id that is not a UUID…) belong under the filters.
  const filterErrors = log.error ?? [];

  const statusText = (s: string) => textOr(t, `rstatus.${s}`, s);
  const columns: Column<RequestLog>[] = [
    {
      key: 'createdAt',
      label: t('common.createdAt'),
      render: (r) => <time dateTime={r.createdAt}>{time(r.createdAt)}</time>,
    },
    { key: 'requestId', label: t('channels.api.requestId'), render: (r) => <ShortId id={r.requestId} /> },
    {
      key: 'status',
      label: t('common.status'),
      render: (r) => <Badge tone={TONE[r.status] ?? 'neutral'}>{statusText(r.status)}</Badge>,
    },
    {
      key: 'contact',
      label: t('channels.api.contact'),
      render: (r) => (
        <span className="adm-break">
          {r.contact.value}
          {r.contact.name && <small className="muted adm-block">{r.contact.name}</small>}
        </span>
      ),
    },
    {
      key: 'type',
      label: t('channels.api.type'),
      render: (r) => (r.templateName ? `${r.messageType} · ${r.templateName}` : r.messageType),
    },
    { key: 'attempts', label: t('channels.api.attempts'), render: (r) => r.attempts },
    {
      key: 'flowId',
      label: t('channels.api.flowId'),
      render: (r) =>
        r.flowId ? <span className="adm-break">{r.flowId}</span> : <span className="muted">—</span>,
    },
    {
      key: 'actions',
      label: t('common.actions'),
      className: 'adm-cell-actions',
      render: (r) => (
        <button
          type="button"
          className="btn small"
          onClick={() => setOpen(r)}
          aria-label={`${t('common.details')}: ${r.requestId}`}
        >
          {t('common.details')}
        </button>
      ),
    },
  ];

  return (
    <section className="card adm-card" aria-labelledby="api-log-title">
      <div className="adm-card-head">
        <h2 id="api-log-title">{t('channels.api.log')}</h2>
        <button type="button" className="btn small" disabled={log.loading} onClick={() => void log.reload()}>
          {t('channels.api.refresh')}
        </button>
      </div>
      <form
        className="adm-filters"
        role="search"
        aria-label={t('api.filters')}
        onSubmit={onForm(() => setQuery({ ...draft, page: 1 }))}
      >
        <TextField
          label={t('channels.api.requestId')}
          name="requestId"
          value={draft.requestId}
          onChange={(v) => setDraft((d) => ({ ...d, requestId: v }))}
          spellCheck={false}
          autoComplete="off"
        />
        <SelectField
          label={t('common.status')}
          name="status"
          value={draft.status}
          onChange={(v) => setDraft((d) => ({ ...d, status: v }))}
          options={[
            { value: '', label: t('api.anyStatus') },
            ...REQUEST_STATUSES.map((s) => ({ value: s, label: statusText(s) })),
          ]}
        />
        <TextField
          label={t('channels.api.flowId')}
          name="flowId"
          value={draft.flowId}
          onChange={(v) => setDraft((d) => ({ ...d, flowId: v }))}
          autoComplete="off"
        />
        <div className="adm-filter-actions">
          <button type="submit" className="btn primary" disabled={log.loading}>
            {t('common.search')}
          </button>
          <button
            type="button"
            className="btn"
            onClick={() => {
              setDraft(NO_FILTERS);
              setQuery(NO_FILTERS);
            }}
          >
            {t('common.clear')}
          </button>
        </div>
      </form>
      {filterErrors.length > 0 ? (
        <FormErrors messages={filterErrors} />
      ) : (
        <LoadState loading={log.loading && !log.data} error={null} onRetry={() => void log.reload()} />
      )}
      {log.data && !log.error && (
        <>
          <DataTable
            caption={t('channels.api.log')}
            columns={columns}
            rows={log.data.items}
            rowKey={(r) => r.requestId}
            empty={t('channels.api.empty')}
            testId="request-log"
          />
          <Pager
            page={log.data.page}
            limit={log.data.limit}
            total={log.data.total}
            onPage={(page) => setQuery((q) => ({ ...q, page }))}
          />
        </>
      )}
      {open && <RequestDetail entry={open} onClose={() => setOpen(null)} />}
    </section>
  );
}

function RequestDetail(props: { entry: RequestLog; onClose: () => void }) {
  const { t, time } = useI18n();
  const r = props.entry;
  const dash = <span className="muted">—</span>;
  const meta = Object.entries(r.metadata ?? {});
  const rows: [string, ReactNode][] = [
    [
      t('common.status'),
      <Badge tone={TONE[r.status] ?? 'neutral'}>{textOr(t, `rstatus.${r.status}`, r.status)}</Badge>,
    ],
    [t('channels.api.attempts'), String(r.attempts)],
    [t('channels.api.flowId'), r.flowId ?? dash],
    [t('api.contactType'), r.contact.type],
    [t('channels.api.contact'), r.contact.value],
    [t('api.contactName'), r.contact.name ?? dash],
    [t('channels.api.type'), r.messageType],
    [t('api.templateName'), r.templateName ?? dash],
    [t('api.messageId'), r.messageId ? <code>{r.messageId}</code> : dash],
    [t('api.providerMessageId'), r.providerMessageId ? <code>{r.providerMessageId}</code> : dash],
    [t('api.errorCode'), r.error ? <code>{r.error.code}</code> : dash],
    [t('api.errorMessage'), r.error?.message ?? dash],
    ...(r.error?.details ? ([[t('api.errorDetails'), r.error.details]] as [string, ReactNode][]) : []),
    [t('common.createdAt'), time(r.createdAt)],
    [t('admin.updatedAt'), time(r.updatedAt)],
  ];
  return (
    <Dialog title={t('api.entry', { id: shortId(r.requestId) })} onClose={props.onClose}>
      <div className="adm-dialog-body" data-testid="request-detail">
        <CopyField label={t('channels.api.requestId')} value={r.requestId} />
        <dl className="adm-dl">
          {rows.map(([k, v]) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{v}</dd>
            </div>
          ))}
        </dl>
        <h3>{t('channels.api.metadata')}</h3>
        {meta.length === 0 ? (
          <p className="muted">{t('api.noMetadata')}</p>
        ) : (
          <dl className="adm-dl">
            {meta.map(([k, v]) => (
              <div key={k}>
                <dt>
                  <code>{k}</code>
                </dt>
                <dd className="adm-break">{v}</dd>
              </div>
            ))}
          </dl>
        )}
        <div className="adm-actions">
          <button type="button" className="btn primary" onClick={props.onClose} autoFocus>
            {t('common.close')}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
