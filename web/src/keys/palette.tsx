import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { Dialog } from '../components';
import { useI18n, type MessageKey } from '../i18n';
import { keyLabel, useKeys, type CommandGroup, type PaletteItem } from './registry';

/** Accents and case ignored, as the server's searches do. */
export const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

const GROUP_LABEL: Record<CommandGroup | 'items', MessageKey> = {
  chat: 'keys.group.chat',
  go: 'keys.group.go',
  general: 'keys.group.general',
  items: 'keys.group.conversations',
};

interface Row extends PaletteItem {
  group: CommandGroup | 'items';
  keys?: string;
}

/**
 * Ctrl/⌘+K: one box to find an action or a conversation. Typing narrows the list (accents and case
 * ignored); ↑/↓ move, Enter runs, Esc closes. Actions come from the commands the screen registered;
 * conversations from the palette sources (those listed now, then the server's search).
 */
export function Palette(props: { onClose: () => void }) {
  const { t } = useI18n();
  const { commands, sources } = useKeys();
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const [found, setFound] = useState<{ query: string; items: PaletteItem[] }>({ query: '', items: [] });
  const list = useRef<HTMLUListElement>(null);

  const rows = useMemo<Row[]>(() => {
    const q = fold(query.trim());
    const seen = new Set<string>();
    const out: Row[] = [];
    const add = (r: Row) => {
      if (seen.has(r.id)) return;
      seen.add(r.id);
      out.push(r);
    };
    for (const c of commands()) {
      if (!q || fold(c.title).includes(q)) add({ ...c, id: `cmd:${c.id}` });
    }
    for (const s of sources()) for (const item of s.items(query.trim())) add({ ...item, group: 'items' });
    if (found.query === query.trim()) for (const item of found.items) add({ ...item, group: 'items' });
    // Conversations first once something is typed: that is what a name or a number looks for.
    return q ? [...out.filter((r) => r.group === 'items'), ...out.filter((r) => r.group !== 'items')] : out;
  }, [query, commands, sources, found]);

  // The server's search, for two characters or more, a moment after the typing stops.
  useEffect(() => {
    const q = query.trim();
    if (q.length < 2) return;
    let stale = false;
    const timer = setTimeout(() => {
      void Promise.all(sources().map((s) => s.search?.(q).catch(() => []) ?? Promise.resolve([]))).then(
        (lists) => !stale && setFound({ query: q, items: lists.flat() }),
      );
    }, 200);
    return () => {
      stale = true;
      clearTimeout(timer);
    };
  }, [query, sources]);

  useEffect(() => setActive(0), [query]);
  useEffect(() => {
    list.current?.querySelector('[aria-selected="true"]')?.scrollIntoView({ block: 'nearest' });
  }, [active]);

  const run = (r: Row | undefined) => {
    if (!r) return;
    props.onClose();
    r.run();
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (rows.length === 0) return;
      setActive((a) => (a + (e.key === 'ArrowDown' ? 1 : rows.length - 1)) % rows.length);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      run(rows[active]);
    }
  };

  return (
    <Dialog title={t('keys.palette')} onClose={props.onClose} labelId="palette-title">
      <div className="palette">
        <input
          type="text"
          autoFocus
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-list"
          aria-activedescendant={rows[active] ? `palette-${active}` : undefined}
          aria-label={t('keys.paletteHint')}
          placeholder={t('keys.paletteHint')}
          value={query}
          maxLength={100}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={onKey}
        />
        <ul id="palette-list" role="listbox" ref={list} aria-label={t('keys.palette')}>
          {rows.length === 0 && <li className="muted palette-empty">{t('keys.nothing')}</li>}
          {rows.map((r, i) => (
            <li
              key={r.id}
              id={`palette-${i}`}
              role="option"
              aria-selected={i === active}
              className={i === active ? 'palette-row active' : 'palette-row'}
              onMouseMove={() => setActive(i)}
              onClick={() => run(r)}
            >
              <span className="palette-title">{r.title}</span>
              {r.hint && <span className="palette-hint">{r.hint}</span>}
              <span className="palette-group">{t(GROUP_LABEL[r.group])}</span>
              {r.keys && <kbd>{keyLabel(r.keys)}</kbd>}
            </li>
          ))}
        </ul>
      </div>
    </Dialog>
  );
}
