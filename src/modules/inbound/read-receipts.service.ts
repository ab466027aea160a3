import type { Logger } from 'pino';
import type { Tx } from '../../db/index.js';
import type { ReadReceiptJob } from '../../jobs/payloads.js';
import { QUEUES, type JobQueue } from '../../jobs/queue.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import { ProviderError } from '../../providers/types.js';
import { CHANNEL_UNHEALTHY } from '../channels/index.js';
import type { ReadReceiptsRepo } from './read-receipts.repo.js';

/**
 * Read receipts: when an agent reads a chat on a channel that sends them, the provider is told the
 * customer's latest message was read (WhatsApp marks it and every earlier one with blue ticks). The
 * receipt is queued in the reading's own transaction and sent by a job, so reading never waits on
 * the provider; it is queued at most once per message. A refusal is logged and recorded, not
 * retried; a temporary failure is retried a few times by the queue, then given up (a missed receipt
 * only leaves grey ticks).
 */
export class ReadReceiptsService {
  constructor(
    private readonly repo: ReadReceiptsRepo,
    private readonly jobs: JobQueue,
    private readonly providers: ProviderRegistry,
    private readonly logger: Logger,
  ) {}

  /** In the transaction that marks the chat read: queues the receipt of its latest customer message. */
  async chatRead(tx: Tx, chatId: string): Promise<void> {
    const claimed = await this.repo.claimLatest(tx, chatId);
    if (!claimed) return;
    await this.jobs.insertInTransaction<ReadReceiptJob>(tx, QUEUES.readReceipt, [
      { data: { messageId: claimed.message_id } },
    ]);
  }

  /** The job: one receipt to the provider. Throws only what is worth another attempt. */
  async send(messageId: string): Promise<void> {
    const r = await this.repo.toSend(messageId);
    if (!r || r.sent_at !== null) return;
    const log = this.logger.child({ messageId, channelId: r.channel_id });
    if (r.health === 'unhealthy') {
      log.info('read receipt not sent: the channel is unhealthy');
      await this.repo.recordError(messageId, {
        code: CHANNEL_UNHEALTHY,
        message: "The channel's access token was refused by the provider",
      });
      return;
    }
    try {
      await this.providers
        .get(r.provider)
        .markRead({ channelId: r.channel_id, config: r.provider_config }, r.provider_message_id);
    } catch (err) {
      const providerError = err instanceof ProviderError ? err : null;
      const error = providerError
        ? {
            code: providerError.code,
            message: providerError.message,
            ...(providerError.details !== undefined ? { details: providerError.details } : {}),
          }
        : { code: 'internal_error', message: err instanceof Error ? err.message : String(err) };
      await this.repo.recordError(messageId, error);
      if (providerError && !providerError.temporary) {
        log.warn({ code: error.code }, 'read receipt refused by the provider; not retried');
        return;
      }
      log.warn({ code: error.code }, 'read receipt failed; will retry');
      throw err;
    }
    await this.repo.markSent(messageId);
  }
}
