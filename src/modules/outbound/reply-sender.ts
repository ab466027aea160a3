import type { Logger } from 'pino';
import type { Db } from '../../db/index.js';
import type { ProviderErrorInfo } from '../../db/types.js';
import type { EventsService } from '../../events/events.service.js';
import type { PersistOptions } from '../../lib/persist.js';
import { ProviderError, type PreparedInteractive, type PreparedTemplate } from '../../providers/types.js';
import type { ContactsRepo } from '../contacts/index.js';
import type { StoredMedia, MessageEvents, MessagesRepo, OutboundMessageRow } from '../messages/index.js';
import {
  HOLD_RESULTS,
  holdOutcome,
  judgeFailure,
  recordDeliveredOnSend,
  storedFile,
  type Deliverer,
  type DeliveryResult,
  type OutboundMessage,
} from './deliver.js';
import type { MediaStore, LoadedMediaBlob, MediaBlobsRepo } from '../media/index.js';

/**
 * The background half of an agent's reply: the `agent_message` jobs of the send queue (run by
 * `SendWorker`, so agents' replies and Channel API sends to a contact share one lane, one order).
 * Goes the Channel API's delivery path (deliver.ts): the same provider call, retry policy, file
 * source, held outcome and delivered-on-send step. A retried failure is thrown for the queue to retry
 * with backoff; a final one marks the message `failed` and finishes the job, since an unfinished job
 * holds the lane.
 */
export class ReplySender {
  constructor(
    private readonly db: Db,
    private readonly messages: MessagesRepo,
    private readonly contacts: ContactsRepo,
    private readonly deliverer: Deliverer,
    private readonly logger: Logger,
    private readonly events: EventsService,
    private readonly messageEvents: MessageEvents,
    private readonly mediaStore: MediaStore,
    private readonly mediaBlobs: MediaBlobsRepo,
    /** How a provider's answer is held while the database cannot record it. */
    private readonly hold: Omit<PersistOptions, 'onFailure'> = HOLD_RESULTS,
  ) {}

  async process(messageId: string, lastAttempt: boolean): Promise<void> {
    const m = await this.messages.findOutbound(this.db, messageId);
    // Settled by an earlier delivery of this job, or deleted with its chat: nothing to send again.
    if (!m || m.status !== 'queued') return;
    let result: DeliveryResult;
    try {
      result = await this.deliverer.deliver(
        {
          id: m.channel_id,
          provider: m.provider,
          provider_config: m.provider_config,
          health: m.channel_health,
        },
        m.provider_address ?? m.contact_value,
        outboundOf(m),
        storedFile(
          () => this.file(messageId),
          (mediaId) => this.messages.setProviderMediaId(this.db, messageId, mediaId),
        ),
      );
    } catch (err) {
      const verdict = judgeFailure(err, lastAttempt, 'The message could not be sent');
      if (verdict.retry) {
        this.logger.warn({ err, messageId }, 'agent message attempt failed; will retry');
        throw err;
      }
      this.logger.warn({ err, messageId, code: verdict.error.code }, 'agent message failed');
      await this.settle(m.id, { status: 'failed', error: verdict.error }, null, hasFile(m));
      return;
    }
    await this.settle(
      m.id,
      { status: 'sent', providerMessageId: result.providerMessageId },
      result.recipientAddress ? { contactId: m.contact_id, address: result.recipientAddress } : null,
      hasFile(m),
    );
    if (result.deliveredOnSend) {
      const { events, messages, messageEvents, logger } = this;
      await recordDeliveredOnSend({ events, messages, messageEvents, logger }, [m.id]);
    }
  }

  /**
   * Records the provider's verdict (`holdOutcome`). Settling only a `queued` message makes a retry
   * after a commit that did happen harmless.
   */
  private async settle(
    messageId: string,
    outcome: { status: 'sent'; providerMessageId: string } | { status: 'failed'; error: ProviderErrorInfo },
    address: { contactId: string; address: string } | null,
    /** Whether a file of an earlier version's `media_blobs` may be left to delete. */
    file: boolean,
  ): Promise<void> {
    await holdOutcome(
      () =>
        this.events.transaction(async (tx, events) => {
          if (!(await this.messages.settle(tx, messageId, outcome))) return;
          if (address) await this.contacts.setProviderAddress(tx, address.contactId, address.address);
          if (file) await this.mediaBlobs.delete(tx, messageId);
          await this.messageEvents.message(tx, events, 'message.update', messageId);
        }),
      {
        hold: this.hold,
        logger: this.logger,
        subject: 'agent message',
        ids: { messageId, providerMessageId: outcome.status === 'sent' ? outcome.providerMessageId : null },
        lost: { status: outcome.status },
        leftAs: 'the message stays queued',
      },
    );
  }

  /**
   * The reply's file, in the media store under the message's id (or, for a reply queued by an earlier
   * version, in `media_blobs` until the provider has it).
   */
  private async file(messageId: string): Promise<LoadedMediaBlob | undefined> {
    const file = await this.mediaStore.stat(this.db, messageId);
    if (!file) return this.mediaBlobs.load(messageId);
    return {
      mimetype: file.mimetype,
      filename: file.filename,
      size: file.size,
      chunks: () => this.mediaStore.read(file),
    };
  }
}

/** Whether the reply carries a file: text, a flow's interactive message and a template do not. */
function hasFile(m: OutboundMessageRow): boolean {
  return m.type !== 'text' && m.type !== 'interactive' && m.type !== 'template';
}

/** The stored reply as the provider call takes it (written by `MessagesService.reply`). */
function outboundOf(m: OutboundMessageRow): OutboundMessage {
  const content = m.content;
  if (m.type === 'text' && typeof content.text === 'string') return { type: 'text', text: content.text };
  // A flow's menu or rating question (modules/flows), stored ready to send.
  if (m.type === 'interactive' && typeof content.interactive === 'object' && content.interactive !== null) {
    return { type: 'interactive', interactive: content.interactive as PreparedInteractive };
  }
  // Stored already resolved by prepareMessage (name, language, components' values).
  if (m.type === 'template' && typeof content.template === 'object' && content.template !== null) {
    return { type: 'template', template: content.template as PreparedTemplate };
  }
  const media = content.media as StoredMedia | undefined;
  if (!media || typeof media.mimetype !== 'string') {
    throw new ProviderError(
      'invalid_message',
      `A stored agent message of type ${m.type} cannot be sent`,
      false,
    );
  }
  return { type: 'media', media };
}
