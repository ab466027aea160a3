import { useMemo } from 'react';
import { get, qs } from '../api';
import { queueLabel, useI18n } from '../i18n';
import { fold } from '../keys/palette';
import { useCommands, usePaletteSource, type Command, type PaletteSource } from '../keys/registry';
import type { Chat, ChatPage } from '../models';
import { navigate } from '../router';
import type { InboxLists } from './use-inbox';

const nameOf = (c: Chat) => c.contact.name || c.contact.value;

/**
 * The inbox's keyboard: Alt+↑/↓ open the previous or next conversation of the list shown, and the
 * palette finds conversations — those listed, at once, then any the user may see, by the server's
 * search of the customer's name or number.
 */
export function useInboxKeys(shown: Chat[], openId: string | null, lists: InboxLists) {
  const { t } = useI18n();
  const commands = useMemo<Command[]>(() => {
    const step = (by: 1 | -1) => () => {
      if (shown.length === 0) return;
      const i = shown.findIndex((c) => c.id === openId);
      const next = i < 0 ? (by === 1 ? 0 : shown.length - 1) : i + by;
      const chat = shown[Math.max(0, Math.min(shown.length - 1, next))];
      if (chat && chat.id !== openId) navigate(`/inbox/${chat.id}`);
    };
    return [
      { id: 'chat.previous', group: 'go', title: t('keys.previous'), keys: 'Alt+ArrowUp', run: step(-1) },
      { id: 'chat.next', group: 'go', title: t('keys.next'), keys: 'Alt+ArrowDown', run: step(1) },
      {
        id: 'inbox.search',
        group: 'general',
        title: t('keys.search'),
        keys: '/',
        run: () => document.getElementById('inbox-search')?.focus(),
      },
    ];
  }, [shown, openId, t]);
  useCommands(commands);

  const { waiting, mine, all } = lists;
  const source = useMemo<PaletteSource>(() => {
    const item = (c: Chat) => ({
      id: `chat:${c.id}`,
      title: nameOf(c),
      hint: `${c.contact.value} · ${c.status === 'open' ? queueLabel(t, c.queue) : t('chat.statusClosed')}`,
      run: () => navigate(`/inbox/${c.id}`),
    });
    const listed = [...mine, ...waiting, ...all];
    return {
      id: 'inbox',
      items: (query) => {
        const q = fold(query);
        const hits = q
          ? listed.filter((c) => fold(`${nameOf(c)} ${c.contact.value}`).includes(q))
          : [...mine, ...waiting];
        return hits.slice(0, 8).map(item);
      },
      search: async (query) => {
        const page = await get<ChatPage>(`/api/chats${qs({ q: query, limit: 8 })}`);
        return page.chats.map(item);
      },
    };
  }, [waiting, mine, all, t]);
  usePaletteSource(source);
}
