import type { Logger } from 'pino';
import type { MediaDownloadJob } from '../../jobs/payloads.js';
import { MEDIA_DOWNLOAD_RETRY_LIMIT, QUEUES, type JobQueue } from '../../jobs/queue.js';
import type { MediaDownloader } from './media.service.js';

/** Downloads customers' files; a few at a time, as each streams up to 100 MB through the node. */
export async function registerMediaDownloadWorker(
  jobs: JobQueue,
  downloader: MediaDownloader,
  logger: Logger,
): Promise<void> {
  await jobs.work<MediaDownloadJob>(QUEUES.mediaDownload, { concurrency: 2, pollMs: 2000 }, async (job) => {
    try {
      await downloader.process(job.data.messageId, job.retryCount >= MEDIA_DOWNLOAD_RETRY_LIMIT);
    } catch (err) {
      logger.debug(
        { err, messageId: job.data.messageId, attempt: job.retryCount },
        'media download will retry',
      );
      throw err;
    }
  });
}
