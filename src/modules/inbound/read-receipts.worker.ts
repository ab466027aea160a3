import type { ReadReceiptJob } from '../../jobs/payloads.js';
import { QUEUES, type JobWorker } from '../../jobs/queue.js';
import type { ReadReceiptsService } from './read-receipts.service.js';

/** Sends queued read receipts; a temporary failure is retried a few times by the queue's policy. */
export function readReceiptWorker(service: ReadReceiptsService): JobWorker<ReadReceiptJob> {
  return {
    queue: QUEUES.readReceipt,
    options: { concurrency: 2, pollMs: 2000 },
    run: (job) => service.send(job.data.messageId),
    retryLog: {
      level: 'debug',
      message: 'read receipt attempt failed',
      fields: (data) => ({ messageId: data.messageId }),
    },
  };
}
