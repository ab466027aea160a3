import { useState } from 'react';
import { del, get, patch, post, qs } from '../api';
import { Dialog } from '../components';
import { useI18n } from '../i18n';
import { Link } from '../router';
import type { Webhook, WebhookDelivery } from '../types';
import {
  Badge,
  CheckList,
  ConfirmDialog,
  DataTable,
  errorMessages,
  FormErrors,
  LoadState,
  onForm,
  PageHeader,
  Pager,
  SecretDialog,
  SelectField,
  ShortId,
  TextField,
  useLoad,
  useSubmit,
  type Column,
} from './common';
import { textOr, useAdminText } from './messages';

/** The events a webhook can subscribe to: the server's event catalogue (/docs/events.json). */
const EVENTS = [
  'message.upsert',
  'message.update',
  'chat.new',
  'chat.update',
  'chat.queue',
  'chat.capture',
  'chat.transfer',
  'chat.close',
] as const;
const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
const PAGE_SIZE = 20;

const enabledOf = (w: Webhook) => w.enabled !== false && w.status !== 'disabled';

interface DeliveryPage {
  total: number;
  page: number;
  limit: number;
  items: WebhookDelivery[];
}

/** Outgoing webhooks: list, create (secret shown once), change events, enable or disable, delete. */
export function WebhooksPage() {
  const { t, time } = useI18n();
  const m = useAdminText();
  const hooks = useLoad(() => get<Webhook[]>('/api/webhooks'), 'webhooks');
  const [dialog, setDialog] = useState<{ kind: 'create' } | { kind: 'edit'; hook: Webhook } | null>(null);
  const [created, setCreated] = useState<Webhook | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [rowErrors, setRowErrors] = useState<{ id: string; messages: string[] } | null>(null);

  const saved = (hook: Webhook) =>
    hooks.setData((prev) => {
      const list = prev ?? [];
      return list.some((h) => h.id === hook.id)
        ? list.map((h) => (h.id === hook.id ? hook : h))
        : [hook, ...list];
    });

  const toggle = async (hook: Webhook) => {
    setBusy(hook.id);
    setRowErrors(null);
    try {
      saved(await patch<Webhook>(`/api/webhooks/${hook.id}`, { enabled: !enabledOf(hook) }));
    } catch (err) {
      setRowErrors({ id: hook.id, messages: errorMessages(err, t('common.error')) });
    } finally {
      setBusy(null);
    }
  };

  const columns: Column<Webhook>[] = [
    {
      key: 'url',
      label: t('hooks.url'),
      render: (h) => (
        <Link href={`/admin/webhooks/${h.id}`} className="adm-link adm-break">
          {h.url}
        </Link>
      ),
    },
    {
      key: 'events',
      label: t('hooks.events'),
      render: (h) => (
        <ul className="adm-chips">
          {h.events.map((e) => (
            <li key={e} className="adm-chip">
              <code>{e}</code>
            </li>
          ))}
        </ul>
      ),
    },
    {
      key: 'status',
      label: t('common.status'),
      render: (h) =>
        enabledOf(h) ? (
          <Badge tone="ok">{t('hooks.enabled')}</Badge>
        ) : (
          <Badge tone="warn">{m('hooks.disabled')}</Badge>
        ),
    },
    {
      key: 'created',
      label: t('common.createdAt'),
      render: (h) => time(typeof h.createdAt === 'string' ? h.createdAt : null),
    },
    {
      key: 'actions',
      label: t('common.actions'),
      className: 'adm-cell-actions',
      render: (h) => (
        <div className="adm-row-actions">
          <Link href={`/admin/webhooks/${h.id}`} className="btn small">
            {t('hooks.deliveries')}
          </Link>
          <button type="button" className="btn small" onClick={() => setDialog({ kind: 'edit', hook: h })}>
            {t('common.edit')}
          </button>
          <button type="button" className="btn small" disabled={busy === h.id} onClick={() => void toggle(h)}>
            {enabledOf(h) ? t('hooks.disable') : t('hooks.enable')}
          </button>
          <button type="button" className="btn small danger" onClick={() => setDeleting(h)}>
            {t('common.delete')}
          </button>
          {rowErrors?.id === h.id && <FormErrors messages={rowErrors.messages} />}
        </div>
      ),
    },
  ];

  return (
    <>
      <PageHeader title={t('hooks.title')}>
        <button type="button" className="btn primary" onClick={() => setDialog({ kind: 'create' })}>
          {t('hooks.new')}
        </button>
      </PageHeader>
      <LoadState
        loading={hooks.loading && !hooks.data}
        error={hooks.error}
        onRetry={() => void hooks.reload()}
      />
      {hooks.data && (
        <DataTable
          caption={t('hooks.title')}
          columns={columns}
          rows={hooks.data}
          rowKey={(h) => h.id}
          rowClass={(h) => (enabledOf(h) ? undefined : 'adm-dim')}
          empty={m('hooks.empty')}
          testId="webhooks-table"
        />
      )}
      {dialog?.kind === 'create' && (
        <WebhookDialog
          onClose={() => setDialog(null)}
          onSaved={(h) => {
            setDialog(null);
            if (typeof h.secret === 'string') setCreated(h);
            void hooks.reload();
          }}
        />
      )}
      {dialog?.kind === 'edit' && (
        <WebhookDialog
          hook={dialog.hook}
          onClose={() => setDialog(null)}
          onSaved={(h) => {
            setDialog(null);
            saved(h);
          }}
        />
      )}
      {created && (
        <SecretDialog
          title={m('hooks.secretTitle')}
          label={t('hooks.secretShown')}
          value={String(created.secret)}
          notes={[m('hooks.secretWarning')]}
          onClose={() => setCreated(null)}
          testId="webhook-secret"
        />
      )}
      {deleting && (
        <ConfirmDialog
          title={t('common.delete')}
          message={t('hooks.deleteConfirm', { url: deleting.url })}
          confirmLabel={t('common.delete')}
          danger
          onConfirm={async () => {
            await del(`/api/webhooks/${deleting.id}`);
            hooks.setData((prev) => (prev ?? []).filter((h) => h.id !== deleting.id));
          }}
          onClose={() => setDeleting(null)}
        />
      )}
    </>
  );
}

function WebhookDialog(props: { hook?: Webhook; onClose: () => void; onSaved: (h: Webhook) => void }) {
  const { t } = useI18n();
  const m = useAdminText();
  const hook = props.hook;
  const [url, setUrl] = useState(hook?.url ?? '');
  const [events, setEvents] = useState<string[]>(hook?.events ?? []);
  const [secret, setSecret] = useState('');
  const [enabled, setEnabled] = useState(hook ? enabledOf(hook) : true);
  const submit = useSubmit(['url', 'events', 'secret', 'enabled']);
  const { byField, rest } = submit.errors;
  const allSelected = EVENTS.every((e) => events.includes(e));

  const save = () => {
    if (events.length === 0) return submit.fail({ events: [m('hooks.pickEvent')] });
    return submit.run(async () => {
      if (hook) {
        const body: Record<string, unknown> = {};
        if (url.trim() !== hook.url) body.url = url.trim();
        if (events.join() !== hook.events.join()) body.events = events;
        if (enabled !== enabledOf(hook)) body.enabled = enabled;
        props.onSaved(
          Object.keys(body).length > 0 ? await patch<Webhook>(`/api/webhooks/${hook.id}`, body) : hook,
        );
      } else {
        const body: Record<string, unknown> = { url: url.trim(), events };
        if (secret !== '') body.secret = secret;
        props.onSaved(await post<Webhook>('/api/webhooks', body));
      }
    });
  };

  return (
    <Dialog title={hook ? m('hooks.edit') : t('hooks.new')} onClose={props.onClose}>
      <form className="adm-dialog-body" noValidate onSubmit={onForm(save)}>
        <FormErrors messages={rest} />
        <TextField
          label={t('hooks.url')}
          name="url"
          type="url"
          inputMode="url"
          placeholder="https://"
          value={url}
          onChange={setUrl}
          autoFocus
          autoComplete="off"
          errors={byField.url}
        />
        <CheckList
          legend={t('hooks.events')}
          name="events"
          options={EVENTS.map((e) => ({ value: e, label: <code>{e}</code> }))}
          selected={events}
          onChange={setEvents}
          errors={byField.events}
          extra={
            <button
              type="button"
              className="btn small adm-select-all"
              onClick={() => setEvents(allSelected ? [] : [...EVENTS])}
            >
              {allSelected ? t('common.clear') : m('hooks.selectAll')}
            </button>
          }
        />
        {hook ? (
          <label className="adm-check">
            <input
              type="checkbox"
              name="enabled"
              checked={enabled}
              onChange={(e) => setEnabled(e.target.checked)}
            />
            <span>{t('hooks.enabled')}</span>
          </label>
        ) : (
          <TextField
            label={t('hooks.secret')}
            name="secret"
            value={secret}
            onChange={setSecret}
            autoComplete="off"
            spellCheck={false}
            hint={m('hooks.secretHint')}
            errors={byField.secret}
          />
        )}
        <div className="adm-actions">
          <button type="button" className="btn" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn primary" disabled={submit.pending}>
            {hook ? t('common.save') : t('common.create')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** One webhook's deliveries: status, attempts, the receiver's answer, and replay. */
export function WebhookDeliveriesPage(props: { id: string }) {
  const { t, time } = useI18n();
  const m = useAdminText();
  const hook = useLoad(() => get<Webhook>(`/api/webhooks/${props.id}`), props.id);
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const deliveries = useLoad(
    () =>
      get<DeliveryPage | WebhookDelivery[]>(
        `/api/webhooks/${props.id}/deliveries${qs({ status, page, limit: PAGE_SIZE })}`,
      ),
    `${props.id}\u0000${status}\u0000${page}`,
  );
  const [replaying, setReplaying] = useState<string | null>(null);
  const [notice, setNotice] = useState<{ id: string; text: string; error: boolean } | null>(null);

  const list = deliveries.data
    ? Array.isArray(deliveries.data)
      ? deliveries.data
      : deliveries.data.items
    : [];
  const paged = deliveries.data && !Array.isArray(deliveries.data) ? deliveries.data : null;
  const statusText = (s: string) => textOr(m, `hooks.dstatus.${s}`, s);
  const tone = (s: string) => (s === 'failed' ? 'bad' : s === 'pending' ? 'info' : 'ok');

  const replay = async (d: WebhookDelivery) => {
    setReplaying(d.id);
    setNotice(null);
    try {
      await post(`/api/webhooks/${props.id}/deliveries/${d.id}/replay`);
      setNotice({ id: d.id, text: t('hooks.replayed'), error: false });
      await deliveries.reload();
    } catch (err) {
      setNotice({ id: d.id, text: errorMessages(err, t('common.error')).join('; '), error: true });
    } finally {
      setReplaying(null);
    }
  };

  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const columns: Column<WebhookDelivery>[] = [
    {
      key: 'created',
      label: t('common.createdAt'),
      render: (d) => time(str(d.createdAt)),
    },
    { key: 'event', label: m('hooks.event'), render: (d) => <code>{str(d.event) ?? '—'}</code> },
    {
      key: 'status',
      label: t('common.status'),
      render: (d) => <Badge tone={tone(d.status)}>{statusText(d.status)}</Badge>,
    },
    { key: 'attempts', label: m('hooks.attempts'), render: (d) => String(d.attempts ?? 0) },
    {
      key: 'response',
      label: t('hooks.response'),
      render: (d) => {
        const code = d.responseStatus ?? d.lastResponseStatus;
        const error = str(d.error) ?? str(d.lastError);
        return (
          <span className="adm-break">
            {typeof code === 'number' ? <code>HTTP {code}</code> : null}
            {error && <small className="muted adm-block">{error}</small>}
            {typeof code !== 'number' && !error && <span className="muted">—</span>}
          </span>
        );
      },
    },
    { key: 'id', label: m('admin.id'), render: (d) => <ShortId id={d.id} /> },
    {
      key: 'actions',
      label: t('common.actions'),
      className: 'adm-cell-actions',
      render: (d) => (
        <div className="adm-row-actions">
          <button
            type="button"
            className="btn small"
            disabled={replaying === d.id || d.status === 'pending'}
            onClick={() => void replay(d)}
          >
            {t('hooks.replay')}
          </button>
          {notice?.id === d.id && (
            <small className={notice.error ? 'adm-field-error' : 'muted'} role="status">
              {notice.text}
            </small>
          )}
        </div>
      ),
    },
  ];

  return (
    <>
      <PageHeader
        title={hook.data ? m('hooks.deliveriesOf', { url: hook.data.url }) : t('hooks.deliveries')}
        back={
          <Link href="/admin/webhooks" className="adm-back">
            ← {m('hooks.back')}
          </Link>
        }
      >
        <button
          type="button"
          className="btn"
          disabled={deliveries.loading}
          onClick={() => void deliveries.reload()}
        >
          {t('channels.api.refresh')}
        </button>
      </PageHeader>
      <LoadState loading={false} error={hook.error} onRetry={() => void hook.reload()} />
      <form className="adm-filters" role="search" onSubmit={onForm(() => undefined)}>
        <SelectField
          label={t('common.status')}
          value={status}
          onChange={(v) => {
            setStatus(v);
            setPage(1);
          }}
          options={[
            { value: '', label: t('common.all') },
            ...DELIVERY_STATUSES.map((s) => ({ value: s, label: statusText(s) })),
          ]}
        />
      </form>
      <LoadState
        loading={deliveries.loading && !deliveries.data}
        error={deliveries.error}
        onRetry={() => void deliveries.reload()}
      />
      {deliveries.data && (
        <>
          <DataTable
            caption={t('hooks.deliveries')}
            columns={columns}
            rows={list}
            rowKey={(d) => d.id}
            empty={t('hooks.noDeliveries')}
            testId="deliveries-table"
          />
          {paged && <Pager page={paged.page} limit={paged.limit} total={paged.total} onPage={setPage} />}
        </>
      )}
    </>
  );
}
