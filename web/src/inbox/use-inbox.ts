import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { get, qs } from '../api';
import { useOnChatEvents } from './views';
import { useDirectory, useGateway, useMe } from '../session';
import type { Chat, ChatPage } from '../models';
import {
  CHAT_EVENTS,
  listOf,
  QUEUE_ATTENDING,
  QUEUE_WAITING,
  matchesAllOpen,
  newerChat,
  sortChats,
  type AllOpenFilter,
  type ListName,
} from './chat-state';

// The agent's two lists — the waiting queues of their teams (`Espera`) and their own conversations
// (`Em Atendimento`) — loaded through REST and kept live by the gateway: chat.new and chat.queue /
// capture / transfer / close reach the team rooms, chat.update the watched items. Every chat event
// carries the chat after the change, so each one is placed by the same rule (listOf).
// Supervisors and admins also have the view of every open conversation (`all`), filtered by queue,
// team, channel and a search: loaded the same way and kept live by the same events (they join every
// team's room), each chat placed by matchesAllOpen.

const PAGE = 100;

export interface InboxLists {
  waiting: Chat[];
  mine: Chat[];
  loading: boolean;
  error: boolean;
  /** The all-open view with the filter given (empty for users who may not see it). */
  all: Chat[];
  /**
   * How many open conversations the all-open filter matches, for its tab's count: the list itself
   * while the server's answer held every one, else the server's exact total, asked again after chat
   * events. Null until the first answer.
   */
  allCount: number | null;
  allLoading: boolean;
  allError: boolean;
  reloadAll(): Promise<void>;
  /** A chat as the lists last saw it (also one that just left them), for the open conversation. */
  known(id: string): Chat | undefined;
  /** Puts a chat the user changed (capture, transfer, close) in place before its event arrives. */
  apply(chat: Chat): void;
  reload(): Promise<void>;
}

export function useInboxLists(
  openChatId: string | null,
  allFilter: AllOpenFilter | null,
  /** Other chats shown (the filter bar's list, a saved view): watched as the lists' own are. */
  alsoShown: readonly string[] = [],
  /** Whether the all-open list is on screen: its chats are watched only then. */
  allOnScreen = false,
): InboxLists {
  const { me } = useMe();
  const { myTeamIds } = useDirectory();
  const { gateway } = useGateway();
  const userId = me.user.id;
  const [chats, setChats] = useState<Map<string, Chat>>(new Map());
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState(false);
  const teamsRef = useRef(myTeamIds);
  teamsRef.current = myTeamIds;
  const generation = useRef(0);
  const [allChats, setAllChats] = useState<Map<string, Chat>>(new Map());
  const [allLoading, setAllLoading] = useState(false);
  const [allError, setAllError] = useState(false);
  const allGeneration = useRef(0);
  /** The server's total for the all-open filter, and whether its first page listed every match. */
  const [allTotal, setAllTotal] = useState<{ total: number; complete: boolean } | null>(null);
  // The filter as a value: a new object with the same fields loads nothing again.
  const allKey = allFilter ? JSON.stringify(allFilter) : null;
  const allShown = useRef(false);
  allShown.current = allKey !== null;

  const apply = useCallback((chat: Chat) => {
    const put = (prev: Map<string, Chat>) => {
      const next = new Map(prev);
      next.set(chat.id, newerChat(prev.get(chat.id), chat));
      return next;
    };
    setChats(put);
    if (allShown.current) setAllChats(put);
  }, []);

  const reloadAll = useCallback(async () => {
    const run = ++allGeneration.current;
    if (allKey === null) {
      setAllChats(new Map());
      setAllTotal(null);
      return;
    }
    const f = JSON.parse(allKey) as AllOpenFilter;
    setAllLoading(true);
    try {
      const page = await get<ChatPage>(
        `/api/chats${qs({ status: 'open', queue: f.queue, teamId: f.teamId, channelId: f.channelId, q: f.q.trim(), limit: PAGE })}`,
      );
      if (run !== allGeneration.current) return;
      setAllTotal({ total: page.total, complete: page.total <= page.chats.length });
      // As for the agent's lists: the answer is the truth, except for what newer events brought.
      setAllChats((prev) => {
        const next = new Map<string, Chat>();
        for (const c of page.chats) next.set(c.id, newerChat(prev.get(c.id), c));
        for (const [id, c] of prev) if (!next.has(id) && matchesAllOpen(c, f)) next.set(id, c);
        return next;
      });
      setAllError(false);
    } catch {
      if (run === allGeneration.current) setAllError(true);
    } finally {
      if (run === allGeneration.current) setAllLoading(false);
    }
  }, [allKey]);

  useEffect(() => {
    void reloadAll();
  }, [reloadAll]);

  // More matches than one page: the list cannot count them, so the exact total is asked again (one
  // chat, the total only) a moment after each burst of chat events.
  const allTotalRef = useRef(allTotal);
  allTotalRef.current = allTotal;
  const recountAll = useCallback(async () => {
    if (allKey === null || allTotalRef.current?.complete !== false) return;
    const f = JSON.parse(allKey) as AllOpenFilter;
    const run = allGeneration.current;
    try {
      const page = await get<ChatPage>(
        `/api/chats${qs({ status: 'open', queue: f.queue, teamId: f.teamId, channelId: f.channelId, q: f.q.trim(), limit: 1 })}`,
      );
      if (run === allGeneration.current) setAllTotal({ total: page.total, complete: false });
    } catch {
      // The tab keeps the count it had.
    }
  }, [allKey]);
  useOnChatEvents(() => void recountAll());

  const reload = useCallback(async () => {
    const run = ++generation.current;
    try {
      const [waiting, mine] = await Promise.all([
        get<ChatPage>(`/api/chats${qs({ queue: QUEUE_WAITING, limit: PAGE })}`),
        get<ChatPage>(`/api/chats${qs({ queue: QUEUE_ATTENDING, userId, limit: PAGE })}`),
      ]);
      if (run !== generation.current) return;
      setChats((prev) => {
        // The answer is the truth for what it lists; chats it does not list left the lists, unless
        // an event newer than the request put them back meanwhile.
        const next = new Map<string, Chat>();
        for (const c of [...waiting.chats, ...mine.chats]) next.set(c.id, newerChat(prev.get(c.id), c));
        for (const [id, c] of prev) if (!next.has(id) && listOf(c, userId, teamsRef.current)) next.set(id, c);
        return next;
      });
      setError(false);
    } catch {
      if (run === generation.current) setError(true);
    } finally {
      if (run === generation.current) setLoading(false);
    }
  }, [userId]);

  useEffect(() => {
    void reload();
  }, [reload]);

  useEffect(() => {
    if (!gateway) return;
    const offs = CHAT_EVENTS.map((name) => gateway.on(name, (e) => apply(e.data.chat)));
    // A connection that did not get its session back missed events: the lists come again.
    offs.push(gateway.onResync(() => void reload()));
    offs.push(gateway.onResync(() => void reloadAll()));
    return () => offs.forEach((off) => off());
  }, [gateway, apply, reload, reloadAll]);

  const { waiting, mine } = useMemo(() => {
    const lists: Record<ListName, Chat[]> = { waiting: [], mine: [] };
    for (const c of chats.values()) {
      const l = listOf(c, userId, myTeamIds);
      if (l) lists[l].push(c);
    }
    return { waiting: sortChats(lists.waiting), mine: sortChats(lists.mine) };
  }, [chats, userId, myTeamIds]);

  const all = useMemo(() => {
    if (allKey === null) return [];
    const f = JSON.parse(allKey) as AllOpenFilter;
    return sortChats([...allChats.values()].filter((c) => matchesAllOpen(c, f)));
  }, [allChats, allKey]);
  const allCount = allTotal === null ? null : allTotal.complete ? all.length : allTotal.total;

  // Watch what is listed and the open conversation, so their changes (last message, unread count,
  // a transfer by someone else) reach this tab.
  const watchKey = [
    ...new Set(
      [...waiting, ...mine, ...(allOnScreen ? all : [])].map((c) => c.id).concat(openChatId ?? [], alsoShown),
    ),
  ]
    .sort()
    .join(',');
  useEffect(() => {
    gateway?.watchChats(watchKey ? watchKey.split(',') : []);
  }, [gateway, watchKey]);

  const chatsRef = useRef(chats);
  chatsRef.current = chats;
  const allRef = useRef(allChats);
  allRef.current = allChats;
  const known = useCallback((id: string) => chatsRef.current.get(id) ?? allRef.current.get(id), []);

  return {
    waiting,
    mine,
    loading,
    error,
    all,
    allCount,
    allLoading,
    allError,
    reloadAll,
    known,
    apply,
    reload,
  };
}
