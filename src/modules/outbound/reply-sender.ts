import type { Logger } from 'pino';
import type { Db } from '../../db/index.js';
import type { EventsService } from '../../events/events.service.js';
import { persist, type PersistOptions } from '../../lib/persist.js';
import { ProviderError, type PreparedTemplate } from '../../providers/types.js';
import { channelUnhealthyError } from '../channels/channel-health.service.js';
import type { ContactsRepo } from '../contacts/contacts.repo.js';
import type { StoredMedia } from '../messages/message.js';
import type { Deliverer, DeliveryResult, MediaSource, OutboundMessage } from './deliver.js';
import type { MessageEvents } from '../messages/message-events.js';
import type { MessagesRepo, OutboundMessageRow } from '../messages/messages.repo.js';
import type { MediaStore } from '../media/media-store.js';
import { HOLD_RESULTS } from './send.worker.js';

/**
 * The background half of an agent's reply: the `agent_message` jobs of the send queue (run by
 * `SendWorker`, so agents' replies and Channel API sends to a contact share one lane, one order).
 * Sends through the same `Deliverer` as the Channel API, with the same retry rules: a temporary
 * provider failure is thrown for the queue to retry with backoff; a permanent one, or the last
 * attempt, marks the message `failed` and finishes the job, since an unfinished job holds the lane.
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
    /** How a provider's answer is held while the database cannot record it. */
    private readonly hold: Omit<PersistOptions, 'onFailure'> = HOLD_RESULTS,
  ) {}

  async process(messageId: string, lastAttempt: boolean): Promise<void> {
    const m = await this.messages.findOutbound(this.db, messageId);
    // Settled by an earlier delivery of this job, or deleted with its chat: nothing to send again.
    if (!m || m.status !== 'queued') return;
    let result: DeliveryResult;
    try {
      // Its token was refused: the provider would refuse this too, so it is not called.
      if (m.channel_health === 'unhealthy') throw channelUnhealthyError();
      result = await this.deliverer.deliver(
        { id: m.channel_id, provider: m.provider, provider_config: m.provider_config },
        m.provider_address ?? m.contact_value,
        outboundOf(m),
        this.mediaSource(m.id),
      );
    } catch (err) {
      const providerError = err instanceof ProviderError ? err : null;
      // Anything but a provider's verdict (database trouble, say) is worth another attempt.
      const temporary = providerError ? providerError.temporary : true;
      if (temporary && !lastAttempt) {
        this.logger.warn({ err, messageId }, 'agent message attempt failed; will retry');
        throw err;
      }
      const error = providerError
        ? {
            code: providerError.code,
            message: providerError.message,
            ...(providerError.details !== undefined ? { details: providerError.details } : {}),
          }
        : { code: 'internal_error', message: 'The message could not be sent' };
      this.logger.warn({ err, messageId, code: error.code }, 'agent message failed');
      await this.settle(m.id, { status: 'failed', error }, null);
      return;
    }
    await this.settle(
      m.id,
      { status: 'sent', providerMessageId: result.providerMessageId },
      result.recipientAddress ? { contactId: m.contact_id, address: result.recipientAddress } : null,
    );
    // No receipt will come from such a provider: the step it would have reported, done here. Only a
    // status step: should it fail, the message stays `sent`.
    if (result.deliveredOnSend) {
      await this.events
        .transaction(async (tx, events) => {
          await this.messages.setStatus(tx, m.id, 'delivered');
          await this.messageEvents.message(tx, events, 'message.update', m.id);
        })
        .catch((err: unknown) => this.logger.error({ err, messageId }, 'recording a delivery failed'));
    }
  }

  /**
   * Records the provider's verdict, retrying while the database is out of reach with the answer held
   * here (and the job's lane held by the dispatcher), so that a reply the provider accepted is never
   * sent again. Settling only a `queued` message makes a retry after a commit that did happen harmless.
   * Given up, the job still ends and the loss is logged.
   */
  private async settle(
    messageId: string,
    outcome:
      | { status: 'sent'; providerMessageId: string }
      | { status: 'failed'; error: { code: string; message: string; details?: string } },
    address: { contactId: string; address: string } | null,
  ): Promise<void> {
    const providerMessageId = outcome.status === 'sent' ? outcome.providerMessageId : null;
    let tries = 0;
    const recorded = await persist(
      () => {
        tries++;
        return this.events.transaction(async (tx, events) => {
          if (!(await this.messages.settle(tx, messageId, outcome))) return;
          if (address) await this.contacts.setProviderAddress(tx, address.contactId, address.address);
          await this.messages.deleteMediaBlob(tx, messageId);
          await this.messageEvents.message(tx, events, 'message.update', messageId);
        });
      },
      {
        ...this.hold,
        onFailure: (err, attempt) => {
          if (attempt === 1)
            this.logger.error(
              { err, messageId, providerMessageId },
              'recording an agent message outcome failed; holding it and retrying',
            );
        },
      },
    );
    if (recorded.ok) {
      if (tries > 1)
        this.logger.warn(
          { messageId, providerMessageId, tries },
          'agent message outcome recorded after retrying',
        );
      return;
    }
    this.logger.error(
      {
        err: recorded.err,
        messageId,
        providerMessageId,
        status: outcome.status,
        attempts: recorded.attempts,
      },
      'SEND OUTCOME LOST: the provider answered but the outcome could not be recorded; the message stays queued and is not sent again',
    );
  }

  /**
   * The reply's file, in the media store under the message's id (or, for a reply queued by an earlier
   * version, in `media_blobs` until the provider has it).
   */
  private mediaSource(messageId: string): MediaSource {
    return {
      load: async () => {
        const file = await this.mediaStore.stat(this.db, messageId);
        if (file) {
          const pieces: Buffer[] = [];
          for await (const piece of this.mediaStore.read(file)) pieces.push(piece);
          return {
            bytes: Buffer.concat(pieces, file.size),
            mimetype: file.mimetype,
            ...(file.filename ? { filename: file.filename } : {}),
          };
        }
        const blob = await this.messages.mediaBlob(this.db, messageId);
        if (!blob) throw new ProviderError('media_missing', 'The media file is no longer stored', false);
        return {
          bytes: blob.bytes,
          mimetype: blob.mimetype,
          ...(blob.filename ? { filename: blob.filename } : {}),
        };
      },
      uploaded: (mediaId) => this.messages.setProviderMediaId(this.db, messageId, mediaId),
    };
  }
}

/** The stored reply as the provider call takes it (written by `MessagesService.reply`). */
function outboundOf(m: OutboundMessageRow): OutboundMessage {
  const content = m.content;
  if (m.type === 'text' && typeof content.text === 'string') return { type: 'text', text: content.text };
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
