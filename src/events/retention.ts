import type { Logger } from 'pino';
import { QUEUES, type JobQueue } from '../jobs/queue.js';
import type { EventsService } from './events.service.js';

/** Every quarter of an hour; a missed period only delays the clean-up. */
const PERIOD_SECONDS = 15 * 60;

/**
 * The event log keeps `ATENDE_EVENT_RETENTION_DAYS` (7) days for resync. One housekeeping job per
 * period is queued for the whole installation (pg-boss throttling; the queue is a singleton), whichever
 * worker node takes it. Webhook deliveries reference their event and go with it (foreign key cascade),
 * so the delivery log is kept exactly as long as the events it sent.
 */
export async function registerEventRetention(jobs: JobQueue, events: EventsService, logger: Logger) {
  await jobs.work(QUEUES.housekeeping, { concurrency: 1, pollMs: 5_000 }, async () => {
    const deleted = await events.purgeExpired();
    if (deleted > 0) logger.info({ deleted }, 'expired events deleted');
  });
  jobs.every(QUEUES.housekeeping, PERIOD_SECONDS);
}
