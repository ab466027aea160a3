import type { ReactNode } from 'react';
import { useI18n, type Translate } from '../i18n';
import type { Message } from '../models';
import { messageText } from './chat-state';

// What a customer's message carries besides text and media: the message it replies to, the ad it
// came from, reactions, edits and deletions, and the bodies of orders, locations, contact cards,
// answers to buttons, lists and Flows, number changes and what WhatsApp could not deliver.

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Finds a loaded message of the conversation by id (the target of a reply or reaction). */
export type MessageLookup = (id: string) => Message | undefined;

/** Types whose body this file draws instead of the plain text. */
const OWN_BODY = new Set([
  'reaction',
  'edit',
  'revoke',
  'unsupported',
  'order',
  'location',
  'contacts',
  'interactive',
  'button',
  'system',
]);
export const hasOwnBody = (m: Message) => OWN_BODY.has(m.type) && m.origin === 'contact';

function Quote(props: { id: string | null; lookup?: MessageLookup; label: string; missing: string }) {
  const target = props.id ? props.lookup?.(props.id) : undefined;
  const text = target ? messageText(target) || `[${target.type}]` : props.missing;
  return (
    <blockquote className="msg-quote" aria-label={props.label} data-quoted-id={props.id ?? undefined}>
      {text}
    </blockquote>
  );
}

/** Above the body: the quoted message, forwarded marks, the ad the customer came from. */
export function MessageContext(props: { m: Message; lookup?: MessageLookup }) {
  const { t } = useI18n();
  const c = props.m.content;
  const context = obj(c.context);
  const referral = obj(c.referral);
  const parts: ReactNode[] = [];
  if (context?.forwarded === true || context?.frequentlyForwarded === true) {
    parts.push(
      <span key="fwd" className="msg-mark">
        {context.frequentlyForwarded === true ? t('content.frequentlyForwarded') : t('content.forwarded')}
      </span>,
    );
  }
  // Answers to our buttons and lists name the question; quoting it would only repeat it.
  if (
    context &&
    str(context.providerMessageId) &&
    props.m.type !== 'interactive' &&
    props.m.type !== 'button'
  ) {
    parts.push(
      <Quote
        key="quote"
        id={str(context.messageId) ?? null}
        lookup={props.lookup}
        label={t('content.quoteLabel')}
        missing={t('content.quoteMissing')}
      />,
    );
  }
  if (referral) {
    const title = str(referral.headline) ?? str(referral.body) ?? str(referral.sourceUrl) ?? '';
    const url = str(referral.sourceUrl);
    parts.push(
      <div key="ref" className="msg-referral">
        <span className="msg-mark">{t('content.referral')}</span>{' '}
        {url && /^https?:\/\//.test(url) ? (
          <a href={url} target="_blank" rel="noopener noreferrer">
            {title}
          </a>
        ) : (
          title
        )}
      </div>,
    );
  }
  if (obj(c.media)?.voice === true) {
    parts.push(
      <span key="voice" className="msg-mark">
        {t('content.voice')}
      </span>,
    );
  }
  return parts.length > 0 ? <>{parts}</> : null;
}

/** The body of the types listed in OWN_BODY. */
export function MessageBody(props: { m: Message; lookup?: MessageLookup }) {
  const { t } = useI18n();
  const msg = props.m;
  const c = msg.content;
  switch (msg.type) {
    case 'reaction': {
      const r = obj(c.reaction);
      const emoji = str(r?.emoji);
      return (
        <span className="msg-note">
          {emoji ? t('content.reacted', { emoji }) : t('content.unreacted')}
          <Quote
            id={str(r?.messageId) ?? null}
            lookup={props.lookup}
            label={t('content.quoteLabel')}
            missing={t('content.quoteMissing')}
          />
        </span>
      );
    }
    case 'edit':
      return (
        <span className="msg-note">
          {t('content.editRow')}
          {c.text && <span className="msg-text">{c.text}</span>}
        </span>
      );
    case 'revoke':
      return <span className="msg-note">{t('content.revokeRow')}</span>;
    case 'unsupported': {
      const kind = str(obj(c.unsupported)?.type);
      return (
        <span className="msg-note msg-unsupported" role="note">
          <strong>
            {t('content.unsupported')}
            {kind && kind !== 'unsupported' ? ` (${kind})` : ''}
          </strong>
          <span>{t('content.unsupportedHint')}</span>
        </span>
      );
    }
    case 'order':
      return <OrderBody order={obj(c.order)} t={t} />;
    case 'location': {
      const loc = obj(c.location);
      const lat = num(loc?.latitude);
      const long = num(loc?.longitude);
      return (
        <span className="msg-card">
          <strong>{str(loc?.name) ?? t('content.location')}</strong>
          {str(loc?.address) && <span>{str(loc?.address)}</span>}
          {lat !== undefined && long !== undefined && (
            <a
              href={`https://www.google.com/maps?q=${lat},${long}`}
              target="_blank"
              rel="noopener noreferrer"
            >
              {t('content.openMap')} ({lat}, {long})
            </a>
          )}
        </span>
      );
    }
    case 'contacts': {
      const cards = Array.isArray(c.contacts) ? c.contacts.map(obj).filter((x): x is Obj => !!x) : [];
      return (
        <span className="msg-cards">
          {cards.map((card, i) => (
            <span className="msg-card" key={i}>
              <span className="msg-mark">{t('content.contacts')}</span>
              <strong>{str(card.name) ?? '—'}</strong>
              {(Array.isArray(card.phones) ? card.phones : []).map((p, j) => (
                <span key={`p${j}`}>{str(obj(p)?.phone) ?? str(obj(p)?.waId)}</span>
              ))}
              {(Array.isArray(card.emails) ? card.emails : []).map((e, j) => (
                <span key={`e${j}`}>{str(obj(e)?.email)}</span>
              ))}
            </span>
          ))}
        </span>
      );
    }
    case 'interactive': {
      const it = obj(c.interactive);
      if (it?.kind === 'nfm_reply') {
        const response = obj(it.response);
        return (
          <span className="msg-card">
            <span className="msg-mark">{t('content.form')}</span>
            {response && (
              <dl className="msg-fields">
                {Object.entries(response)
                  .filter(([k]) => k !== 'flow_token')
                  .map(([k, v]) => (
                    <div key={k}>
                      <dt>{k}</dt>
                      <dd>{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
                    </div>
                  ))}
              </dl>
            )}
          </span>
        );
      }
      // A menu the platform's flow sent: its text, and the buttons or list rows the customer taps.
      if (it?.kind === 'button' || it?.kind === 'list') {
        const options = Array.isArray(it.options) ? it.options.map(obj) : [];
        return (
          <span className="msg-card" data-testid="msg-menu">
            <span className="msg-text">{str(it.body) ?? c.text}</span>
            <span className="msg-options">
              {options.map((o, i) => (
                <span key={i} className="msg-option">
                  {str(o?.title)}
                </span>
              ))}
            </span>
          </span>
        );
      }
      return (
        <span className="msg-card">
          <span className="msg-mark">{t('content.answer')}</span>
          <strong>{str(it?.title) ?? str(it?.id) ?? c.text}</strong>
          {str(it?.description) && <span>{str(it?.description)}</span>}
        </span>
      );
    }
    case 'button':
      return (
        <span className="msg-card">
          <span className="msg-mark">{t('content.button')}</span>
          <strong>{str(obj(c.button)?.text) ?? str(obj(c.button)?.payload) ?? c.text}</strong>
        </span>
      );
    case 'system': {
      const sys = obj(c.system);
      const number = str(sys?.newAddress);
      return (
        <span className="msg-note" role="note">
          {sys?.kind === 'user_changed_number' && number
            ? t('content.numberChanged', { number: `+${number}` })
            : (str(sys?.body) ?? c.text)}
        </span>
      );
    }
    default:
      return null;
  }
}

function OrderBody(props: { order: Obj | undefined; t: Translate }) {
  const { order, t } = props;
  const items = (Array.isArray(order?.items) ? order.items : []).map(obj).filter((x): x is Obj => !!x);
  const count = items.reduce((n, i) => n + (num(i.quantity) ?? 1), 0);
  const currencies = new Set(items.map((i) => str(i.currency)));
  const [currency] = [...currencies];
  const cents = items.reduce(
    (n, i) => n + Math.round((num(i.itemPrice) ?? 0) * 100) * (num(i.quantity) ?? 1),
    0,
  );
  return (
    <span className="msg-card msg-order">
      <strong>
        {t('content.order')} · {count === 1 ? t('content.item') : t('content.items', { n: count })}
      </strong>
      <ul>
        {items.map((i, k) => (
          <li key={k}>
            {num(i.quantity) ?? 1} × {str(i.productRetailerId) ?? '—'}
            {num(i.itemPrice) !== undefined && ` — ${str(i.currency) ?? ''} ${num(i.itemPrice)!.toFixed(2)}`}
          </li>
        ))}
      </ul>
      {currencies.size === 1 && currency && (
        <span>
          {t('content.total')}: {currency} {(cents / 100).toFixed(2)}
        </span>
      )}
      {str(order?.text) && <span className="msg-text">{str(order?.text)}</span>}
    </span>
  );
}

/** Below the body: edited and deleted marks, and the customer's reaction on this message. */
export function MessageMarks(props: { m: Message }) {
  const { t } = useI18n();
  const c = props.m.content;
  const edits = Array.isArray(c.edits) ? c.edits.map(obj).filter((x): x is Obj => !!x) : [];
  const reaction = str(obj(c.reaction)?.emoji);
  const revoked = str(c.revokedAt);
  const edited = str(c.editedAt);
  if (!reaction || props.m.type === 'reaction') {
    if (!revoked && !edited) return null;
  }
  return (
    <span className="msg-marks">
      {edited && (
        <span
          className="msg-mark edited"
          title={t('content.editedTitle', { texts: edits.map((e) => `“${str(e.text) ?? ''}”`).join(', ') })}
        >
          {t('content.edited')}
        </span>
      )}
      {revoked && <span className="msg-mark revoked">{t('content.revoked')}</span>}
      {reaction && props.m.type !== 'reaction' && (
        <span className="msg-reaction" role="img" aria-label={t('content.reacted', { emoji: reaction })}>
          {reaction}
        </span>
      )}
    </span>
  );
}
