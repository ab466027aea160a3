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
import type { InboundMessage, InboundService } from '../messages/inbound.service.js';
import type { MessageStatusService } from '../messages/message-status.service.js';
import type { InboundEventsRepo } from './inbound-events.repo.js';

export const SIGNATURE_HEADER = 'x-hub-signature-256';

const MEDIA_TYPES = new Set(['image', 'video', 'audio', 'document', 'sticker']);

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

    for (const m of parsed.messages) {
      const message = toInbound(m);
      if (!message) {
        log.warn(
          { providerMessageId: m.providerMessageId },
          'inbound message from an unusable address; skipped',
        );
        continue;
      }
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

/** A WhatsApp message in the platform's terms; null when its sender cannot be a contact. */
export function toInbound(m: InboundProviderMessage): InboundMessage | null {
  // The canonical number (a Brazilian mobile without its ninth digit gains it) finds the contact; the
  // wa_id as received stays the address replies go to. A wa_id our phone metadata does not know yet
  // is still a customer: its digits are kept as they are.
  const normalized = normalizeContact('phone', m.from);
  const value = normalized.ok ? normalized.value : /^\d{6,15}$/.test(m.from) ? m.from : null;
  if (!value) return null;
  const media = MEDIA_TYPES.has(m.type) ? m.media : undefined;
  const summary = MEDIA_TYPES.has(m.type)
    ? m.text
      ? `[${m.type}] ${m.text}`
      : `[${m.type}]`
    : (m.text ?? `[${m.type}]`);
  return {
    contact: { value, name: m.name, providerAddress: m.from },
    type: m.type,
    content: { ...(m.text !== null ? { text: m.text } : {}), ...(media ? { media } : {}) },
    summary,
    providerMessageId: m.providerMessageId,
  };
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
