import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { get, post } from '../api';
import type { AppNotification, NotificationPage } from '../models';
import { useGateway } from './gateway';

/** The user's latest notifications and how many are unread, kept live through notification.new. */
export interface Notifications {
  notifications: AppNotification[];
  unreadNotifications: number;
  markNotificationRead(id: string): Promise<void>;
}

const NotificationsContext = createContext<Notifications | null>(null);

export function useNotifications(): Notifications {
  const v = useContext(NotificationsContext);
  if (!v) throw new Error('useNotifications outside SessionProvider');
  return v;
}

export function NotificationsProvider(props: { children: ReactNode }) {
  const { gateway } = useGateway();
  const [notifications, setNotifications] = useState<AppNotification[]>([]);
  const [unreadNotifications, setUnread] = useState(0);

  const load = useCallback(async () => {
    const page = await get<NotificationPage>('/api/notifications?limit=50').catch(() => null);
    if (!page) return;
    setNotifications(page.notifications);
    setUnread(page.unread);
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  useEffect(() => {
    if (!gateway) return;
    const offs = [
      gateway.on('notification.new', (e) => {
        const n = e.data.notification;
        setNotifications((prev) => (prev.some((x) => x.id === n.id) ? prev : [n, ...prev]));
        if (!n.readAt) setUnread((u) => u + 1);
      }),
      gateway.onResync(() => void load()),
    ];
    return () => offs.forEach((off) => off());
  }, [gateway, load]);

  const markNotificationRead = useCallback(async (id: string) => {
    const n = await post<AppNotification>(`/api/notifications/${id}/read`);
    setNotifications((prev) => prev.map((x) => (x.id === id ? n : x)));
    setUnread((u) => Math.max(0, u - 1));
  }, []);

  const value = useMemo(
    () => ({ notifications, unreadNotifications, markNotificationRead }),
    [notifications, unreadNotifications, markNotificationRead],
  );
  return <NotificationsContext.Provider value={value}>{props.children}</NotificationsContext.Provider>;
}
