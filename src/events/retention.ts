import type { Logger } from 'pino';
import { QUEUES, type JobWorker } from '../jobs/queue.js';
import type { EventsService } from './events.service.js';

/** Every quarter of an hour; a missed period only delays the clean-up. */
const PERIOD_SECONDS = 15 * 60;

/**
 * The event log keeps `ATENDE_EVENT_RETENTION_DAYS` (7) days for resync. One housekeeping job per
 * period is queued for the whole installation (pg-boss throttling; the queue is a singleton), whichever
 * worker node takes it. Webhook deliveries reference their event and go with it (foreign key cascade),
 * so the delivery log is kept exactly as long as the events it sent.
 */
export function eventRetentionWorker(events: EventsService, logger: Logger): JobWorker<unknown> {
  return {
    queue: QUEUES.housekeeping,
    options: { concurrency: 1, pollMs: 5_000 },
    run: async () => {
      const deleted = await events.purgeExpired();
      if (deleted > 0) logger.info({ deleted }, 'expired events deleted');
    },
    everySeconds: PERIOD_SECONDS,
  };
}
