import { useState } from 'react';
import { get, post, qs } from '../api';
import { textOr, useI18n } from '../i18n';
import { Link } from '../router';
import type { Webhook, WebhookDelivery, WebhookDeliveryPage } from '../models';
import { SelectField } from './fields';
import { Badge, DataTable, LoadState, PageHeader, Pager, ShortId, type Column } from './list-page';
import { errorMessages, onForm, useLoad } from './load';
import { StatusBadge } from './webhooks';

const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
const PAGE_SIZE = 20;

/** One webhook's deliveries: status, attempts, the receiver's last answer, and replay. */
export function WebhookDeliveriesPage(props: { id: string }) {
  const { t, time } = useI18n();
  const hook = useLoad(() => get<Webhook>(`/api/webhooks/${props.id}`), props.id);
  const [status, setStatus] = useState('');
  const [page, setPage] = useState(1);
  const deliveries = useLoad(
    () =>
      get<WebhookDeliveryPage>(
        `/api/webhooks/${props.id}/deliveries${qs({ status, page, limit: PAGE_SIZE })}`,
      ),
    `${props.id}\u0000${status}\u0000${page}`,
  );
  const [replaying, setReplaying] = useState<string | null>(null);
  const [notice, setNotice] = useState<{ id: string; text: string; error: boolean } | null>(null);

  const statusText = (s: string) => textOr(t, `hooks.dstatus.${s}`, s);
  const tone = (s: string) => (s === 'failed' ? 'bad' : s === 'pending' ? 'info' : 'ok');

  const replay = async (d: WebhookDelivery) => {
    setReplaying(d.id);
    setNotice(null);
    try {
      const updated = await post<WebhookDelivery>(`/api/webhooks/${props.id}/deliveries/${d.id}/replay`);
      deliveries.setData((prev) =>
        prev ? { ...prev, items: prev.items.map((x) => (x.id === updated.id ? updated : x)) } : prev,
      );
      setNotice({ id: d.id, text: t('hooks.replayed'), error: false });
    } catch (err) {
      setNotice({ id: d.id, text: errorMessages(err, t('common.error')).join('; '), error: true });
    } finally {
      setReplaying(null);
    }
  };

  const columns: Column<WebhookDelivery>[] = [
    { key: 'created', label: t('common.createdAt'), render: (d) => time(d.createdAt) },
    { key: 'event', label: t('hooks.event'), render: (d) => <code>{d.event}</code> },
    {
      key: 'status',
      label: t('common.status'),
      render: (d) => (
        <span>
          <Badge tone={tone(d.status)}>{statusText(d.status)}</Badge>
          {d.status === 'pending' && d.nextAttemptAt && (
            <small className="muted adm-block">
              {t('hooks.nextAttempt', { time: time(d.nextAttemptAt) })}
            </small>
          )}
          {d.deliveredAt && (
            <small className="muted adm-block">{t('hooks.deliveredAt', { time: time(d.deliveredAt) })}</small>
          )}
        </span>
      ),
    },
    { key: 'attempts', label: t('hooks.attempts'), render: (d) => String(d.attempts) },
    {
      key: 'response',
      label: t('hooks.response'),
      render: (d) => (
        <span className="adm-break">
          {d.lastResponseStatus !== null && <code>HTTP {d.lastResponseStatus}</code>}
          {d.lastError && <small className="muted adm-block">{d.lastError}</small>}
          {d.lastResponseStatus === null && !d.lastError && <span className="muted">—</span>}
        </span>
      ),
    },
    { key: 'id', label: t('admin.id'), render: (d) => <ShortId id={d.id} /> },
    {
      key: 'actions',
      label: t('common.actions'),
      className: 'adm-cell-actions',
      render: (d) => (
        <div className="adm-row-actions">
          <button
            type="button"
            className="btn small"
            disabled={replaying === d.id}
            onClick={() => void replay(d)}
            aria-label={`${t('hooks.replay')}: ${d.event} ${d.id}`}
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
        title={hook.data ? t('hooks.deliveriesOf', { url: hook.data.url }) : t('hooks.deliveries')}
        back={
          <Link href="/admin/webhooks" className="adm-back">
            ← {t('hooks.back')}
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
      {hook.data && (
        <p className="adm-note">
          <StatusBadge hook={hook.data} />
        </p>
      )}
      <LoadState loading={false} error={hook.error} onRetry={() => void hook.reload()} />
      <form className="adm-filters" role="search" onSubmit={onForm(() => undefined)}>
        <SelectField
          label={t('common.status')}
          name="status"
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
            rows={deliveries.data.items}
            rowKey={(d) => d.id}
            empty={t('hooks.noDeliveries')}
            testId="deliveries-table"
          />
          <Pager
            page={deliveries.data.page}
            limit={deliveries.data.limit}
            total={deliveries.data.total}
            onPage={setPage}
          />
        </>
      )}
    </>
  );
}
