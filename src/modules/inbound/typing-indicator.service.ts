import type { Logger } from 'pino';
import type { UserActor } from '../../access/actors.js';
import { inTransaction, type Db } from '../../db/index.js';
import type { TypingIndicatorJob } from '../../jobs/payloads.js';
import { QUEUES, type JobQueue } from '../../jobs/queue.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import { ProviderError } from '../../providers/types.js';
import type { TypingIndicatorsRepo } from './typing-indicator.repo.js';

/**
 * WhatsApp shows the customer "typing…" for about 25 seconds after one is sent, or until the reply.
 * While an agent keeps typing, one is sent again after this long, not more often.
 */
export const TYPING_INDICATOR_INTERVAL_SECONDS = 20;

/**
 * The customer sees that an agent is typing: on a channel that sends read receipts, the gateway's
 * typing signal claims the chat's indicator (at most one per chat per interval, whichever node and
 * whichever agent), and a job sends it with the read receipt of the customer's latest message. A
 * failure is recorded and never retried: an indicator that arrives late says something false.
 */
export class TypingIndicatorService {
  constructor(
    private readonly db: Db,
    private readonly repo: TypingIndicatorsRepo,
    private readonly jobs: JobQueue,
    private readonly providers: ProviderRegistry,
    private readonly logger: Logger,
  ) {}

  /** An agent who may see the chat is typing a reply in it; true when an indicator was queued. */
  async agentTyping(actor: UserActor, chatId: string): Promise<boolean> {
    return inTransaction(this.db, async (tx) => {
      if (!(await this.repo.claim(tx, actor.accountId, chatId, TYPING_INDICATOR_INTERVAL_SECONDS)))
        return false;
      await this.jobs.insertInTransaction<TypingIndicatorJob>(tx, QUEUES.typingIndicator, [
        { data: { chatId } },
      ]);
      return true;
    });
  }

  /** The job: one indicator to the provider, unless it has gone stale meanwhile. */
  async send(chatId: string): Promise<void> {
    const t = await this.repo.toSend(chatId, TYPING_INDICATOR_INTERVAL_SECONDS);
    if (!t || t.sent_at !== null || !t.fresh || t.health === 'unhealthy') return;
    try {
      await this.providers
        .get(t.provider)
        .markRead({ channelId: t.channel_id, config: t.provider_config }, t.provider_message_id, {
          typing: true,
        });
    } catch (err) {
      const code = err instanceof ProviderError ? err.code : 'internal_error';
      const message = err instanceof Error ? err.message : String(err);
      this.logger.warn({ chatId, channelId: t.channel_id, code }, 'typing indicator not sent');
      await this.repo.recordError(chatId, { code, message });
      return;
    }
    await this.repo.markSent(t);
  }
}
