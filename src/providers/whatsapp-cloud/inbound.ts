import type { InboundDelivery, ProviderContext, ProviderWebhooks, ReceivedMessage } from '../types.js';
import { obj } from '../../lib/json-read.js';
import { parseWebhook, verifySignature, verifySubscription, type InboundProviderMessage } from './webhook.js';

/**
 * Meta's webhooks of a WhatsApp channel behind the provider seam: the handshake and signature with
 * the channel's verify token and app secret, and a stored delivery read into the platform's terms.
 */
export const whatsappWebhooks: ProviderWebhooks = {
  signatureHeader: 'x-hub-signature-256',
  verifySubscription: (ctx, query) => verifySubscription(query, configString(ctx, 'verifyToken')),
  verifySignature: (ctx, rawBody, signature) =>
    verifySignature(configString(ctx, 'appSecret') ?? '', rawBody, signature),
  parse(ctx, body, receivedAt): InboundDelivery {
    const mine = changesOfNumber(body, configString(ctx, 'phoneNumberId'));
    const parsed = parseWebhook(mine.body, receivedAt);
    return {
      messages: parsed.messages.map(toReceived),
      statuses: parsed.statuses,
      errors: parsed.errors,
      skipped: parsed.skipped,
      foreign: mine.foreign,
    };
  },
};

function configString(ctx: ProviderContext, key: string): string | undefined {
  const v = ctx.config[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** A business-scoped user id, e.g. `US.13491208655302741918`. */
const USER_ID = /^[A-Z]{2}\.[A-Za-z0-9.]{1,160}$/;

/**
 * A WhatsApp message in the platform's terms. Every field the customer's message carried is kept in
 * the content, provider-neutral. A sender with a number is a phone contact (the `wa_id` as received);
 * one with only a business-scoped user id, a `user_id` one.
 */
function toReceived(m: InboundProviderMessage): ReceivedMessage {
  const sender =
    m.from !== null
      ? { type: 'phone' as const, address: m.from, name: m.name }
      : m.userId !== null && USER_ID.test(m.userId)
        ? { type: 'user_id' as const, address: m.userId, name: m.name }
        : null;
  const { content, summary } = contentOf(m);
  const received: ReceivedMessage = {
    sender,
    type: m.type,
    content,
    summary,
    providerMessageId: m.providerMessageId,
    sentAt: m.timestamp,
  };
  if (m.context?.providerMessageId) received.replyTo = m.context.providerMessageId;
  if (m.edit)
    received.action = { kind: 'edit', providerMessageId: m.edit.providerMessageId, text: m.edit.text };
  if (m.revoke) received.action = { kind: 'revoke', providerMessageId: m.revoke.providerMessageId };
  if (m.reaction)
    received.action = {
      kind: 'reaction',
      providerMessageId: m.reaction.providerMessageId,
      emoji: m.reaction.emoji,
    };
  if (m.system?.newAddress) received.newAddress = m.system.newAddress;
  return received;
}

/** Raw JSON of a message kept with an `unsupported` one, at most (larger is left out, and said so). */
const MAX_RAW_CHARS = 16_000;

function contentOf(m: InboundProviderMessage): { content: Record<string, unknown>; summary: string } {
  const c: Record<string, unknown> = {};
  if (m.text !== null) c.text = m.text;
  if (m.context) c.context = { ...m.context, messageId: null };
  if (m.referral) c.referral = m.referral;
  // What the provider could not do with it (131052: a file it could not download), whatever its type.
  if (m.errors) c.errors = m.errors;
  const caption = (tag: string) => (m.text ? `[${tag}] ${m.text}` : `[${tag}]`);
  switch (m.type) {
    case 'image':
    case 'video':
    case 'audio':
    case 'document':
    case 'sticker':
      if (m.media) c.media = m.media;
      return { content: c, summary: caption(m.media?.voice ? 'voice' : m.type) };
    case 'location':
      if (m.location) c.location = m.location;
      break;
    case 'contacts':
      if (m.contacts) c.contacts = m.contacts;
      break;
    case 'interactive':
      if (m.interactive) c.interactive = m.interactive;
      break;
    case 'button':
      if (m.button) c.button = m.button;
      break;
    case 'order':
      if (m.order) c.order = m.order;
      return { content: c, summary: orderSummary(m) };
    case 'reaction':
      // The emoji is on the reaction, not a text of the customer's.
      delete c.text;
      if (m.reaction) c.reaction = m.reaction;
      return {
        content: c,
        summary: m.reaction?.emoji ? `[reaction] ${m.reaction.emoji}` : '[reaction removed]',
      };
    case 'edit':
      if (m.edit) c.edit = { providerMessageId: m.edit.providerMessageId };
      return { content: c, summary: caption('edited') };
    case 'revoke':
      if (m.revoke) c.revoke = m.revoke;
      return { content: c, summary: '[deleted]' };
    case 'system':
      if (m.system) c.system = m.system;
      break;
    case 'unsupported': {
      c.unsupported = m.unsupported ?? { type: null, errors: [] };
      const raw = JSON.stringify(m.raw);
      if (raw.length <= MAX_RAW_CHARS) c.raw = m.raw;
      else c.rawOmitted = raw.length;
      const kind = m.unsupported?.type;
      return {
        content: c,
        summary: kind && kind !== 'unsupported' ? `[unsupported: ${kind}]` : '[unsupported]',
      };
    }
  }
  return { content: c, summary: m.text ?? `[${m.type}]` };
}

/** `[order] 2 items, 150.00 BRL` and the customer's note, from what the order says. */
function orderSummary(m: InboundProviderMessage): string {
  const items = m.order?.items ?? [];
  const count = items.reduce((n, i) => n + (i.quantity ?? 1), 0);
  const currencies = new Set(items.map((i) => i.currency));
  let total = '';
  const [currency] = [...currencies];
  if (items.length > 0 && currencies.size === 1 && currency && items.every((i) => i.itemPrice !== null)) {
    const cents = items.reduce((n, i) => n + Math.round((i.itemPrice ?? 0) * 100) * (i.quantity ?? 1), 0);
    total = `, ${(cents / 100).toFixed(2)} ${currency}`;
  }
  const head = `[order] ${count} ${count === 1 ? 'item' : 'items'}${total}`;
  return m.order?.text ? `${head} ${m.order.text}` : head;
}

/**
 * Keeps the changes addressed to this channel's phone number. Meta subscribes a whole app to one
 * callback URL, so a URL can receive other numbers' traffic; those never land in this channel.
 * Changes that name no number are kept (the signature already proved the sender).
 */
function changesOfNumber(
  body: unknown,
  phoneNumberId: string | undefined,
): { body: unknown; foreign: number } {
  const root = obj(body);
  if (!root || !Array.isArray(root.entry) || phoneNumberId === undefined) return { body, foreign: 0 };
  let foreign = 0;
  const entry = root.entry.map((e) => {
    const en = obj(e);
    if (!en || !Array.isArray(en.changes)) return e;
    const changes = en.changes.filter((c) => {
      const id = obj(obj(obj(c)?.value)?.metadata)?.phone_number_id;
      const mine = id === undefined || id === null || String(id) === phoneNumberId;
      if (!mine) foreign++;
      return mine;
    });
    return { ...en, changes };
  });
  return { body: { ...root, entry }, foreign };
}
