import type { Logger } from 'pino';
import { QUEUES, type JobQueue } from '../jobs/queue.js';
import type { EventsService } from './events.service.js';

/** Every quarter of an hour; a missed tick only delays the clean-up. */
const CRON = '*/15 * * * *';

/**
 * The event log keeps `ATENDE_EVENT_RETENTION_DAYS` (7) days for resync. A pg-boss schedule queues
 * one housekeeping job per tick for the whole installation (the queue is a singleton), whichever
 * worker node takes it. Webhook deliveries reference their event and go with it (foreign key cascade),
 * so the delivery log is kept exactly as long as the events it sent.
 */
export async function registerEventRetention(jobs: JobQueue, events: EventsService, logger: Logger) {
  await jobs.boss.schedule(QUEUES.housekeeping, CRON, {}, { tz: 'UTC' });
  await jobs.boss.work(QUEUES.housekeeping, async () => {
    const deleted = await events.purgeExpired();
    if (deleted > 0) logger.info({ deleted }, 'expired events deleted');
  });
}
