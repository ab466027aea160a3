import type { Logger } from 'pino';
import type { InboundWebhookJob } from '../../jobs/payloads.js';
import { QUEUES, type JobQueue } from '../../jobs/queue.js';
import type { ProviderWebhooksService } from './provider-webhooks.service.js';

/** Turns stored webhook deliveries into chats, messages and statuses; a failure is retried with backoff. */
export async function registerInboundWebhookWorker(
  jobs: JobQueue,
  service: ProviderWebhooksService,
  logger: Logger,
): Promise<void> {
  await jobs.work<InboundWebhookJob>(QUEUES.inboundWebhook, { concurrency: 4, pollMs: 2000 }, async (job) => {
    try {
      await service.process(job.data.eventId);
    } catch (err) {
      logger.warn(
        { err, eventId: job.data.eventId, attempt: job.retryCount },
        'inbound webhook failed; will retry',
      );
      throw err;
    }
  });
}
