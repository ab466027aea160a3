import { SpanKind, type Span } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { Tx } from '../../db/index.js';
import type { EventsService } from '../../events/events.service.js';
import type { MessageStatus, ProviderErrorInfo, ProviderMessageStatus } from '../../db/types.js';
import type { InboundProviderStatus } from '../../providers/types.js';
import type { MessageEvents, MessagesRepo } from '../messages/index.js';
import type { MessageStatusRepo } from './message-status.repo.js';
import type { RequestLogsRepo } from '../outbound/index.js';
import { failed, linksTo, Tracing } from '../../lib/tracing.js';

const UNKNOWN_ERROR: ProviderErrorInfo = { code: 'unknown', message: 'Unknown error' };
const RANK: Partial<Record<MessageStatus, number>> = { queued: 0, sent: 1, delivered: 2, read: 3 };

/**
 * The status a message moves to when the provider reports `incoming`, or null to stay. Statuses
 * arrive out of order and more than once, so they only move forward (sent < delivered < read).
 * `failed` ends a message not yet delivered, and is final unless a later `read` proves delivery.
 * Messages the customer sent (`received`) have no delivery status.
 */
export function nextStatus(
  current: MessageStatus,
  incoming: ProviderMessageStatus,
): ProviderMessageStatus | null {
  if (current === incoming || current === 'received') return null;
  if (current === 'failed') return incoming === 'read' ? 'read' : null;
  if (incoming === 'failed') return current === 'queued' || current === 'sent' ? 'failed' : null;
  return (RANK[incoming] ?? -1) > (RANK[current] ?? -1) ? incoming : null;
}

export type StatusOutcome = 'changed' | 'unchanged' | 'unknown_message';

/** Delivery statuses reported by a provider for messages sent on a channel. */
export class MessageStatusService {
  constructor(
    private readonly repo: MessageStatusRepo,
    /** The messages themselves, locked one at a time while a status applies. */
    private readonly messages: Pick<MessagesRepo, 'lockStateByProviderId'>,
    private readonly logger: Logger,
    private readonly events: EventsService,
    private readonly messageEvents: MessageEvents,
    /** The Channel API request log, whose entries follow their messages' delivery. */
    private readonly requests: Pick<RequestLogsRepo, 'followMessage' | 'traceparentOf'>,
    /** A span per status applied, linked to its message's send when traced. */
    private readonly tracing: Tracing = Tracing.off,
  ) {}

  /**
   * Moves a message to `next` (with the provider's reason for a failure), and the send request that
   * produced it along: a failure fails the request, and a later read that proves delivery makes it
   * `sent` again. In the caller's transaction, so the message and its request never disagree.
   */
  private async move(
    tx: Tx,
    message: { id: string; status: MessageStatus; request_id: string | null },
    next: ProviderMessageStatus,
    error: ProviderErrorInfo | null,
  ): Promise<void> {
    await this.repo.setStatus(tx, message.id, next, error);
    if (message.request_id === null) return;
    if (next === 'failed') {
      await this.requests.followMessage(tx, message.request_id, {
        status: 'failed',
        error: error ?? UNKNOWN_ERROR,
      });
    } else if (message.status === 'failed') {
      await this.requests.followMessage(tx, message.request_id, { status: 'sent', error: null });
    }
  }

  /**
   * For the send pipeline, in the transaction that stores a message's provider id: a status webhook
   * can outrun that commit, and was then recorded for a message not known yet. Applies what was
   * recorded, by the same forward-only rule.
   */
  private async catchUp(tx: Tx, channelId: string, providerMessageId: string): Promise<void> {
    const message = await this.messages.lockStateByProviderId(tx, channelId, providerMessageId);
    if (!message) return;
    await this.repo.settleDelivery(tx, message.id, channelId, providerMessageId);
    let status: MessageStatus = message.status;
    let error: ProviderErrorInfo | null = null;
    for (const r of await this.repo.recorded(tx, channelId, providerMessageId)) {
      const next = nextStatus(status, r.status);
      if (!next) continue;
      status = next;
      error = next === 'failed' ? (r.error ?? UNKNOWN_ERROR) : null;
    }
    if (status === message.status) return;
    await this.move(tx, message, status as ProviderMessageStatus, error);
  }

  /** `catchUp` for several sent messages: one look for recorded statuses, then only those that have some. */
  async catchUpMany(
    tx: Tx,
    items: readonly { channelId: string; providerMessageId: string }[],
  ): Promise<void> {
    const recorded = await this.repo.withRecorded(tx, items);
    for (const i of items)
      if (recorded.has(`${i.channelId}\u0000${i.providerMessageId}`))
        await this.catchUp(tx, i.channelId, i.providerMessageId);
  }

  /**
   * Applies one status a provider reported. Traced, it is a span of its own — the webhook was stored
   * and is processed by a job, later and maybe elsewhere — linked to the trace of the Channel API
   * request that sent the message, when that request carried one.
   */
  async apply(channelId: string, s: InboundProviderStatus): Promise<StatusOutcome> {
    if (!this.tracing.enabled) return this.applyStatus(channelId, s, undefined);
    const span = this.tracing.span('provider status', {
      kind: SpanKind.CONSUMER,
      attributes: { 'atende.channel_id': channelId, 'atende.message_status': s.status },
    });
    try {
      const outcome = await this.applyStatus(channelId, s, span);
      span?.setAttribute('atende.status_outcome', outcome);
      return outcome;
    } catch (err) {
      failed(span, err instanceof Error ? err.message : String(err));
      throw err;
    } finally {
      span?.end();
    }
  }

  private async applyStatus(
    channelId: string,
    s: InboundProviderStatus,
    span: Span | undefined,
  ): Promise<StatusOutcome> {
    return this.events.transaction(async (tx, events) => {
      // Kept even for a message not known (yet): the history says what the provider reported.
      await this.repo.record(tx, {
        channel_id: channelId,
        provider_message_id: s.providerMessageId,
        status: s.status,
        error: s.status === 'failed' ? s.error : null,
        details: s.details ?? null,
        occurred_at: s.timestamp,
      });
      const message = await this.messages.lockStateByProviderId(tx, channelId, s.providerMessageId);
      if (!message) {
        this.logger.debug(
          { channelId, providerMessageId: s.providerMessageId, status: s.status },
          'status for a message this channel does not know; ignored',
        );
        return 'unknown_message';
      }
      if (span) {
        span.setAttribute('atende.message_id', message.id);
        if (message.request_id !== null) {
          span.setAttribute('atende.request_id', message.request_id);
          span.addLinks(linksTo(await this.requests.traceparentOf(tx, message.request_id)));
        }
      }
      const next = nextStatus(message.status, s.status);
      if (next) {
        // A failure keeps the provider's reason; a read after a failure proves delivery and clears it.
        const error = next === 'failed' ? (s.error ?? UNKNOWN_ERROR) : null;
        await this.move(tx, message, next, error);
      }
      // Even a status that moves nothing (late, repeated) may bring what the provider charges: kept.
      const detailed =
        s.details !== undefined &&
        (await this.repo.settleDelivery(tx, message.id, channelId, s.providerMessageId));
      if (!next && !detailed) return 'unchanged';
      await this.messageEvents.message(tx, events, 'message.update', message.id);
      return 'changed';
    });
  }
}
