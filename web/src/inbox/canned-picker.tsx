import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { get, qs } from '../api';
import { useI18n } from '../i18n';
import type { CannedPage, CannedResponse } from '../models';

// The composer's `/` picker: a draft that is `/` and a search (no space) lists the canned responses
// the agent may use, searched by shortcut and text on each key; ↑/↓ move, Enter inserts, Esc closes.

/** How many responses the picker lists at once. */
const SHOWN = 8;

const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();

export interface CannedPicker {
  open: boolean;
  items: CannedResponse[];
  active: number;
  /** The textarea's keys: true when the picker took the key. */
  onKeyDown(e: KeyboardEvent<HTMLTextAreaElement>): boolean;
  /** The textarea's combobox attributes. */
  inputProps: Record<string, string | boolean | undefined>;
}

export function useCannedPicker(text: string, onPick: (item: CannedResponse) => void): CannedPicker {
  const match = /^\/(\S*)$/.exec(text);
  const query = match ? match[1]! : null;
  // The draft at which Esc closed it: it opens again once the search changes.
  const [dismissed, setDismissed] = useState<string | null>(null);
  const open = query !== null && dismissed !== text;
  // The last answer, and the search it answered.
  const [answer, setAnswer] = useState<{ q: string; items: CannedResponse[] }>({ q: '', items: [] });
  const [active, setActive] = useState(0);
  const generation = useRef(0);

  useEffect(() => {
    if (!open || query === null) return;
    const mine = ++generation.current;
    get<CannedPage>(`/api/canned-responses${qs({ q: query, limit: SHOWN })}`)
      .then((page) => {
        if (mine !== generation.current) return;
        setAnswer({ q: query, items: page.cannedResponses });
        setActive(0);
      })
      .catch(() => mine === generation.current && setAnswer({ q: query, items: [] }));
  }, [open, query]);

  // Until the answer to this search arrives, the last one narrowed to it (as the server searches:
  // accents and case ignored), so a quick Enter never inserts what no longer matches.
  const shown = !open
    ? []
    : answer.q === query
      ? answer.items
      : answer.items.filter((i) => fold(`${i.shortcut} ${i.content}`).includes(fold(query ?? '')));
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>): boolean => {
    if (!open) return false;
    if (e.key === 'Escape') {
      e.preventDefault();
      setDismissed(text);
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
      const item = shown[Math.min(active, shown.length - 1)];
      if (item) onPick(item);
      return true;
    }
    return false;
  };
  return {
    open: open && shown.length > 0,
    items: shown,
    active,
    onKeyDown,
    inputProps: {
      role: 'combobox',
      'aria-autocomplete': 'list',
      'aria-expanded': open && shown.length > 0,
      'aria-controls': 'canned-picker',
      'aria-activedescendant': open && shown[active] ? `canned-${shown[active]!.id}` : undefined,
    },
  };
}

/** The list under the composer's text while the picker is open; a click inserts too. */
export function CannedList(props: { picker: CannedPicker; onPick: (item: CannedResponse) => void }) {
  const { t } = useI18n();
  const { picker } = props;
  if (!picker.open) return null;
  return (
    <ul id="canned-picker" className="canned-picker" role="listbox" aria-label={t('canned.picker')}>
      {picker.items.map((item, i) => (
        <li
          key={item.id}
          id={`canned-${item.id}`}
          role="option"
          aria-selected={i === picker.active}
          className={i === picker.active ? 'active' : undefined}
          // Keeps the focus in the textarea.
          onMouseDown={(e) => e.preventDefault()}
          onClick={() => props.onPick(item)}
        >
          <span className="canned-shortcut">/{item.shortcut}</span>
          <span className="canned-scope">{t(`canned.scope.${item.scope}`)}</span>
          {item.attachment && <span aria-label={t('canned.hasAttachment')}>📎</span>}
          <span className="canned-preview">{item.content}</span>
        </li>
      ))}
    </ul>
  );
}
