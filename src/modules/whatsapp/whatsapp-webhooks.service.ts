import type { Logger } from 'pino';
import { inTransaction, type Db } from '../../db/index.js';
import { badRequest, forbidden, notFound, unauthorized } from '../../http/errors.js';
import { MAX_JSON_DEPTH, nestedDeeperThan, tooDeep } from '../../http/input-guard.js';
import type { InboundWebhookJob } from '../../jobs/payloads.js';
import { QUEUES, type JobQueue } from '../../jobs/queue.js';
import { isObjectId, newId } from '../../lib/ids.js';
import type { InboundProviderMessage } from '../../providers/types.js';
import { parseWebhook, verifySignature, verifySubscription } from '../../providers/whatsapp-cloud/webhook.js';
import type { ChannelRow, ChannelsRepo } from '../channels/channels.repo.js';
import { normalizeContact } from '../contacts/normalize.js';
import type { InboundLinks } from '../inbound/inbound-actions.js';
import type { InboundMessage, InboundService } from '../inbound/inbound.service.js';
import type { MessageStatusService } from '../inbound/message-status.service.js';
import type { InboundEventsRepo } from './inbound-events.repo.js';

export const SIGNATURE_HEADER = 'x-hub-signature-256';

/**
 * Meta's webhooks for WhatsApp channels: the subscription handshake, and deliveries that are
 * verified, stored and queued at once (Meta retries anything slower or other than 200), then turned
 * into chats, messages and statuses by the `inbound-webhook` job.
 */
export class WhatsAppWebhooksService {
  constructor(
    private readonly db: Db,
    private readonly channels: ChannelsRepo,
    private readonly events: InboundEventsRepo,
    private readonly jobs: JobQueue,
    private readonly inbound: InboundService,
    private readonly statuses: MessageStatusService,
    private readonly logger: Logger,
  ) {}

  private async channel(channelId: string): Promise<ChannelRow> {
    const channel = isObjectId(channelId) ? await this.channels.findById(channelId) : undefined;
    if (!channel || channel.provider !== 'whatsapp-cloud') throw notFound();
    return channel;
  }

  /** The GET handshake: the challenge to echo when the verify token matches the channel's. */
  async verify(channelId: string, query: Record<string, unknown>): Promise<string> {
    const channel = await this.channel(channelId);
    const challenge = verifySubscription(query, configString(channel.provider_config, 'verifyToken'));
    if (challenge === null) throw forbidden('Verify token mismatch');
    return challenge;
  }

  /**
   * A delivery: signature checked on the raw bytes, then stored and queued in one transaction, so an
   * answered 200 is never lost and never processed twice by construction of the job.
   */
  async receive(
    channelId: string,
    rawBody: Buffer,
    signature: string | undefined,
  ): Promise<{ eventId: string }> {
    const channel = await this.channel(channelId);
    if (signature === undefined || signature === '') throw unauthorized(`Missing ${SIGNATURE_HEADER} header`);
    const appSecret = configString(channel.provider_config, 'appSecret') ?? '';
    if (!verifySignature(appSecret, rawBody, signature))
      throw unauthorized(`Invalid ${SIGNATURE_HEADER} signature`);
    const body = storableJson(rawBody);
    // Signed by the app secret yet not JSON: a broken sender, not a delivery to retry into the void.
    if (body === null) throw badRequest('Malformed JSON body');
    const eventId = newId();
    await inTransaction(this.db, async (tx) => {
      await this.events.insert(tx, {
        id: eventId,
        account_id: channel.account_id,
        channel_id: channel.id,
        provider: 'whatsapp-cloud',
        body,
      });
      await this.jobs.insertInTransaction<InboundWebhookJob>(tx, QUEUES.inboundWebhook, [
        { data: { eventId } },
      ]);
    });
    return { eventId };
  }

  /**
   * The job: messages become chats and messages, statuses move messages forward. Every step is
   * idempotent (messages de-duplicated on the provider id, statuses only move forward), so a re-run
   * after a crash halfway changes nothing twice.
   */
  async process(eventId: string): Promise<void> {
    const event = await this.events.find(eventId);
    if (!event || event.processed_at) return;
    const channel = await this.channels.findById(event.channel_id);
    if (!channel) return;
    const log = this.logger.child({ channelId: channel.id, eventId });
    const phoneNumberId = configString(channel.provider_config, 'phoneNumberId');
    const { body, foreign } = changesOfNumber(event.body, phoneNumberId);
    if (foreign > 0) log.info({ foreign }, 'webhook changes for another phone number id; skipped');
    const parsed = parseWebhook(body, event.received_at);
    // Meta reports problems of the webhook itself here (no message to store): never silent.
    for (const error of parsed.errors) log.warn({ error }, 'webhook carried an error from the provider');
    for (const skipped of parsed.skipped) log.warn(skipped, 'inbound message unreadable; skipped');

    for (const m of parsed.messages) {
      const message = toInbound(m);
      if (!message) {
        log.warn(
          { providerMessageId: m.providerMessageId, type: m.type },
          'inbound message from an unusable address; skipped',
        );
        continue;
      }
      if (m.type === 'unsupported')
        log.info(
          { providerMessageId: m.providerMessageId, unsupported: m.unsupported },
          'unsupported inbound message kept',
        );
      await this.inbound.receive(channel, message);
    }
    for (const s of parsed.statuses) await this.statuses.apply(channel.id, s);
    await this.events.markProcessed(event.id);
  }
}

function configString(config: Record<string, unknown>, key: string): string | undefined {
  const v = config[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** Raw JSON of a message kept with an `unsupported` one, at most (larger is left out, and said so). */
export const MAX_RAW_CHARS = 16_000;

/**
 * A WhatsApp message in the platform's terms; null when its sender cannot be a contact. Every field
 * the customer's message carried is kept in the content, provider-neutral (see the README's table of
 * inbound types); `summary` is the one line a chat list shows.
 */
export function toInbound(m: InboundProviderMessage): InboundMessage | null {
  const contact = contactOf(m);
  if (!contact) return null;
  const { content, summary } = contentOf(m);
  const links: InboundLinks = {};
  if (m.context?.providerMessageId) links.replyTo = m.context.providerMessageId;
  if (m.edit) links.action = { kind: 'edit', providerMessageId: m.edit.providerMessageId, text: m.edit.text };
  if (m.revoke) links.action = { kind: 'revoke', providerMessageId: m.revoke.providerMessageId };
  if (m.reaction)
    links.action = {
      kind: 'reaction',
      providerMessageId: m.reaction.providerMessageId,
      emoji: m.reaction.emoji,
    };
  if (m.system?.newAddress) {
    const next = phoneValue(m.system.newAddress);
    if (next) links.numberChange = { value: next, providerAddress: m.system.newAddress };
  }
  return {
    contact,
    type: m.type,
    content,
    summary,
    providerMessageId: m.providerMessageId,
    sentAt: m.timestamp,
    ...(Object.keys(links).length > 0 ? { links } : {}),
  };
}

/**
 * The canonical number (a Brazilian mobile without its ninth digit gains it) finds the contact; the
 * wa_id as received stays the address replies go to. A wa_id our phone metadata does not know yet is
 * still a customer: its digits are kept as they are.
 */
function phoneValue(waId: string): string | null {
  const normalized = normalizeContact('phone', waId);
  return normalized.ok ? normalized.value : /^\d{6,15}$/.test(waId) ? waId : null;
}

const USER_ID = /^[A-Z]{2}\.[A-Za-z0-9.]{1,160}$/;

/** A sender with a number is a phone contact; one with only a business-scoped user id, a `user_id` one. */
function contactOf(m: InboundProviderMessage): InboundMessage['contact'] | null {
  if (m.from !== null) {
    const value = phoneValue(m.from);
    return value ? { value, name: m.name, providerAddress: m.from } : null;
  }
  if (m.userId !== null && USER_ID.test(m.userId)) {
    return { type: 'user_id', value: m.userId, name: m.name, providerAddress: m.userId };
  }
  return null;
}

function contentOf(m: InboundProviderMessage): { content: Record<string, unknown>; summary: string } {
  const c: Record<string, unknown> = {};
  if (m.text !== null) c.text = m.text;
  if (m.context) c.context = { ...m.context, messageId: null };
  if (m.referral) c.referral = m.referral;
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

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;

/**
 * Keeps the changes addressed to this channel's phone number. Meta subscribes a whole app to one
 * callback URL, so a URL can receive other numbers' traffic; those never land in this channel.
 * Changes that name no number are kept (the signature already proved the sender).
 */
export function changesOfNumber(
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

const NEEDS_CLEANING = /\\u(0000|d[89a-f])/i;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * The body as JSON text PostgreSQL's jsonb takes, or null when it is not JSON. jsonb refuses NUL
 * characters and lone surrogate escapes, which JSON allows: they are dropped or replaced (U+FFFD)
 * rather than turning a signed delivery into a 500 that Meta would retry for a week. A body nested
 * deeper than any delivery (which jsonb refuses too) is a 400.
 */
export function storableJson(raw: Buffer): string | null {
  const text = raw.toString('utf8');
  let value: unknown;
  let cleaned = false;
  try {
    if (!NEEDS_CLEANING.test(text)) value = JSON.parse(text);
    else {
      cleaned = true;
      const clean = (s: string) => s.replaceAll('\u0000', '').replace(LONE_SURROGATE, '\uFFFD');
      value = JSON.parse(text, (_key, v: unknown) => {
        if (typeof v === 'string') return clean(v);
        const o = obj(v);
        if (o && Object.keys(o).some((k) => clean(k) !== k)) {
          return Object.fromEntries(Object.entries(o).map(([k, x]) => [clean(k), x]));
        }
        return v;
      });
    }
  } catch (err) {
    // Not JSON, or nested beyond what the parser's stack takes.
    if (err instanceof SyntaxError || err instanceof RangeError) return null;
    throw err;
  }
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) throw tooDeep();
  return cleaned ? JSON.stringify(value) : text;
}
