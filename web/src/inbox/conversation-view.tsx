import {
  forwardRef,
  useCallback,
  useEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
} from 'react';
import { ApiError, get, qs } from '../api';
import type { Chat, Message, MessageHistory } from '../models';
import { useGateway } from '../session';
import { CHAT_EVENTS, mergeMessages, newerChat } from './chat-state';
import { MessageList, type MessageListHandle } from './messages';
import type { TimelineItem } from './timeline';

// One conversation as both sides see it — the agent in the inbox (inbox/conversation.tsx) and the
// tester playing the customer in the simulator (simulator.tsx): the chat and its newest messages
// through REST, older pages as the reader scrolls up, and what changes live through the gateway's
// attendance room (new messages, their ticks, the chat's queue and attendant). Each screen puts its
// own header, notes and reply box around ConversationView.

const HISTORY_PAGE = 30;

export type ConversationLoad = 'loading' | 'ready' | 'gone' | 'error';

export interface Conversation {
  chat: Chat | null;
  messages: Message[];
  /** `gone`: the chat answered 404 (closed to this user, or moved to a team they do not see). */
  load: ConversationLoad;
  hasOlder: boolean;
  loadingOlder: boolean;
  loadOlder(): Promise<void>;
  /** Opened at a message (a search result): newer messages come in pages too, until the newest. */
  hasNewer: boolean;
  loadNewer(): Promise<void>;
  /** The message it was opened at, if any. */
  focusId: string | null;
  /** Reads the chat and its newest messages again (a retry after an error). */
  reload(): Promise<void>;
  /** A chat this user changed (captured, transferred, closed), before its event arrives. */
  applyChat(chat: Chat): void;
  /** A message this user sent, before its event arrives. */
  addMessage(message: Message): void;
}

/**
 * Opens `chatId` (none: nothing to show): joins its attendance room first, so nothing falls between
 * the history and the live events — whatever comes twice is merged by id — then reads it. `initial`
 * is what is already known of the chat; `onChat` hears every newer copy of it.
 */
export function useConversation(
  chatId: string | null,
  opts: {
    initial?: (id: string) => Chat | undefined;
    onChat?: (chat: Chat) => void;
    /** Open at this message (its page, half older and half newer) instead of the newest. */
    around?: string | null;
  } = {},
): Conversation {
  const around = opts.around ?? null;
  const { gateway } = useGateway();
  const initial = useRef(opts.initial);
  initial.current = opts.initial;
  const onChat = useRef(opts.onChat);
  onChat.current = opts.onChat;
  const [chat, setChat] = useState<Chat | null>(() => (chatId && opts.initial?.(chatId)) || null);
  const [messages, setMessages] = useState<Message[]>([]);
  const [nextBefore, setNextBefore] = useState<string | null>(null);
  const [nextAfter, setNextAfter] = useState<string | null>(null);
  const newest = useRef(true);
  newest.current = nextAfter === null;
  const [loadingOlder, setLoadingOlder] = useState(false);
  const [load, setLoad] = useState<ConversationLoad>('loading');
  const current = useRef(chatId);
  current.current = chatId;

  const applyChat = useCallback((c: Chat) => {
    if (c.id !== current.current) return;
    setChat((prev) => newerChat(prev?.id === c.id ? prev : undefined, c));
    onChat.current?.(c);
  }, []);

  // Away from the newest messages, a new one would show after a gap: it comes with the newer pages.
  const addMessage = useCallback(
    (m: Message) =>
      setMessages((prev) =>
        newest.current || prev.some((x) => x.id === m.id) ? mergeMessages(prev, [m]) : prev,
      ),
    [],
  );

  /** The chat and its newest messages, merged into what is shown (a reload keeps older pages). */
  const loadLatest = useCallback(
    async (id: string, first: boolean, at: string | null = null) => {
      try {
        const [c, history] = await Promise.all([
          get<Chat>(`/api/chats/${id}`),
          get<MessageHistory>(`/api/chats/${id}/messages${qs({ limit: HISTORY_PAGE, around: at })}`),
        ]);
        if (current.current !== id) return;
        applyChat(c);
        setMessages((prev) => mergeMessages(prev, history.messages));
        if (first) {
          setNextBefore(history.nextBefore);
          setNextAfter(history.nextAfter);
        }
        setLoad('ready');
      } catch (err) {
        if (current.current !== id) return;
        // A failure to reach the server does not undo a 404: the chat is still not this user's.
        const gone = err instanceof ApiError && err.status === 404;
        setLoad((prev) => (gone || prev === 'gone' ? 'gone' : 'error'));
      }
    },
    [applyChat],
  );

  useEffect(() => {
    setChat((chatId && initial.current?.(chatId)) || null);
    setMessages([]);
    setNextBefore(null);
    setNextAfter(null);
    setLoad('loading');
  }, [chatId, around]);

  useEffect(() => {
    if (!chatId) return;
    let stale = false;
    void (gateway ? gateway.attend(chatId) : Promise.resolve()).then(() => {
      if (!stale) void loadLatest(chatId, true, around);
    });
    return () => {
      stale = true;
    };
  }, [chatId, around, gateway, loadLatest]);

  useEffect(() => () => void gateway?.attend(null), [gateway]);

  useEffect(() => {
    if (!gateway) return;
    const onMessage = (data: { chatId: string; message: Message }) => {
      if (data.chatId === current.current) addMessage(data.message);
    };
    const offs = [
      gateway.on('message.upsert', (e) => onMessage(e.data)),
      gateway.on('message.update', (e) => onMessage(e.data)),
      ...CHAT_EVENTS.map((n) => gateway.on(n, (e) => applyChat(e.data.chat))),
      // Back after a drop the server could not bridge: what arrived meanwhile comes through REST.
      gateway.onResync(() => {
        if (current.current && newest.current) void loadLatest(current.current, false);
      }),
    ];
    return () => offs.forEach((off) => off());
  }, [gateway, applyChat, addMessage, loadLatest]);

  const loadOlder = useCallback(async () => {
    if (!chatId || !nextBefore || loadingOlder) return;
    setLoadingOlder(true);
    try {
      const page = await get<MessageHistory>(
        `/api/chats/${chatId}/messages${qs({ before: nextBefore, limit: HISTORY_PAGE })}`,
      );
      if (current.current !== chatId) return;
      setMessages((prev) => mergeMessages(prev, page.messages));
      setNextBefore(page.nextBefore);
    } catch {
      // the button stays, to try again
    } finally {
      setLoadingOlder(false);
    }
  }, [chatId, nextBefore, loadingOlder]);

  const [loadingNewer, setLoadingNewer] = useState(false);
  const loadNewer = useCallback(async () => {
    if (!chatId || !nextAfter || loadingNewer) return;
    setLoadingNewer(true);
    try {
      const page = await get<MessageHistory>(
        `/api/chats/${chatId}/messages${qs({ after: nextAfter, limit: HISTORY_PAGE })}`,
      );
      if (current.current !== chatId) return;
      setMessages((prev) => mergeMessages(prev, page.messages));
      setNextAfter(page.nextAfter);
    } catch {
      // the button stays, to try again
    } finally {
      setLoadingNewer(false);
    }
  }, [chatId, nextAfter, loadingNewer]);

  const reload = useCallback(async () => {
    if (chatId) await loadLatest(chatId, true, around);
  }, [chatId, around, loadLatest]);

  return {
    chat,
    messages,
    load,
    hasOlder: nextBefore !== null,
    loadingOlder,
    loadOlder,
    hasNewer: nextAfter !== null,
    loadNewer,
    focusId: around,
    reload,
    applyChat,
    addMessage,
  };
}

/**
 * The conversation's messages: from the agent's side (the customer on the left) or the customer's,
 * with older pages loaded as the reader scrolls up. `scrollToBottom` (through the ref) follows a
 * message the reader just sent.
 */
export const ConversationView = forwardRef<
  MessageListHandle,
  {
    conversation: Conversation;
    side: 'agent' | 'customer';
    authorOf: (m: Message) => string | undefined;
    label: string;
    /** The agent's timeline (messages with notes and activity) and how its other items are drawn. */
    timeline?: TimelineItem[];
    renderExtra?: (item: Exclude<TimelineItem, { type: 'message' }>) => ReactNode;
  }
>(function ConversationView(props, ref) {
  const { conversation: c } = props;
  return (
    <MessageList
      ref={ref}
      messages={c.messages}
      side={props.side}
      hasOlder={c.hasOlder}
      loadingOlder={c.loadingOlder}
      onLoadOlder={() => void c.loadOlder()}
      hasNewer={c.hasNewer}
      onLoadNewer={() => void c.loadNewer()}
      focusId={c.focusId}
      authorOf={props.authorOf}
      label={props.label}
      timeline={props.timeline}
      renderExtra={props.renderExtra}
    />
  );
});

/** A reply box's keys: Enter sends, Shift+Enter breaks the line, Enter that ends an IME composition neither. */
export const sendOnEnter = (send: () => void) => (e: KeyboardEvent<HTMLTextAreaElement>) => {
  if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
    e.preventDefault();
    send();
  }
};
