import type { Logger } from 'pino';
import type { Db } from '../../db/index.js';
import type { EventsService } from '../../events/events.service.js';
import { ProviderError } from '../../providers/types.js';
import type { ContactsRepo } from '../contacts/contacts.repo.js';
import type { AgentMessagesRepo, OutboundMessageRow } from './agent-messages.repo.js';
import type { StoredMedia } from './agent-messages.service.js';
import type { Deliverer, MediaSource, OutboundMessage } from './deliver.js';
import type { MessageEvents } from './message-events.js';
import type { MessagesRepo } from './messages.repo.js';

/**
 * The background half of an agent's reply: the `agent_message` jobs of the send queue (run by
 * `SendWorker`, so agents' replies and Channel API sends to a contact share one lane, one order).
 * Sends through the same `Deliverer` as the Channel API, with the same retry rules: a temporary
 * provider failure is thrown for the queue to retry with backoff; a permanent one, or the last
 * attempt, marks the message `failed` and finishes the job, since an unfinished job holds the lane.
 */
export class AgentMessageSender {
  constructor(
    private readonly db: Db,
    private readonly repo: AgentMessagesRepo,
    private readonly messages: MessagesRepo,
    private readonly contacts: ContactsRepo,
    private readonly deliverer: Deliverer,
    private readonly logger: Logger,
    private readonly events: EventsService,
    private readonly messageEvents: MessageEvents,
  ) {}

  async process(messageId: string, lastAttempt: boolean): Promise<void> {
    const m = await this.repo.findOutbound(this.db, messageId);
    // Settled by an earlier delivery of this job, or deleted with its chat: nothing to send again.
    if (!m || m.status !== 'queued') return;
    try {
      const result = await this.deliverer.deliver(
        { id: m.channel_id, provider: m.provider, provider_config: m.provider_config },
        m.provider_address ?? m.contact_value,
        outboundOf(m),
        this.mediaSource(m.id),
      );
      await this.events.transaction(async (tx, events) => {
        await this.repo.settle(tx, m.id, { status: 'sent', providerMessageId: result.providerMessageId });
        if (result.recipientAddress)
          await this.contacts.setProviderAddress(tx, m.contact_id, result.recipientAddress);
        await this.repo.deleteMediaBlob(tx, m.id);
        await this.messageEvents.message(tx, events, 'message.update', m.id);
      });
      // No receipt will come from such a provider: the step it would have reported, done here.
      if (result.deliveredOnSend) {
        await this.events.transaction(async (tx, events) => {
          await this.messages.setStatus(tx, m.id, 'delivered');
          await this.messageEvents.message(tx, events, 'message.update', m.id);
        });
      }
    } catch (err) {
      const providerError = err instanceof ProviderError ? err : null;
      // Anything but a provider's verdict (database trouble, say) is worth another attempt.
      const temporary = providerError ? providerError.temporary : true;
      if (temporary && !lastAttempt) {
        this.logger.warn({ err, messageId }, 'agent message attempt failed; will retry');
        throw err;
      }
      const error = providerError
        ? { code: providerError.code, message: providerError.message }
        : { code: 'internal_error', message: 'The message could not be sent' };
      this.logger.warn({ err, messageId, code: error.code }, 'agent message failed');
      await this.events.transaction(async (tx, events) => {
        await this.repo.settle(tx, m.id, { status: 'failed', error });
        await this.repo.deleteMediaBlob(tx, m.id);
        await this.messageEvents.message(tx, events, 'message.update', m.id);
      });
    }
  }

  /** The reply's file, stored under the message's id until the provider has it. */
  private mediaSource(messageId: string): MediaSource {
    return {
      load: async () => {
        const blob = await this.repo.mediaBlob(this.db, messageId);
        if (!blob) throw new ProviderError('media_missing', 'The media file is no longer stored', false);
        return {
          bytes: blob.bytes,
          mimetype: blob.mimetype,
          ...(blob.filename ? { filename: blob.filename } : {}),
        };
      },
      uploaded: (mediaId) => this.repo.setProviderMediaId(this.db, messageId, mediaId),
    };
  }
}

/** The stored reply as the provider call takes it (written by `AgentMessagesService.reply`). */
function outboundOf(m: OutboundMessageRow): OutboundMessage {
  const content = m.content;
  if (m.type === 'text' && typeof content.text === 'string') return { type: 'text', text: content.text };
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
