import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { ApiError, get, post } from '../api';
import { Dialog } from '../components';
import { useI18n } from '../i18n';
import type { Chat, ChannelTemplate, ChannelTemplates, Message } from '../models';

// Reaching a customer after 24 hours: the conversation's 24-hour window (free text and media only
// while it is open), the form that sends an approved template, and how a template message shows.

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Renders again every `everyMs` (the window closes by the clock, without any event) and answers the
 * time of this render: a render caused by a change (the customer wrote) must not use an older clock.
 */
export function useNow(everyMs = 30_000): number {
  const [, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((n) => n + 1), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return Date.now();
}

/** Whether free text may go now, and for how long (ms); an older server without a window: open. */
export function windowOf(chat: Chat, now: number): { open: boolean; leftMs: number | null } {
  const w = chat.window;
  if (!w) return { open: true, leftMs: null };
  const expires = w.expiresAt ? Date.parse(w.expiresAt) : NaN;
  if (!w.open || Number.isNaN(expires) || expires <= now) return { open: false, leftMs: null };
  return { open: true, leftMs: expires - now };
}

/** The window's state for the conversation header: time left, or closed. */
export function WindowBadge(props: { chat: Chat }) {
  const { t } = useI18n();
  const now = useNow();
  if (!props.chat.window || props.chat.status !== 'open') return null;
  const w = windowOf(props.chat, now);
  if (!w.open) {
    return (
      <span className="window-badge" data-window="closed" title={t('window.closedHint')}>
        {t('window.closed')}
      </span>
    );
  }
  const left =
    w.leftMs !== null && w.leftMs >= HOUR
      ? t('window.hours', { h: Math.floor(w.leftMs / HOUR) })
      : t('window.minutes', { m: Math.max(1, Math.ceil((w.leftMs ?? 0) / MINUTE)) });
  return (
    <span className="window-badge" data-window="open">
      {t('window.open', { left })}
    </span>
  );
}

/** A template's text with the values given so far in place of its placeholders. */
function fill(text: string | null, values: (name: string) => string): string {
  return (text ?? '').replace(PLACEHOLDER, (whole, name: string) => values(name) || whole);
}

type Values = Record<string, string>;
const key = (component: string, name: string) => `${component}:${name}`;

/** The `template` of an agent's reply for a template from the channel's list. */
function fromList(tpl: ChannelTemplate, values: Values, headerLink: string) {
  const value = (component: string, name: string) => values[key(component, name)]?.trim() ?? '';
  const param = (component: string) => (name: string) =>
    tpl.named ? { key: name, value: value(component, name) } : value(component, name);
  const header = tpl.parameters.header.map(param('header'));
  const body = tpl.parameters.body.map(param('body'));
  // A url button takes one value, placed by the button's position.
  const buttons = tpl.parameters.buttons.flatMap((b) =>
    b.names.map((n) => ({ value: value(`button${b.index}`, n), correlationId: b.index + 1 })),
  );
  const format = tpl.header?.format;
  const media = format === 'image' || format === 'video' || format === 'document';
  return {
    name: tpl.name,
    language: tpl.language,
    ...(header.length + body.length + buttons.length > 0
      ? {
          variables: {
            ...(header.length ? { header } : {}),
            ...(body.length ? { body } : {}),
            ...(buttons.length ? { buttons } : {}),
          },
        }
      : {}),
    ...(media && headerLink.trim() ? { mediaHeader: { format, link: headerLink.trim() } } : {}),
  };
}

/**
 * Sends an approved template on the conversation: picked from the channel's list with a field per
 * placeholder and a preview, or typed by hand (name, language, body values) where the channel does
 * not list its templates.
 */
export function TemplateDialog(props: { chat: Chat; onClose: () => void; onSent: (m: Message) => void }) {
  const { t } = useI18n();
  const { chat } = props;
  const [list, setList] = useState<ChannelTemplates | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [byHand, setByHand] = useState(false);
  const [picked, setPicked] = useState('');
  const [values, setValues] = useState<Values>({});
  const [headerLink, setHeaderLink] = useState('');
  const [name, setName] = useState('');
  const [language, setLanguage] = useState('pt_BR');
  const [bodyLines, setBodyLines] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let stale = false;
    get<ChannelTemplates>(`/api/channels/${chat.channelId}/templates`)
      .then((r) => {
        if (stale) return;
        setList(r);
        if (!r.available || r.templates.length === 0) setByHand(true);
      })
      .catch((err: unknown) => {
        if (stale) return;
        setLoadError(err instanceof ApiError && err.status !== 0 ? err.message : t('common.error'));
        setByHand(true);
      });
    return () => {
      stale = true;
    };
  }, [chat.channelId, t]);

  const templates = useMemo(() => list?.templates ?? [], [list]);
  const tpl = templates.find((x) => `${x.name}|${x.language}` === picked) ?? null;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const lines = bodyLines
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      const template =
        !byHand && tpl
          ? fromList(tpl, values, headerLink)
          : {
              name: name.trim(),
              language: language.trim() || 'pt_BR',
              ...(lines.length ? { variables: { body: lines } } : {}),
            };
      props.onSent(await post<Message>(`/api/chats/${chat.id}/messages`, { template }));
    } catch (err) {
      setError(err instanceof ApiError && err.status !== 0 ? err.message : t('common.error'));
      setBusy(false);
    }
  };

  const field = (component: string, label: string, n: string) => (
    <label className="field" key={key(component, n)}>
      <span>{label}</span>
      <input
        type="text"
        required
        maxLength={1024}
        value={values[key(component, n)] ?? ''}
        onChange={(e) => setValues((v) => ({ ...v, [key(component, n)]: e.target.value }))}
      />
    </label>
  );
  const value = (component: string) => (n: string) => values[key(component, n)]?.trim() ?? '';
  const mediaHeader =
    tpl?.header && ['image', 'video', 'document'].includes(tpl.header.format) ? tpl.header.format : null;

  return (
    <Dialog title={t('template.title')} onClose={props.onClose} labelId="template-title">
      <form className="template-form" onSubmit={(e) => void submit(e)}>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {!list && !loadError && <p className="muted">{t('template.loading')}</p>}
        {loadError && (
          <p className="muted" role="status">
            {t('template.loadFailed', { error: loadError })}
          </p>
        )}
        {list && !list.available && <p className="muted">{t('template.none')}</p>}
        {list?.available && templates.length === 0 && <p className="muted">{t('template.empty')}</p>}

        {!byHand ? (
          <>
            <label className="field">
              <span>{t('template.pick')}</span>
              <select
                value={picked}
                required
                onChange={(e) => {
                  setPicked(e.target.value);
                  setValues({});
                  setHeaderLink('');
                }}
              >
                <option value="" disabled>
                  {t('template.pickOne')}
                </option>
                {templates.map((x) => (
                  <option key={`${x.name}|${x.language}`} value={`${x.name}|${x.language}`}>
                    {x.name} · {x.language}
                  </option>
                ))}
              </select>
            </label>
            {tpl && (
              <>
                {mediaHeader && (
                  <label className="field">
                    <span>{t('template.header', { name: mediaHeader })}</span>
                    <input
                      type="url"
                      required
                      placeholder="https://"
                      value={headerLink}
                      onChange={(e) => setHeaderLink(e.target.value)}
                    />
                  </label>
                )}
                {tpl.parameters.header.map((n) =>
                  field('header', t('template.header', { name: `{{${n}}}` }), n),
                )}
                {tpl.parameters.body.map((n) => field('body', t('template.body', { name: `{{${n}}}` }), n))}
                {tpl.parameters.buttons.flatMap((b) =>
                  b.names.map((n) =>
                    field(
                      `button${b.index}`,
                      t('template.button', { index: b.index + 1, name: `{{${n}}}` }),
                      n,
                    ),
                  ),
                )}
                <div className="template-preview" aria-label={t('template.preview')}>
                  {tpl.header?.format === 'text' && <strong>{fill(tpl.header.text, value('header'))}</strong>}
                  {tpl.body && <p>{fill(tpl.body, value('body'))}</p>}
                  {tpl.footer && <small className="muted">{tpl.footer}</small>}
                  {tpl.buttons.length > 0 && (
                    <div className="template-buttons">
                      {tpl.buttons.map((b, i) => (
                        <span key={i}>{b.text}</span>
                      ))}
                    </div>
                  )}
                </div>
              </>
            )}
            <button type="button" className="btn small ghost" onClick={() => setByHand(true)}>
              {t('template.byHand')}
            </button>
          </>
        ) : (
          <>
            <label className="field">
              <span>{t('template.name')}</span>
              <input
                type="text"
                required
                maxLength={512}
                value={name}
                onChange={(e) => setName(e.target.value)}
              />
            </label>
            <label className="field">
              <span>{t('template.language')}</span>
              <input
                type="text"
                required
                maxLength={16}
                value={language}
                onChange={(e) => setLanguage(e.target.value)}
              />
            </label>
            <label className="field">
              <span>{t('template.bodyValues')}</span>
              <textarea rows={3} value={bodyLines} onChange={(e) => setBodyLines(e.target.value)} />
            </label>
            {list?.available && templates.length > 0 && (
              <button type="button" className="btn small ghost" onClick={() => setByHand(false)}>
                {t('template.fromList')}
              </button>
            )}
          </>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn primary" disabled={busy || (byHand ? !name.trim() : !tpl)}>
            {t('template.send')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

interface StoredParam {
  text?: unknown;
  parameterName?: unknown;
}

/** A template message in the history: its name and language, and the values it was sent with. */
export function TemplateContent(props: { m: Message }) {
  const { t } = useI18n();
  const tpl = props.m.content.template as
    { name?: unknown; language?: unknown; header?: unknown; body?: unknown } | undefined;
  if (!tpl || typeof tpl.name !== 'string') return <span className="msg-text">[template]</span>;
  const params = (list: unknown) =>
    (Array.isArray(list) ? (list as StoredParam[]) : [])
      .filter((p) => typeof p.text === 'string')
      .map((p) =>
        typeof p.parameterName === 'string' ? `${p.parameterName}: ${String(p.text)}` : String(p.text),
      );
  const shown = [...params(tpl.header), ...params(tpl.body)];
  return (
    <span className="msg-template">
      <span className="msg-template-name">
        {t('template.message', { name: tpl.name })}
        {typeof tpl.language === 'string' && <span className="muted"> · {tpl.language}</span>}
      </span>
      {shown.length > 0 && <span className="msg-text">{shown.join(' · ')}</span>}
    </span>
  );
}
