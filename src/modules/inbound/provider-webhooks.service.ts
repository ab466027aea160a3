import type { Logger } from 'pino';
import { Batcher } from '../../db/batcher.js';
import { inTransaction, type Db } from '../../db/index.js';
import type { ProviderName } from '../../db/types.js';
import { badRequest, forbidden, notFound, unauthorized } from '../../http/errors.js';
import { MAX_JSON_DEPTH, nestedDeeperThan, tooDeep } from '../../http/json-scanner.js';
import type { InboundWebhookJob } from '../../jobs/payloads.js';
import { QUEUES, type JobQueue } from '../../jobs/queue.js';
import { isObjectId, newId } from '../../lib/ids.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { ProviderContext, ProviderWebhooks, ReceivedMessage } from '../../providers/types.js';
import type { ChannelRow, ChannelsRepo } from '../channels/index.js';
import { providerPhoneValue } from '../contacts/index.js';
import type { InboundLinks } from './inbound-actions.js';
import type { InboundMessage, InboundService } from './inbound.service.js';
import type { MessageStatusService } from './message-status.service.js';
import type { InboundEventsRepo } from './inbound-events.repo.js';

/**
 * Providers' webhooks: the subscription handshake, and deliveries that are verified, stored and
 * queued at once (a provider retries anything slower or other than 200), then turned into chats,
 * messages and statuses by the `inbound-webhook` job. What a delivery means is the provider's to say
 * (`MessagingProvider.webhooks`); storing it, once, is the platform's.
 */
export class ProviderWebhooksService {
  constructor(
    private readonly db: Db,
    private readonly channels: ChannelsRepo,
    private readonly events: InboundEventsRepo,
    private readonly jobs: JobQueue,
    private readonly inbound: InboundService,
    private readonly statuses: MessageStatusService,
    private readonly providers: ProviderRegistry,
    private readonly logger: Logger,
  ) {
    // Group commit, as the Channel API's sends: few transactions in flight, so that under load each
    // stores many deliveries and their jobs (docs/adr/0102-webhook-intake-group-commit.md).
    this.intake = new Batcher<StoredDelivery, void>({
      run: (rows) => this.store(rows),
      concurrency: 2,
      maxItems: INTAKE_MAX_ITEMS,
      maxWeight: INTAKE_MAX_BYTES,
      weight: (row) => row.body.length,
    });
  }

  private readonly intake: Batcher<StoredDelivery, void>;

  /**
   * Stores deliveries and queues their jobs, in one transaction: one job per delivery, as every
   * version's worker reads them (a rolling upgrade runs old workers on new nodes' jobs), inserted and
   * later claimed together.
   */
  private async store(rows: StoredDelivery[]): Promise<void[]> {
    await inTransaction(this.db, async (tx) => {
      await this.events.insertMany(tx, rows);
      await this.jobs.insertInTransaction<InboundWebhookJob>(
        tx,
        QUEUES.inboundWebhook,
        rows.map((r) => ({ data: { eventId: r.id } })),
      );
    });
    return rows.map(() => undefined);
  }

  /** The header a provider signs its deliveries in. */
  signatureHeader(provider: ProviderName): string {
    return this.webhooksOf(provider).signatureHeader;
  }

  private webhooksOf(provider: ProviderName): ProviderWebhooks {
    const webhooks = this.providers.get(provider).webhooks;
    if (!webhooks) throw notFound();
    return webhooks;
  }

  private async channel(provider: ProviderName, channelId: string): Promise<ChannelRow> {
    const channel = isObjectId(channelId) ? await this.channels.findById(channelId) : undefined;
    if (!channel || channel.provider !== provider) throw notFound();
    return channel;
  }

  /** The GET handshake: the challenge to echo when the verify token matches the channel's. */
  async verify(provider: ProviderName, channelId: string, query: Record<string, unknown>): Promise<string> {
    const channel = await this.channel(provider, channelId);
    const challenge = this.webhooksOf(provider).verifySubscription(contextOf(channel), query);
    if (challenge === null) throw forbidden('Verify token mismatch');
    return challenge;
  }

  /**
   * A delivery: signature checked on the raw bytes, then stored and queued in one transaction, so an
   * answered 200 is never lost and never processed twice by construction of the job. Deliveries
   * arriving together share that transaction (`store`).
   */
  async receive(
    provider: ProviderName,
    channelId: string,
    rawBody: Buffer,
    signature: string | undefined,
  ): Promise<{ eventId: string }> {
    const channel = await this.channel(provider, channelId);
    const webhooks = this.webhooksOf(provider);
    const header = webhooks.signatureHeader;
    if (signature === undefined || signature === '') throw unauthorized(`Missing ${header} header`);
    if (!webhooks.verifySignature(contextOf(channel), rawBody, signature))
      throw unauthorized(`Invalid ${header} signature`);
    const body = storableJson(rawBody);
    // Signed by the channel's secret yet not JSON: a broken sender, not a delivery to retry into the void.
    if (body === null) throw badRequest('Malformed JSON body');
    const eventId = newId();
    await this.intake.submit({
      id: eventId,
      account_id: channel.account_id,
      channel_id: channel.id,
      provider,
      body,
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
    const webhooks = this.providers.get(channel.provider).webhooks;
    if (!webhooks) return;
    const log = this.logger.child({ channelId: channel.id, eventId });
    const parsed = webhooks.parse(contextOf(channel), event.body, event.received_at);
    if (parsed.foreign > 0)
      log.info({ foreign: parsed.foreign }, 'webhook changes for another phone number id; skipped');
    // The provider reports problems of the webhook itself here (no message to store): never silent.
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
          { providerMessageId: m.providerMessageId, unsupported: m.content.unsupported },
          'unsupported inbound message kept',
        );
      await this.inbound.receive(channel, message);
    }
    for (const s of parsed.statuses) await this.statuses.apply(channel.id, s);
    await this.events.markProcessed(event.id);
  }
}

/**
 * Bounds of one intake transaction: deliveries are small (a message or a few statuses), and a batch
 * of large ones (up to the route's body limit each) stays a few megabytes.
 */
const INTAKE_MAX_ITEMS = 50;
const INTAKE_MAX_BYTES = 8 * 1024 * 1024;

type StoredDelivery = Parameters<InboundEventsRepo['insertMany']>[1][number];

function contextOf(channel: ChannelRow): ProviderContext {
  return { channelId: channel.id, config: channel.provider_config };
}

/**
 * A received message as the platform stores it; null when its sender cannot be a contact. A phone
 * address is the customer's full international number, kept as given (`providerPhoneValue`: only a
 * Brazilian mobile without its ninth digit is keyed by its 13-digit form); the address as received
 * stays where replies go.
 */
export function toInbound(m: ReceivedMessage): InboundMessage | null {
  const contact =
    m.sender === null
      ? null
      : m.sender.type === 'user_id'
        ? {
            type: 'user_id' as const,
            value: m.sender.address,
            name: m.sender.name,
            providerAddress: m.sender.address,
          }
        : phoneContact(m.sender.address, m.sender.name);
  if (!contact) return null;
  const links: InboundLinks = {};
  if (m.replyTo) links.replyTo = m.replyTo;
  if (m.action) links.action = m.action;
  if (m.newAddress) {
    const next = providerPhoneValue(m.newAddress);
    if (next) links.numberChange = { value: next, providerAddress: m.newAddress };
  }
  return {
    contact,
    type: m.type,
    content: m.content,
    summary: m.summary,
    providerMessageId: m.providerMessageId,
    sentAt: m.sentAt,
    ...(Object.keys(links).length > 0 ? { links } : {}),
  };
}

function phoneContact(address: string, name: string | null): InboundMessage['contact'] | null {
  const value = providerPhoneValue(address);
  return value ? { value, name, providerAddress: address } : null;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;

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
