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
import { ApiError, get, post, put } from './api';
import { Gateway, type ConnState } from './gateway';
import type { AppNotification, Channel, ConsoleConfig, Draft, Envelope, Me, Team, User } from './models';

// Everything the signed-in console shares: who is logged in, the account's directory (teams, users,
// channels) for names and pickers, the gateway connection, drafts and notifications.

export interface Session {
  me: Me;
  can(permission: string): boolean;
  teams: Team[];
  users: User[];
  channels: Channel[];
  /** Whether teams, users and channels have been loaded once (before, they are empty lists). */
  directoryLoaded: boolean;
  /** Team ids whose queues this user sees (all teams with chats:read_all). */
  myTeamIds: string[];
  reloadDirectory(): Promise<void>;
  gateway: Gateway | null;
  conn: ConnState;
  /** Drafts per chat, kept on the server and synced across the user's tabs through draft.update. */
  drafts: Map<string, string>;
  setDraft(chatId: string, text: string, opts?: { now?: boolean }): void;
  notifications: AppNotification[];
  unreadNotifications: number;
  markNotificationRead(id: string): Promise<void>;
  logout(): Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside SessionProvider');
  return s;
}

/** The gateway's address: the configured one, else its port on the host this page came from. */
async function loadConfig(): Promise<{ gatewayUrl: string; gatewayPath: string }> {
  let cfg: ConsoleConfig = {
    gatewayUrl: null,
    gatewayPort: 3001,
    gatewayPath: '/socket.io',
    needsFirstAdmin: false,
  };
  try {
    const res = await fetch('/console.json', { credentials: 'same-origin' });
    if (res.ok) cfg = (await res.json()) as ConsoleConfig;
  } catch {
    // keep the default: the gateway's default port on this host
  }
  const gatewayUrl =
    cfg.gatewayUrl ?? `${location.protocol}//${location.hostname}:${cfg.gatewayPort ?? 3001}`;
  return { gatewayUrl, gatewayPath: cfg.gatewayPath };
}

export function SessionProvider(props: {
  me: Me;
  onLoggedOut: (expired: boolean) => void;
  children: ReactNode;
}) {
  const { me, onLoggedOut } = props;
  const [teams, setTeams] = useState<Team[]>([]);
  const [users, setUsers] = useState<User[]>([]);
  const [channels, setChannels] = useState<Channel[]>([]);
  const [directoryLoaded, setDirectoryLoaded] = useState(false);
  const [gateway, setGateway] = useState<Gateway | null>(null);
  const [conn, setConn] = useState<ConnState>('connecting');
  const [drafts, setDrafts] = useState<Map<string, string>>(new Map());
  // Per chat: a save waiting for the typing to pause, and the last text this tab saved.
  const draftTimers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const draftSent = useRef(new Map<string, string>());
  const [notifications, setNotifications] = useState<AppNotification[]>([]);
  const [unreadNotifications, setUnread] = useState(0);
  const expiredRef = useRef(onLoggedOut);
  expiredRef.current = onLoggedOut;

  const can = useCallback((p: string) => me.permissions.includes(p), [me]);

  const reloadDirectory = useCallback(async () => {
    const [t, u, c] = await Promise.all([
      get<Team[]>('/api/teams').catch(() => [] as Team[]),
      get<User[]>('/api/users').catch(() => [] as User[]),
      get<Channel[]>('/api/channels').catch(() => [] as Channel[]),
    ]);
    setTeams(t);
    setUsers(u);
    setChannels(c);
    setDirectoryLoaded(true);
  }, []);

  const loadSideData = useCallback(async () => {
    const [d, n] = await Promise.all([
      get<Draft[]>('/api/drafts').catch(() => [] as Draft[]),
      get<{ notifications: AppNotification[]; unread: number }>('/api/notifications?limit=50').catch(
        () => null,
      ),
    ]);
    setDrafts((prev) => {
      const next = new Map(d.filter((x) => x.text !== '').map((x) => [x.chatId, x.text]));
      // Edits not saved yet win over what the server had.
      for (const chatId of draftTimers.current.keys()) next.set(chatId, prev.get(chatId) ?? '');
      return next;
    });
    if (n) {
      setNotifications(n.notifications);
      setUnread(n.unread);
    }
  }, []);

  useEffect(() => {
    void reloadDirectory();
    void loadSideData();
  }, [reloadDirectory, loadSideData]);

  useEffect(() => {
    let gw: Gateway | null = null;
    let cancelled = false;
    void loadConfig().then((cfg) => {
      if (cancelled) return;
      gw = new Gateway(cfg.gatewayUrl, cfg.gatewayPath, me.user.id, () => {
        // The gateway refused the token: check the session through REST, which signs out on 401.
        void get('/api/me').catch(() => undefined);
      });
      gw.onState(setConn);
      setGateway(gw);
    });
    return () => {
      cancelled = true;
      gw?.close();
    };
  }, [me.user.id]);

  const myTeamIds = useMemo(
    () =>
      teams
        .filter((t) => t.status === 'active' && (can('chats:read_all') || t.members.includes(me.user.id)))
        .map((t) => t.id),
    [teams, can, me.user.id],
  );

  useEffect(() => {
    gateway?.joinTeams(myTeamIds);
  }, [gateway, myTeamIds]);

  useEffect(() => {
    if (!gateway) return;
    const offs = [
      gateway.on('draft.update', (e: Envelope) => {
        const draft = (e.data as { draft?: Draft }).draft;
        if (!draft) return;
        // Our own save coming back, or older than what is being typed here: keep the local text.
        if (draftTimers.current.has(draft.chatId)) return;
        if (draftSent.current.get(draft.chatId) === draft.text) return;
        draftSent.current.delete(draft.chatId);
        setDrafts((prev) => {
          const next = new Map(prev);
          if (draft.text === '') next.delete(draft.chatId);
          else next.set(draft.chatId, draft.text);
          return next;
        });
      }),
      gateway.on('notification.new', (e: Envelope) => {
        const n = (e.data as { notification?: AppNotification }).notification;
        if (!n) return;
        setNotifications((prev) => (prev.some((x) => x.id === n.id) ? prev : [n, ...prev]));
        if (!n.readAt) setUnread((u) => u + 1);
      }),
      gateway.onResync(() => void loadSideData()),
    ];
    return () => offs.forEach((off) => off());
  }, [gateway, loadSideData]);

  const setDraft = useCallback((chatId: string, text: string, opts: { now?: boolean } = {}) => {
    setDrafts((prev) => {
      if ((prev.get(chatId) ?? '') === text) return prev;
      const next = new Map(prev);
      if (text === '') next.delete(chatId);
      else next.set(chatId, text);
      return next;
    });
    const timers = draftTimers.current;
    const pending = timers.get(chatId);
    if (pending) clearTimeout(pending);
    const save = () => {
      timers.delete(chatId);
      draftSent.current.set(chatId, text);
      void put(`/api/chats/${chatId}/draft`, { text }).catch(() => undefined);
    };
    if (opts.now) save();
    else timers.set(chatId, setTimeout(save, 400));
  }, []);

  const markNotificationRead = useCallback(async (id: string) => {
    const n = await post<AppNotification>(`/api/notifications/${id}/read`);
    setNotifications((prev) => prev.map((x) => (x.id === id ? n : x)));
    setUnread((u) => Math.max(0, u - 1));
  }, []);

  const logout = useCallback(async () => {
    await post('/auth/logout').catch((err: unknown) => {
      if (!(err instanceof ApiError)) throw err;
    });
    expiredRef.current(false);
  }, []);

  const value: Session = {
    me,
    can,
    teams,
    users,
    channels,
    directoryLoaded,
    myTeamIds,
    reloadDirectory,
    gateway,
    conn,
    drafts,
    setDraft,
    notifications,
    unreadNotifications,
    markNotificationRead,
    logout,
  };
  return <SessionContext.Provider value={value}>{props.children}</SessionContext.Provider>;
}
