import { useEffect, useRef, type ReactNode } from 'react';
import { LANGS, useI18n, type Lang } from './i18n';

/** The language picker: Portuguese by default, English on request (kept in localStorage). */
export function LangSwitch() {
  const { t, lang, setLang } = useI18n();
  return (
    <label className="lang">
      <span className="sr-only">{t('lang.label')}</span>
      <select value={lang} onChange={(e) => setLang(e.target.value as Lang)} aria-label={t('lang.label')}>
        {LANGS.map((l) => (
          <option key={l} value={l}>
            {l === 'pt-BR' ? 'Português' : 'English'}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * A modal dialog on the native <dialog>: focus is trapped and Escape closes it, with no library.
 * Rendered only while open.
 */
export function Dialog(props: { title: string; onClose: () => void; children: ReactNode; labelId?: string }) {
  const ref = useRef<HTMLDialogElement>(null);
  const onClose = useRef(props.onClose);
  onClose.current = props.onClose;
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!d.open) d.showModal();
    const cancel = (e: Event) => {
      e.preventDefault();
      onClose.current();
    };
    d.addEventListener('cancel', cancel);
    return () => {
      d.removeEventListener('cancel', cancel);
      if (d.open) d.close();
      previous?.focus();
    };
  }, []);
  const id = props.labelId ?? 'dialog-title';
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={id}>
      <h2 id={id}>{props.title}</h2>
      {props.children}
    </dialog>
  );
}

/** The initials of a name, for avatars. */
export function initials(name: string): string {
  // Words that start with a letter or digit: "Loja (sandbox)" is "LS", not "L(".
  const parts = name
    .trim()
    .split(/\s+/)
    .map((p) => p.replace(/^[^\p{L}\p{N}]+/u, ''))
    .filter(Boolean);
  const first = parts[0]?.[0] ?? '?';
  const last = parts.length > 1 ? (parts.at(-1)?.[0] ?? '') : '';
  return (first + last).toUpperCase();
}

/**
 * A round avatar: the initials of a name, on a hue of its own. Without a name — a contact known only
 * by a number — a neutral person glyph, as Chatwoot shows, rather than the number's first digit.
 */
export function Avatar(props: { name: string | null | undefined; small?: boolean }) {
  const name = props.name?.trim() ?? '';
  const className = props.small ? 'avatar small' : 'avatar';
  if (!/\p{L}/u.test(name)) {
    return (
      <span className={`${className} generic`} data-avatar="generic" aria-hidden="true">
        <svg viewBox="0 0 24 24" width="60%" height="60%" fill="currentColor" focusable="false">
          <circle cx="12" cy="8" r="4.2" />
          <path d="M3.5 21c0-4.4 3.8-7.2 8.5-7.2s8.5 2.8 8.5 7.2z" />
        </svg>
      </span>
    );
  }
  // A stable hue per name, so the same customer keeps the same colour.
  let h = 0;
  for (const ch of name) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return (
    <span className={className} style={{ background: `hsl(${h} 45% 42%)` }} aria-hidden="true">
      {initials(name)}
    </span>
  );
}
