import type { MediaDownloadJob } from '../../jobs/payloads.js';
import { MEDIA_DOWNLOAD_RETRY_LIMIT, QUEUES, type JobWorker } from '../../jobs/queue.js';
import type { MediaDownloader } from './media.service.js';

/** Downloads customers' files; a few at a time, as each streams up to 100 MB through the node. */
export function mediaDownloadWorker(downloader: MediaDownloader): JobWorker<MediaDownloadJob> {
  return {
    queue: QUEUES.mediaDownload,
    options: { concurrency: 2, pollMs: 2000 },
    run: (job) => downloader.process(job.data.messageId, job.retryCount >= MEDIA_DOWNLOAD_RETRY_LIMIT),
    retryLog: {
      level: 'debug',
      message: 'media download will retry',
      fields: (data) => ({ messageId: data.messageId }),
    },
  };
}
