import type { TypingIndicatorJob } from '../../jobs/payloads.js';
import { QUEUES, type JobWorker } from '../../jobs/queue.js';
import type { TypingIndicatorService } from './typing-indicator.service.js';

/** Sends claimed typing indicators, one attempt each. */
export function typingIndicatorWorker(service: TypingIndicatorService): JobWorker<TypingIndicatorJob> {
  return {
    queue: QUEUES.typingIndicator,
    options: { concurrency: 4, pollMs: 2000 },
    run: (job) => service.send(job.data.chatId),
  };
}
