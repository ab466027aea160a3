import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { setApiLanguage } from './api';
import { en } from './locales/en';
import { ptBR, type MessageKey, type Messages } from './locales/pt-BR';

// The console's language: Portuguese (pt-BR) by default, English one click away. The strings are in
// locales/, one file per language.

export type { MessageKey };

export type Lang = 'pt-BR' | 'en';
export const LANGS: Lang[] = ['pt-BR', 'en'];

export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(ptBR, key);
}

/** A key built at run time (a status value, a scope) that may have no entry: `fallback` then. */
export function textOr(t: Translate, key: string, fallback: string): string {
  return isMessageKey(key) ? t(key) : fallback;
}

/**
 * Queue names are stored and sent in Portuguese (the API's values: `Espera`, `Em Atendimento`…);
 * where one is a label it reads in the console's language. A queue a channel names otherwise shows as
 * it is.
 */
const QUEUE_KEYS: Record<string, MessageKey> = {
  Espera: 'queue.waiting',
  'Em Atendimento': 'queue.attending',
  Observação: 'queue.observation',
  Automação: 'queue.automation',
  API: 'queue.api',
};

export function queueLabel(t: Translate, queue: string): string {
  const key = QUEUE_KEYS[queue];
  return key ? t(key) : queue;
}

const KIND_KEYS: Record<string, MessageKey> = {
  image: 'kind.image',
  video: 'kind.video',
  audio: 'kind.audio',
  document: 'kind.document',
  sticker: 'kind.sticker',
  location: 'kind.location',
  contacts: 'kind.contacts',
  interactive: 'kind.interactive',
  button: 'kind.button',
  template: 'kind.template',
  reaction: 'kind.reaction',
  order: 'kind.order',
  system: 'kind.system',
  unsupported: 'kind.unsupported',
};

/** A message type (`document`, `location`…) in the console's language; an unknown one as it is. */
export function kindLabel(t: Translate, kind: string): string {
  const key = KIND_KEYS[kind];
  return key ? t(key) : kind;
}

/**
 * A chat's last-message summary as the server writes it for what is not text — `[image]`,
 * `[document] caption`, `[location] place` — with the bracketed type named in the console's
 * language: `Documento: caption`. A text message is shown as typed, brackets and all.
 */
export function summaryLabel(t: Translate, content: string, type?: string): string {
  if (type === 'text') return content;
  const m = /^\[([a-z_]+)\](?: ([\s\S]*))?$/.exec(content);
  if (!m?.[1] || !Object.hasOwn(KIND_KEYS, m[1])) return content;
  const label = kindLabel(t, m[1]);
  return m[2] ? `${label}: ${m[2]}` : label;
}

const TABLES: Record<Lang, Messages> = { 'pt-BR': ptBR, en };
const STORAGE_KEY = 'atende.lang';

export type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

export interface I18n {
  lang: Lang;
  setLang(lang: Lang): void;
  t: Translate;
  /** Like `t` for a key held in a plain string (e.g. a nav entry's labelKey); unknown keys show as given. */
  tr(key: string, vars?: Record<string, string | number>): string;
  /** Dates and times in the language's format. */
  time(iso: string | null | undefined): string;
}

const I18nContext = createContext<I18n | null>(null);

function initialLang(): Lang {
  const saved = localStorage.getItem(STORAGE_KEY);
  const lang = saved === 'en' || saved === 'pt-BR' ? saved : 'pt-BR';
  // Before any screen's first request: children's effects run before this provider's.
  setApiLanguage(lang);
  return lang;
}

export function I18nProvider({ children }: { children: ReactNode }) {
  const [lang, setLangState] = useState<Lang>(initialLang);
  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);
  const setLang = useCallback((l: Lang) => {
    localStorage.setItem(STORAGE_KEY, l);
    setApiLanguage(l);
    setLangState(l);
  }, []);
  const value = useMemo<I18n>(() => {
    const table = TABLES[lang];
    const t: Translate = (key, vars) => {
      let s = table[key];
      if (vars) for (const [k, v] of Object.entries(vars)) s = s.replaceAll(`{${k}}`, String(v));
      return s;
    };
    const fmt = new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'short' });
    const time = (iso: string | null | undefined) => {
      if (!iso) return '';
      const d = new Date(iso);
      return Number.isNaN(d.getTime()) ? '' : fmt.format(d);
    };
    const tr = (key: string, vars?: Record<string, string | number>) =>
      isMessageKey(key) ? t(key, vars) : key;
    return { lang, setLang, t, tr, time };
  }, [lang, setLang]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const v = useContext(I18nContext);
  if (!v) throw new Error('useI18n outside I18nProvider');
  return v;
}
