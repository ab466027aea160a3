import { useEffect, useRef, useState } from 'react';
import { useI18n } from './i18n';
import { navigate } from './router';
import { useGateway, useNotifications } from './session';
import type { AppNotification } from './models';

/** The bell: unread count, and a panel listing notifications (open one to go to its chat). */
export function Notifications(props: { onPreferences: () => void }) {
  const { t, time } = useI18n();
  const { notifications, unreadNotifications, markNotificationRead } = useNotifications();
  const [open, setOpen] = useState(false);
  const panel = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    const onClick = (e: MouseEvent) => {
      if (panel.current && !panel.current.parentElement?.contains(e.target as Node)) setOpen(false);
    };
    document.addEventListener('keydown', onKey);
    document.addEventListener('mousedown', onClick);
    return () => {
      document.removeEventListener('keydown', onKey);
      document.removeEventListener('mousedown', onClick);
    };
  }, [open]);

  const openOne = (n: AppNotification) => {
    if (!n.readAt) void markNotificationRead(n.id).catch(() => undefined);
    const chatId = typeof n.data.chatId === 'string' ? n.data.chatId : null;
    const channelId =
      n.kind === 'channel.unhealthy' && typeof n.data.channelId === 'string' ? n.data.channelId : null;
    if (chatId) {
      setOpen(false);
      navigate(`/inbox/${chatId}`);
    } else if (channelId) {
      setOpen(false);
      navigate(`/admin/channels/${channelId}`);
    }
  };
  const text = (n: AppNotification) => notificationText(t, n);

  return (
    <div className="notif">
      <button
        type="button"
        className="btn ghost bell"
        aria-expanded={open}
        aria-haspopup="true"
        aria-label={t('notif.open', { n: unreadNotifications })}
        onClick={() => setOpen((o) => !o)}
      >
        <svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true">
          <path
            d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22Zm7-6V11a7 7 0 0 0-5.5-6.84V3a1.5 1.5 0 0 0-3 0v1.16A7 7 0 0 0 5 11v5l-2 2v1h18v-1Z"
            fill="currentColor"
          />
        </svg>
        {unreadNotifications > 0 && (
          <span className="badge" aria-hidden="true">
            {unreadNotifications}
          </span>
        )}
      </button>
      {open && (
        <div className="notif-panel card" ref={panel} role="region" aria-label={t('notif.title')}>
          <div className="notif-head">
            <h2>{t('notif.title')}</h2>
            <button
              type="button"
              className="btn small ghost"
              onClick={() => {
                setOpen(false);
                props.onPreferences();
              }}
            >
              {t('alerts.pref.open')}
            </button>
          </div>
          {notifications.length === 0 ? (
            <p className="muted">{t('notif.empty')}</p>
          ) : (
            <ul>
              {notifications.map((n) => (
                <li key={n.id} className={n.readAt ? 'read' : 'unread'}>
                  <button type="button" className="notif-item" onClick={() => openOne(n)}>
                    <span>{text(n)}</span>
                    <time dateTime={n.createdAt}>{time(n.createdAt)}</time>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}

/** A short-lived note for each notification that arrives while the console is open. */
export function NotificationToasts() {
  const { t } = useI18n();
  const { gateway } = useGateway();
  const { markNotificationRead } = useNotifications();
  const [toasts, setToasts] = useState<AppNotification[]>([]);

  useEffect(() => {
    if (!gateway) return;
    return gateway.on('notification.new', (e) => {
      const n = e.data.notification;
      setToasts((prev) => (prev.some((x) => x.id === n.id) ? prev : [...prev, n].slice(-3)));
      setTimeout(() => setToasts((prev) => prev.filter((x) => x.id !== n.id)), 8000);
    });
  }, [gateway]);

  const dismiss = (id: string) => setToasts((prev) => prev.filter((x) => x.id !== id));
  return (
    <div className="toasts" role="status" aria-live="polite">
      {toasts.map((n) => {
        const chatId = typeof n.data.chatId === 'string' ? n.data.chatId : null;
        return (
          <div key={n.id} className="toast">
            <span>{notificationText(t, n)}</span>
            {chatId && (
              <button
                type="button"
                className="btn small"
                onClick={() => {
                  dismiss(n.id);
                  void markNotificationRead(n.id).catch(() => undefined);
                  navigate(`/inbox/${chatId}`);
                }}
              >
                {t('notif.openChat')}
              </button>
            )}
            <button
              type="button"
              className="btn small ghost"
              aria-label={t('common.close')}
              onClick={() => dismiss(n.id)}
            >
              ✕
            </button>
          </div>
        );
      })}
    </div>
  );
}

/** What a notification says, by its kind. */
function notificationText(t: ReturnType<typeof useI18n>['t'], n: AppNotification): string {
  if (n.kind === 'chat.assigned') return assignedText(t, n.data);
  if (n.kind === 'chat.unsnoozed') return unsnoozedText(t, n.data);
  if (n.kind === 'sla.breached') {
    const contact = n.data.contact as { name?: unknown; value?: unknown } | undefined;
    const who =
      typeof contact?.name === 'string' && contact.name ? contact.name : String(contact?.value ?? '');
    return n.data.kind === 'resolution'
      ? t('notif.slaResolution', { contact: who })
      : t('notif.slaFirstResponse', { contact: who });
  }
  if (n.kind === 'note.mention')
    return t('notif.mention', { by: String(n.data.byName ?? ''), excerpt: String(n.data.excerpt ?? '') });
  if (n.kind === 'webhook.disabled') return t('notif.webhookDisabled', { url: String(n.data.url ?? '') });
  if (n.kind === 'channel.unhealthy') return t('notif.channelUnhealthy', { name: String(n.data.name ?? '') });
  return n.kind;
}

/** A snoozed conversation came back: with whom, and whether the customer's message brought it. */
function unsnoozedText(t: ReturnType<typeof useI18n>['t'], data: Record<string, unknown>): string {
  const contact = data.contact as { name?: unknown; value?: unknown } | undefined;
  const who = typeof contact?.name === 'string' && contact.name ? contact.name : String(contact?.value ?? '');
  return data.reason === 'customer_message'
    ? t('notif.unsnoozedReply', { contact: who })
    : t('notif.unsnoozed', { contact: who });
}

/** Whom the conversation is with and why it came, when the server says (older notes do not). */
function assignedText(t: ReturnType<typeof useI18n>['t'], data: Record<string, unknown>): string {
  const contact = data.contact as { name?: unknown; value?: unknown } | undefined;
  const name = typeof contact?.name === 'string' ? contact.name : '';
  const value = typeof contact?.value === 'string' ? contact.value : '';
  const who = name && value ? `${name} (${value})` : name || value;
  if (data.reasonCode === 'auto_assignment')
    return who ? t('notif.autoAssignedContact', { contact: who }) : t('notif.autoAssigned');
  const head = who ? t('notif.assignedContact', { contact: who }) : t('notif.assigned');
  const reason = typeof data.reason === 'string' && data.reason ? data.reason : data.reasonCode;
  return typeof reason === 'string' && reason ? `${head} — ${t('notif.reason', { reason })}` : head;
}
