import { useCallback, useEffect, useState } from 'react';
import { get, qs } from './api';
import { useI18n } from './i18n';
import type { Mention, MentionPage } from './models';
import { navigate } from './router';
import { useDirectory, useGateway, useNotifications } from './session';

/**
 * "Menções": the notes that mention me, newest first, unread ones marked; opening one goes to its
 * conversation and marks it read (its notification: the bell follows). New mentions arrive live; the
 * sound and desktop notification of one are the alerts' (alerts/), as the user's preferences say.
 */
export function MentionsPage() {
  const { t, time } = useI18n();
  const { gateway } = useGateway();
  const { users } = useDirectory();
  const { markNotificationRead } = useNotifications();
  const [page, setPage] = useState<MentionPage | null>(null);
  const [unreadOnly, setUnreadOnly] = useState(false);
  const [failed, setFailed] = useState(false);

  const load = useCallback(async () => {
    try {
      setPage(await get<MentionPage>(`/api/mentions${qs({ unreadOnly, limit: 100 })}`));
      setFailed(false);
    } catch {
      setFailed(true);
    }
  }, [unreadOnly]);
  useEffect(() => void load(), [load]);
  useEffect(() => {
    if (!gateway) return;
    const offs = [
      gateway.on('notification.new', (e) => {
        if (e.data.notification.kind === 'note.mention') void load();
      }),
      gateway.onResync(() => void load()),
    ];
    return () => offs.forEach((off) => off());
  }, [gateway, load]);

  const markRead = async (m: Mention) => {
    if (m.readAt) return;
    await markNotificationRead(m.notificationId).catch(() => undefined);
    await load();
  };
  const open = (m: Mention) => {
    void markRead(m);
    navigate(`/inbox/${m.note.chatId}`);
  };
  const author = (id: string | null) => users.find((u) => u.id === id)?.name ?? t('notes.someone');

  return (
    <section className="page mentions-page" aria-labelledby="mentions-title">
      <header className="page-head">
        <h1 id="mentions-title">{t('mentions.title')}</h1>
        {page && page.unread > 0 && (
          <span className="badge-text">{t('mentions.unread', { n: page.unread })}</span>
        )}
        <label className="check">
          <input type="checkbox" checked={unreadOnly} onChange={(e) => setUnreadOnly(e.target.checked)} />
          {t('mentions.unreadOnly')}
        </label>
      </header>
      {failed && (
        <p className="error" role="alert">
          {t('common.error')}
        </p>
      )}
      {page && page.mentions.length === 0 && <p className="muted">{t('mentions.empty')}</p>}
      <ul className="mentions" data-testid="mentions">
        {page?.mentions.map((m) => (
          <li key={m.notificationId} className={m.readAt ? 'mention-item read' : 'mention-item unread'}>
            <button type="button" className="mention-open" onClick={() => open(m)}>
              <span className="mention-head">
                {t('mentions.in', {
                  by: author(m.note.userId),
                  contact: m.contact.name || m.contact.value,
                })}
              </span>
              <span className="mention-text">{m.note.text}</span>
              <time dateTime={m.createdAt}>{time(m.createdAt)}</time>
            </button>
            {!m.readAt && (
              <button type="button" className="btn small ghost" onClick={() => void markRead(m)}>
                {t('mentions.markRead')}
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
