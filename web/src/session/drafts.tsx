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
import type { Draft } from '../models';
import { useGateway } from './gateway';

/** The user's drafts per chat, kept on the server and synced across their tabs through draft.update. */
export interface Drafts {
  drafts: Map<string, string>;
  /** Saved after a pause in the typing, or at once with `now`. */
  setDraft(chatId: string, text: string, opts?: { now?: boolean }): void;
}

const DraftsContext = createContext<Drafts | null>(null);

export function useDrafts(): Drafts {
  const v = useContext(DraftsContext);
  if (!v) throw new Error('useDrafts outside SessionProvider');
  return v;
}

export function DraftsProvider(props: { children: ReactNode }) {
  const { gateway } = useGateway();
  const [drafts, setDrafts] = useState<Map<string, string>>(new Map());
  // Per chat: a save waiting for the typing to pause, and the last text this tab saved.
  const timers = useRef(new Map<string, ReturnType<typeof setTimeout>>());
  const sent = useRef(new Map<string, string>());

  const load = useCallback(async () => {
    const list = await get<Draft[]>('/api/drafts').catch(() => [] as Draft[]);
    setDrafts((prev) => {
      const next = new Map(list.filter((x) => x.text !== '').map((x) => [x.chatId, x.text]));
      // Edits not saved yet win over what the server had.
      for (const chatId of timers.current.keys()) next.set(chatId, prev.get(chatId) ?? '');
      return next;
    });
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  useEffect(() => {
    if (!gateway) return;
    const offs = [
      gateway.on('draft.update', (e) => {
        const draft = e.data.draft;
        // Our own save coming back, or older than what is being typed here: keep the local text.
        if (timers.current.has(draft.chatId)) return;
        if (sent.current.get(draft.chatId) === draft.text) return;
        sent.current.delete(draft.chatId);
        setDrafts((prev) => {
          const next = new Map(prev);
          if (draft.text === '') next.delete(draft.chatId);
          else next.set(draft.chatId, draft.text);
          return next;
        });
      }),
      gateway.onResync(() => void load()),
    ];
    return () => offs.forEach((off) => off());
  }, [gateway, load]);

  const setDraft = useCallback((chatId: string, text: string, opts: { now?: boolean } = {}) => {
    setDrafts((prev) => {
      if ((prev.get(chatId) ?? '') === text) return prev;
      const next = new Map(prev);
      if (text === '') next.delete(chatId);
      else next.set(chatId, text);
      return next;
    });
    const pending = timers.current.get(chatId);
    if (pending) clearTimeout(pending);
    const save = () => {
      timers.current.delete(chatId);
      sent.current.set(chatId, text);
      void put(`/api/chats/${chatId}/draft`, { text }).catch(() => undefined);
    };
    if (opts.now) save();
    else timers.current.set(chatId, setTimeout(save, 400));
  }, []);

  const value = useMemo(() => ({ drafts, setDraft }), [drafts, setDraft]);
  return <DraftsContext.Provider value={value}>{props.children}</DraftsContext.Provider>;
}
