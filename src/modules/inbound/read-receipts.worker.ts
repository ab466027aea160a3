import type { Logger } from 'pino';
import type { ReadReceiptJob } from '../../jobs/payloads.js';
import { QUEUES, type JobQueue } from '../../jobs/queue.js';
import type { ReadReceiptsService } from './read-receipts.service.js';

/** Sends queued read receipts; a temporary failure is retried a few times by the queue's policy. */
export async function registerReadReceiptWorker(
  jobs: JobQueue,
  service: ReadReceiptsService,
  logger: Logger,
): Promise<void> {
  await jobs.work<ReadReceiptJob>(QUEUES.readReceipt, { concurrency: 2, pollMs: 2000 }, async (job) => {
    try {
      await service.send(job.data.messageId);
    } catch (err) {
      logger.debug(
        { err, messageId: job.data.messageId, attempt: job.retryCount },
        'read receipt attempt failed',
      );
      throw err;
    }
  });
}
