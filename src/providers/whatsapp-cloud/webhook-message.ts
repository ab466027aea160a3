import type {
  InboundContactCard,
  InboundContext,
  InboundInteractive,
  InboundLocation,
  InboundMedia,
  InboundOrder,
  InboundProviderError,
  InboundReferral,
  InboundSystem,
  SkippedInbound,
} from '../types.js';
import { list, num, obj, str, type JsonObject } from '../../lib/json-read.js';

/**
 * A customer's message in Meta's webhook JSON, read field by field into `InboundProviderMessage`
 * (text, media, location, contacts, interactive replies, orders, reactions, edits, system notices),
 * and the readers of what messages and statuses share: errors, senders, timestamps.
 */

/**
 * A customer's message as read from Meta's JSON: every field it can carry, typed, before `toReceived`
 * (inbound.ts) puts it in the platform's terms.
 */
export interface InboundProviderMessage {
  providerMessageId: string;
  /** Phone address (WhatsApp's `wa_id`); null for a sender known only by a business-scoped user id. */
  from: string | null;
  /** Business-scoped user id (e.g. `US.13491208655302741918`), when the provider gave one. */
  userId: string | null;
  name: string | null;
  /** When the customer sent it (the provider's timestamp; arrival time when it has none). */
  timestamp: Date;
  /**
   * text, image, video, audio, document, sticker, location, contacts, interactive, button, order,
   * reaction, edit, revoke, system, or `unsupported` for anything else (kept, never dropped).
   */
  type: string;
  /** Body, caption, or what a summary starts from; null when there is none. */
  text: string | null;
  media?: InboundMedia;
  /** The message this one replies to (quoted), by the provider's id. */
  context?: InboundContext;
  /** The ad or post the customer came from (click-to-WhatsApp). */
  referral?: InboundReferral;
  interactive?: InboundInteractive;
  /** A quick-reply button of a template. */
  button?: { text: string | null; payload: string | null };
  order?: InboundOrder;
  location?: InboundLocation;
  contacts?: InboundContactCard[];
  /** An emoji on another message; `emoji` null removes the customer's reaction. */
  reaction?: { providerMessageId: string; emoji: string | null };
  /** New content of an earlier message of the customer's. */
  edit?: { providerMessageId: string; text: string | null };
  /** The customer deleted an earlier message of theirs for everyone. */
  revoke?: { providerMessageId: string };
  system?: InboundSystem;
  /** What the provider could not deliver: its own type name and errors. */
  unsupported?: { type: string | null; errors: InboundProviderError[] };
  /**
   * The message's own errors, of any type: what the provider could not do with it (e.g. 131052
   * "Media download failed" on a customer's file, 131051 on an unsupported type), when it gave any.
   */
  errors?: InboundProviderError[];
  raw: Record<string, unknown>;
}

type Obj = JsonObject;

const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'document', 'sticker']);
/** Types read into their own fields; any other type is kept as `unsupported`. */
const KNOWN_TYPES = new Set([
  ...MEDIA_TYPES,
  'text',
  'location',
  'contacts',
  'interactive',
  'button',
  'order',
  'reaction',
  'edit',
  'revoke',
  'system',
  'unsupported',
]);
/** Bounds of what a customer can make us store from one message. */
const MAX_ITEMS = 100;
const MAX_FLOW_RESPONSE = 16_000;

export interface Sender {
  waId: string | null;
  userId: string | null;
  name: string | null;
}

export function parseMessage(
  m: Obj | undefined,
  senders: Sender[],
  now: Date,
): InboundProviderMessage | { skipped: SkippedInbound } {
  const id = str(m?.id) ?? null;
  const type = str(m?.type) ?? null;
  if (!m || !id || !type) return { skipped: { providerMessageId: id, type, reason: 'no id or type' } };
  const from = str(m.from) ?? null;
  // A sender known only by a business-scoped user id carries no `from` (usernames hide the number).
  const userId = str(m.from_user_id) ?? str(m.user_id) ?? null;
  const sender =
    senders.find((s) => (from !== null && s.waId === from) || (userId !== null && s.userId === userId)) ??
    (senders.length === 1 ? senders[0] : undefined);
  const senderUserId = userId ?? (from === null ? (sender?.userId ?? null) : null);
  if (!from && !senderUserId) return { skipped: { providerMessageId: id, type, reason: 'no sender' } };
  const known = KNOWN_TYPES.has(type);
  const base: InboundProviderMessage = {
    providerMessageId: id,
    from,
    userId: senderUserId ?? sender?.userId ?? null,
    name: sender?.name ?? null,
    timestamp: time(m.timestamp, now),
    type: known ? type : 'unsupported',
    text: null,
    raw: m,
    ...extras(m),
  };
  const errors = errorsOf(m.errors);
  if (errors.length > 0) base.errors = errors;
  const body = obj(m[type]);
  if (!known) return { ...base, unsupported: { type, errors: errorsOf(m.errors) } };
  if (MEDIA_TYPES.has(type)) return { ...base, ...readMedia(type, body) };
  return { ...base, ...readContent(type, body, m) };
}

/** Fields any type may carry: the message replied to, and the ad the customer came from. */
function extras(m: Obj): Pick<InboundProviderMessage, 'context' | 'referral'> {
  const out: Pick<InboundProviderMessage, 'context' | 'referral'> = {};
  const ctx = obj(m.context);
  const ctxId = str(ctx?.id);
  if (ctx && ctxId) {
    const product = obj(ctx.referred_product);
    out.context = {
      providerMessageId: ctxId,
      ...(ctx.forwarded === true ? { forwarded: true as const } : {}),
      ...(ctx.frequently_forwarded === true ? { frequentlyForwarded: true as const } : {}),
      ...(product
        ? {
            product: {
              catalogId: str(product.catalog_id) ?? null,
              productRetailerId: str(product.product_retailer_id) ?? null,
            },
          }
        : {}),
    };
  } else if (ctx && (ctx.forwarded === true || ctx.frequently_forwarded === true)) {
    // Forwarded messages carry a context without an id.
    out.context = {
      providerMessageId: null,
      ...(ctx.forwarded === true ? { forwarded: true as const } : {}),
      ...(ctx.frequently_forwarded === true ? { frequentlyForwarded: true as const } : {}),
    };
  }
  const ref = obj(m.referral);
  if (ref) {
    out.referral = {
      sourceType: str(ref.source_type) ?? null,
      sourceId: str(ref.source_id) ?? null,
      sourceUrl: str(ref.source_url) ?? null,
      headline: str(ref.headline) ?? null,
      body: str(ref.body) ?? null,
      mediaType: str(ref.media_type) ?? null,
      mediaUrl: str(ref.image_url) ?? str(ref.video_url) ?? null,
      ctwaClid: str(ref.ctwa_clid) ?? null,
    };
  }
  return out;
}

function readMedia(type: string, body: Obj | undefined): Partial<InboundProviderMessage> {
  const mediaId = str(body?.id);
  const caption = str(body?.caption);
  const filename = str(body?.filename);
  const sha256 = str(body?.sha256);
  return {
    text: caption ?? null,
    ...(mediaId
      ? {
          media: {
            id: mediaId,
            mimetype: str(body?.mime_type) ?? 'application/octet-stream',
            ...(sha256 ? { sha256 } : {}),
            ...(filename ? { filename } : {}),
            ...(caption ? { caption } : {}),
            ...(type === 'audio' && body?.voice === true ? { voice: true as const } : {}),
            ...(type === 'sticker' && typeof body?.animated === 'boolean' ? { animated: body.animated } : {}),
          },
        }
      : {}),
  };
}

/** The fields of a non-media message, with the text shown for it. */
function readContent(type: string, body: Obj | undefined, m: Obj): Partial<InboundProviderMessage> {
  switch (type) {
    case 'text':
      return { text: str(body?.body) ?? null };
    case 'location': {
      const location = {
        latitude: num(body?.latitude) ?? null,
        longitude: num(body?.longitude) ?? null,
        ...optional('name', str(body?.name)),
        ...optional('address', str(body?.address)),
        ...optional('url', str(body?.url)),
      };
      const place = [location.name, location.address].filter(Boolean).join(', ');
      const coords =
        location.latitude !== null && location.longitude !== null
          ? `(${location.latitude}, ${location.longitude})`
          : '';
      return { location, text: ['[location]', place, coords].filter(Boolean).join(' ') };
    }
    case 'contacts': {
      const contacts = list(m.contacts).slice(0, MAX_ITEMS).map(contactCard);
      const people = contacts.map((c) => {
        const phones = c.phones.map((p) => p.phone ?? p.waId).filter(Boolean);
        return [c.name, phones.length > 0 ? `(${phones.join(', ')})` : ''].filter(Boolean).join(' ');
      });
      return { contacts, text: ['[contacts]', people.filter(Boolean).join('; ')].filter(Boolean).join(' ') };
    }
    case 'interactive': {
      const interactive = readInteractive(body);
      const text =
        interactive.kind === 'nfm_reply'
          ? (interactive.body ?? '[form]')
          : (interactive.title ?? interactive.id ?? '[interactive]');
      return { interactive, text };
    }
    case 'button': {
      const button = { text: str(body?.text) ?? null, payload: str(body?.payload) ?? null };
      return { button, text: button.text ?? button.payload ?? '[button]' };
    }
    case 'order': {
      const order = {
        catalogId: str(body?.catalog_id) ?? null,
        text: str(body?.text) ?? null,
        items: list(body?.product_items)
          .slice(0, MAX_ITEMS)
          .map((i) => {
            const item = obj(i);
            return {
              productRetailerId: str(item?.product_retailer_id) ?? null,
              quantity: num(item?.quantity) ?? null,
              itemPrice: num(item?.item_price) ?? null,
              currency: str(item?.currency) ?? null,
            };
          }),
      };
      return { order, text: order.text };
    }
    case 'reaction': {
      const target = str(body?.message_id);
      const emoji = str(body?.emoji) ?? null;
      return {
        ...(target ? { reaction: { providerMessageId: target, emoji } } : {}),
        text: emoji,
      };
    }
    case 'edit': {
      const original = str(body?.original_message_id);
      const inner = obj(body?.message);
      const innerType = str(inner?.type);
      const innerBody = obj(innerType ? inner?.[innerType] : undefined);
      const text = str(innerBody?.body) ?? str(innerBody?.caption) ?? null;
      return { ...(original ? { edit: { providerMessageId: original, text } } : {}), text };
    }
    case 'revoke': {
      const original = str(body?.original_message_id);
      return original ? { revoke: { providerMessageId: original } } : {};
    }
    case 'system': {
      const kind = str(body?.type) ?? null;
      const newAddress =
        kind === 'user_changed_number' ? (str(body?.new_wa_id) ?? str(body?.wa_id)) : undefined;
      const text = str(body?.body) ?? null;
      return { system: { kind, body: text, ...(newAddress ? { newAddress } : {}) }, text };
    }
    case 'unsupported': {
      const inner = str(body?.type) ?? null;
      return { unsupported: { type: inner, errors: errorsOf(m.errors) } };
    }
    default:
      return {};
  }
}

function readInteractive(body: Obj | undefined): InboundInteractive {
  const kind = str(body?.type);
  const button = obj(body?.button_reply);
  if (button || kind === 'button_reply') {
    return { kind: 'button_reply', id: str(button?.id) ?? null, title: str(button?.title) ?? null };
  }
  const row = obj(body?.list_reply);
  if (row || kind === 'list_reply') {
    const description = str(row?.description);
    return {
      kind: 'list_reply',
      id: str(row?.id) ?? null,
      title: str(row?.title) ?? null,
      ...(description ? { description } : {}),
    };
  }
  const flow = obj(body?.nfm_reply);
  if (flow || kind === 'nfm_reply') {
    const json = str(flow?.response_json);
    return {
      kind: 'nfm_reply',
      id: null,
      title: null,
      ...optional('name', str(flow?.name)),
      ...optional('body', str(flow?.body)),
      ...(json !== undefined ? { response: flowResponse(json) } : {}),
    };
  }
  return { kind: 'other', id: null, title: null };
}

/** A Flow's answers as JSON when they parse (bounded), else the text as sent. */
function flowResponse(json: string): unknown {
  if (json.length > MAX_FLOW_RESPONSE) return json.slice(0, MAX_FLOW_RESPONSE);
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return json;
  }
}

function contactCard(c: unknown): InboundContactCard {
  const card = obj(c);
  const name = obj(card?.name);
  const org = obj(card?.org);
  return {
    name:
      str(name?.formatted_name) ??
      ([str(name?.first_name), str(name?.last_name)].filter(Boolean).join(' ') || null),
    phones: list(card?.phones)
      .slice(0, MAX_ITEMS)
      .map((p) => ({
        phone: str(obj(p)?.phone) ?? null,
        waId: str(obj(p)?.wa_id) ?? null,
        type: str(obj(p)?.type) ?? null,
      })),
    emails: list(card?.emails)
      .slice(0, MAX_ITEMS)
      .map((e) => ({ email: str(obj(e)?.email) ?? null, type: str(obj(e)?.type) ?? null })),
    ...(org ? { organization: { company: str(org.company) ?? null, title: str(org.title) ?? null } } : {}),
  };
}

export function errorsOf(v: unknown): InboundProviderError[] {
  return list(v)
    .slice(0, MAX_ITEMS)
    .flatMap((e) => {
      const err = obj(e);
      if (!err) return [];
      const code = err.code;
      return [
        {
          code: typeof code === 'number' || typeof code === 'string' ? String(code) : 'unknown',
          title: str(err.title) ?? str(err.message) ?? null,
          message: str(err.message) ?? null,
          details: str(obj(err.error_data)?.details) ?? str(err.details) ?? null,
        },
      ];
    });
}

function optional<K extends string>(key: K, v: string | undefined): { [P in K]?: string } {
  return (v === undefined ? {} : { [key]: v }) as { [P in K]?: string };
}

/** Who sent the messages of a change: phone (`wa_id`), business-scoped user id and profile name. */
export function contactSenders(contacts: unknown[]): Sender[] {
  return contacts.slice(0, MAX_ITEMS).flatMap((c) => {
    const contact = obj(c);
    if (!contact) return [];
    const waId = str(contact.wa_id) ?? null;
    const userId = str(contact.user_id) ?? null;
    if (!waId && !userId) return [];
    return [{ waId, userId, name: str(obj(contact.profile)?.name) ?? null }];
  });
}

/** Graph timestamps are Unix seconds as strings. */
export function time(v: unknown, now: Date): Date {
  return timeOrNull(v) ?? now;
}

export function timeOrNull(v: unknown): Date | null {
  const seconds = typeof v === 'string' && /^\d{1,12}$/.test(v) ? Number(v) : typeof v === 'number' ? v : NaN;
  // Date's own range ends at 8.64e15 ms.
  return Number.isFinite(seconds) && seconds >= 0 && seconds <= 8.64e12 ? new Date(seconds * 1000) : null;
}
