import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { get, qs } from '../api';
import { useI18n } from '../i18n';
import type { MentionableUser } from '../models';

// The note box's `@` picker: `@` and a search (no space) right before the cursor lists the users who
// may see the chat, searched by name or e-mail on each key; ↑/↓ move, Enter (or Tab) picks, Esc closes.

/** How many users the picker lists at once. */
const SHOWN = 8;

/** The `@search` that ends right before the cursor, with where it starts; null when there is none. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const m = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  return m ? { start: caret - m[2]!.length - 1, query: m[2]! } : null;
}

export interface MentionPicker {
  open: boolean;
  items: MentionableUser[];
  active: number;
  onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>): boolean;
  inputProps: Record<string, string | boolean | undefined>;
}

export function useMentionPicker(
  chatId: string,
  text: string,
  caret: number,
  onPick: (user: MentionableUser, at: { start: number; query: string }) => void,
): MentionPicker {
  const at = mentionAt(text, caret);
  const query = at?.query ?? null;
  const [dismissed, setDismissed] = useState<string | null>(null);
  const open = query !== null && dismissed !== `${caret}:${text}`;
  const [answer, setAnswer] = useState<{ q: string; items: MentionableUser[] }>({ q: '', items: [] });
  const [active, setActive] = useState(0);
  const generation = useRef(0);

  useEffect(() => {
    if (!open || query === null) return;
    const mine = ++generation.current;
    get<{ users: MentionableUser[] }>(
      `/api/chats/${chatId}/mentionable-users${qs({ q: query, limit: SHOWN })}`,
    )
      .then((page) => {
        if (mine !== generation.current) return;
        setAnswer({ q: query, items: page.users });
        setActive(0);
      })
      .catch(() => mine === generation.current && setAnswer({ q: query, items: [] }));
  }, [chatId, open, query]);

  // Until this search's answer arrives, the last one narrowed to it, so a quick Enter picks a match.
  const lower = (query ?? '').toLowerCase();
  const shown = !open
    ? []
    : answer.q === query
      ? answer.items
      : answer.items.filter((u) => `${u.name} ${u.email}`.toLowerCase().includes(lower));
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open || !at) return false;
    if (e.key === 'Escape') {
      e.preventDefault();
      setDismissed(`${caret}:${text}`);
      return true;
    }
    if (shown.length === 0) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive((a) => (a + step + shown.length) % shown.length);
      return true;
    }
    if ((e.key === 'Enter' && !e.shiftKey) || e.key === 'Tab') {
      e.preventDefault();
      const user = shown[Math.min(active, shown.length - 1)];
      if (user) onPick(user, at);
      return true;
    }
    return false;
  };
  const visible = open && shown.length > 0;
  return {
    open: visible,
    items: shown,
    active,
    onKeyDown,
    inputProps: {
      role: 'combobox',
      'aria-autocomplete': 'list',
      'aria-expanded': visible,
      'aria-controls': 'mention-picker',
      'aria-activedescendant': visible && shown[active] ? `mention-${shown[active]!.id}` : undefined,
    },
  };
}

/** The list above the note box while the picker is open; a click picks too. */
export function MentionList(props: { picker: MentionPicker; onPick: (user: MentionableUser) => void }) {
  const { t } = useI18n();
  const { picker } = props;
  if (!picker.open) return null;
  return (
    <ul
      id="mention-picker"
      className="canned-picker mention-picker"
      role="listbox"
      aria-label={t('notes.picker')}
    >
      {picker.items.map((user, i) => (
        <li
          key={user.id}
          id={`mention-${user.id}`}
          role="option"
          aria-selected={i === picker.active}
          className={i === picker.active ? 'active' : undefined}
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => props.onPick(user)}
        >
          <span className="canned-shortcut">@{user.name}</span>
          <span className="canned-preview">{user.email}</span>
        </li>
      ))}
    </ul>
  );
}
