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
import { get, put } from '../api';
import { useI18n } from '../i18n';
import { QUEUE_WAITING } from '../inbox/chat-state';
import type { AppNotification, Chat, NotificationPreferences } from '../models';
import { navigate } from '../router';
import { useDirectory, useGateway, useMe, useNotifications } from '../session';
import { desktopPermission, showDesktop } from './desktop';
import { chime, unlockSound } from './sound';
import { Tabs } from './tabs';

// The moments an agent should notice — a conversation arriving in their teams' waiting queue, a
// customer writing in a conversation they attend, a conversation transferred to them, a mention —
// announced with a sound and a desktop notification as their preferences say (GET/PUT
// /api/me/notification-preferences). Every tab hears the gateway's events; only the leading tab of
// this browser speaks (tabs.ts). The tab's title counts what waits for the agent.

export type Moment = 'newChat' | 'newMessage' | 'transfer' | 'mention';

export const DEFAULT_PREFERENCES: NotificationPreferences = {
  newChat: { sound: true, desktop: true },
  newMessage: { sound: true, desktop: true },
  transfer: { sound: true, desktop: true },
  mention: { sound: true, desktop: true },
  updatedAt: null,
};

export interface Alerts {
  preferences: NotificationPreferences;
  savePreferences(p: Omit<NotificationPreferences, 'updatedAt'>): Promise<void>;
  /** The conversation this tab shows, so the agent is not alerted about what they are reading. */
  showing(chatId: string | null): void;
  /** What the inbox counts for the title: waiting conversations, and the agent's with unread messages. */
  setInboxCounts(counts: { waiting: number; unread: number } | null): void;
  /** Plays the sound once (the preferences' test button). */
  testSound(): void;
}

const AlertsContext = createContext<Alerts | null>(null);

export function useAlerts(): Alerts {
  const v = useContext(AlertsContext);
  if (!v) throw new Error('useAlerts outside AlertsProvider');
  return v;
}

/** Whether a notification is a mention of the user (its kind names one). */
const isMention = (n: AppNotification) => /mention/i.test(n.kind);

export function AlertsProvider(props: { children: ReactNode }) {
  const { t } = useI18n();
  const { me } = useMe();
  const { myTeamIds, users } = useDirectory();
  const { gateway } = useGateway();
  const { unreadNotifications } = useNotifications();
  const [preferences, setPreferences] = useState<NotificationPreferences>(DEFAULT_PREFERENCES);
  const [inboxCounts, setInboxCounts] = useState<{ waiting: number; unread: number } | null>(null);
  const tabs = useMemo(() => new Tabs(), []);
  useEffect(() => () => tabs.close(), [tabs]);

  const load = useCallback(async () => {
    const p = await get<NotificationPreferences>('/api/me/notification-preferences').catch(() => null);
    if (p) setPreferences(p);
  }, []);
  useEffect(() => {
    void load();
    return tabs.onPrefsChanged(() => void load());
  }, [load, tabs]);

  // The browser lets a page play sound only once the user has interacted with it.
  useEffect(() => {
    const unlock = () => unlockSound();
    window.addEventListener('keydown', unlock, { once: true });
    window.addEventListener('pointerdown', unlock, { once: true });
    return () => {
      window.removeEventListener('keydown', unlock);
      window.removeEventListener('pointerdown', unlock);
    };
  }, []);

  // What the rules read, current without re-subscribing.
  const state = useRef({ preferences, myTeamIds, users, t, me: me.user.id });
  state.current = { preferences, myTeamIds, users, t, me: me.user.id };

  // Once per browser (tabs.ts): `id` names the moment, `tag` its desktop notification (one per
  // conversation, replaced by the next).
  const announce = useCallback(
    (
      moment: Moment,
      text: { title: string; body: string },
      tag: string,
      chatId: string | null,
      id: string = tag,
    ) => {
      tabs.speak(id, () => {
        const way = state.current.preferences[moment];
        if (way.sound) chime();
        if (way.desktop && desktopPermission() === 'granted' && !tabs.anyInView()) {
          showDesktop({ ...text, tag, onClick: () => chatId && navigate(`/inbox/${chatId}`) });
        }
      });
    },
    [tabs],
  );

  useEffect(() => {
    if (!gateway) return;
    // Conversations already announced as waiting (an arrival is announced once) and the last
    // customer message announced per conversation.
    const waiting = new Set<string>();
    const lastHeard = new Map<string, string>();
    const nameOf = (c: Chat) => c.contact.name || c.contact.value;

    const arrival = (c: Chat) => {
      const { myTeamIds: teams, t: tr } = state.current;
      const isWaiting =
        c.status === 'open' && c.queue === QUEUE_WAITING && c.userId === null && teams.includes(c.teamId);
      if (!isWaiting) {
        waiting.delete(c.id);
        return;
      }
      if (waiting.has(c.id)) return;
      waiting.add(c.id);
      announce('newChat', { title: tr('alerts.newChat'), body: nameOf(c) }, `chat:${c.id}`, c.id);
    };

    const update = (c: Chat) => {
      arrival(c);
      const last = c.lastMessage;
      if (c.userId !== state.current.me || c.status !== 'open' || !last || last.origin !== 'contact') return;
      const key = `${last.createdAt}|${last.content}`;
      if (lastHeard.get(c.id) === key || c.unreadMessages === 0) return;
      lastHeard.set(c.id, key);
      if (tabs.showing(c.id)) return;
      const tr = state.current.t;
      announce(
        'newMessage',
        { title: tr('alerts.newMessage', { name: nameOf(c) }), body: last.content },
        `message:${c.id}`,
        c.id,
        `message:${c.id}|${key}`,
      );
    };

    const offs = [
      gateway.on('chat.new', (e) => arrival(e.data.chat)),
      gateway.on('chat.queue', (e) => arrival(e.data.chat)),
      gateway.on('chat.transfer', (e) => arrival(e.data.chat)),
      gateway.on('chat.capture', (e) => arrival(e.data.chat)),
      gateway.on('chat.close', (e) => arrival(e.data.chat)),
      gateway.on('chat.update', (e) => update(e.data.chat)),
      gateway.on('notification.new', (e) => {
        const n = e.data.notification;
        const chatId = typeof n.data.chatId === 'string' ? n.data.chatId : null;
        const tr = state.current.t;
        if (n.kind === 'chat.assigned') {
          announce('transfer', { title: tr('alerts.transfer'), body: notificationBody(n) }, n.id, chatId);
        } else if (n.kind === 'chat.unsnoozed') {
          // A conversation back from snooze comes to the agent as a transferred one does.
          announce('transfer', { title: tr('alerts.unsnoozed'), body: notificationBody(n) }, n.id, chatId);
        } else if (isMention(n)) {
          // A note's mention names its author (`byName`, `by: {id}`) and carries the note's start.
          const byId = typeof n.data.by === 'string' ? n.data.by : (n.data.by as { id?: unknown } | null)?.id;
          const name =
            typeof n.data.byName === 'string'
              ? n.data.byName
              : state.current.users.find((u) => u.id === byId)?.name;
          announce(
            'mention',
            {
              title: name ? tr('alerts.mentionBy', { name }) : tr('alerts.mention'),
              body: typeof n.data.excerpt === 'string' ? n.data.excerpt : notificationBody(n),
            },
            n.id,
            chatId,
          );
        }
      }),
    ];
    return () => offs.forEach((off) => off());
  }, [gateway, announce, tabs]);

  // The title counts what waits for the agent: conversations waiting in their queues, their own with
  // unread messages, and unread notifications.
  const count = (inboxCounts ? inboxCounts.waiting + inboxCounts.unread : 0) + unreadNotifications;
  useEffect(() => {
    document.title = count > 0 ? `(${count}) ${t('app.name')}` : t('app.name');
  }, [count, t]);
  useEffect(() => () => void (document.title = 'Atende'), []);

  const savePreferences = useCallback(
    async (p: Omit<NotificationPreferences, 'updatedAt'>) => {
      const saved = await put<NotificationPreferences>('/api/me/notification-preferences', {
        newChat: p.newChat,
        newMessage: p.newMessage,
        transfer: p.transfer,
        mention: p.mention,
      });
      setPreferences(saved);
      tabs.prefsChanged();
    },
    [tabs],
  );

  const value = useMemo<Alerts>(
    () => ({
      preferences,
      savePreferences,
      showing: (chatId) => tabs.show(chatId),
      setInboxCounts,
      testSound: chime,
    }),
    [preferences, savePreferences, tabs],
  );
  return <AlertsContext.Provider value={value}>{props.children}</AlertsContext.Provider>;
}

/** A notification's line for a desktop notification: the customer it is about, when it says. */
function notificationBody(n: AppNotification): string {
  const contact = n.data.contact as { name?: unknown; value?: unknown } | undefined;
  const name = typeof contact?.name === 'string' ? contact.name : '';
  const value = typeof contact?.value === 'string' ? contact.value : '';
  const text = typeof n.data.text === 'string' ? n.data.text : '';
  return name || value || text;
}
