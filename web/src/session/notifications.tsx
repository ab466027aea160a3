import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
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
  // One state for both, so that a notification is listed and counted by the same update.
  const [state, setState] = useState<{ list: AppNotification[]; unread: number }>({ list: [], unread: 0 });
  const notifications = state.list;
  const unreadNotifications = state.unread;

  // What arrived live while a load was on its way: the page may have been read before it was stored,
  // and must not wipe it from the list or the count.
  const arrivedDuringLoad = useRef<Map<string, AppNotification> | null>(null);

  const load = useCallback(async () => {
    const arrived = new Map<string, AppNotification>();
    arrivedDuringLoad.current = arrived;
    const page = await get<NotificationPage>('/api/notifications?limit=50').catch(() => null);
    if (arrivedDuringLoad.current !== arrived) return; // a newer load is on its way
    arrivedDuringLoad.current = null;
    if (!page) return;
    const listed = new Set(page.notifications.map((n) => n.id));
    const missing = [...arrived.values()].filter((n) => !listed.has(n.id));
    setState({
      list: [...missing.reverse(), ...page.notifications],
      unread: page.unread + missing.filter((n) => !n.readAt).length,
    });
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  useEffect(() => {
    if (!gateway) return;
    const offs = [
      gateway.on('notification.new', (e) => {
        const n = e.data.notification;
        arrivedDuringLoad.current?.set(n.id, n);
        setState((prev) =>
          prev.list.some((x) => x.id === n.id)
            ? prev
            : { list: [n, ...prev.list], unread: prev.unread + (n.readAt ? 0 : 1) },
        );
      }),
      gateway.onResync(() => void load()),
    ];
    return () => offs.forEach((off) => off());
  }, [gateway, load]);

  const markNotificationRead = useCallback(async (id: string) => {
    const n = await post<AppNotification>(`/api/notifications/${id}/read`);
    setState((prev) => {
      const was = prev.list.find((x) => x.id === id);
      // Only a notification that was unread here lowers the count (a second click must not).
      const drop = was && !was.readAt ? 1 : 0;
      return { list: prev.list.map((x) => (x.id === id ? n : x)), unread: Math.max(0, prev.unread - drop) };
    });
  }, []);

  const value = useMemo(
    () => ({ notifications, unreadNotifications, markNotificationRead }),
    [notifications, unreadNotifications, markNotificationRead],
  );
  return <NotificationsContext.Provider value={value}>{props.children}</NotificationsContext.Provider>;
}
