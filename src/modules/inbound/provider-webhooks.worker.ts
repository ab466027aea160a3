import type { InboundWebhookJob } from '../../jobs/payloads.js';
import { QUEUES, type JobWorker } from '../../jobs/queue.js';
import type { ProviderWebhooksService } from './provider-webhooks.service.js';

/** Turns stored webhook deliveries into chats, messages and statuses; a failure is retried with backoff. */
export function inboundWebhookWorker(service: ProviderWebhooksService): JobWorker<InboundWebhookJob> {
  return {
    queue: QUEUES.inboundWebhook,
    options: { concurrency: 16, pollMs: 2000 },
    run: (job) => service.process(job.data.eventId),
    retryLog: {
      level: 'warn',
      message: 'inbound webhook failed; will retry',
      fields: (data) => ({ eventId: data.eventId }),
    },
  };
}
