import type { Logger } from 'pino';
import { QUEUES, type JobWorker } from './queue.js';

/** Every minute (counter slots pile up per database session between folds); a missed period only delays the clean-up. */
const PERIOD_SECONDS = 60;

/** One clean-up of the periodic round: what it is called in the logs, and what it does (how many rows it changed). */
export interface HousekeepingTask {
  name: string;
  run(): Promise<number>;
}

/**
 * The periodic clean-ups, one housekeeping job per period for the whole installation (pg-boss
 * throttling; the queue is a singleton), whichever worker node takes it. Each task runs even when an
 * earlier one failed; the job fails (and is retried) if any did.
 */
export function housekeepingWorker(tasks: readonly HousekeepingTask[], logger: Logger): JobWorker<unknown> {
  return {
    queue: QUEUES.housekeeping,
    options: { concurrency: 1, pollMs: 5_000 },
    run: async () => {
      let failed: unknown = null;
      for (const task of tasks) {
        try {
          const changed = await task.run();
          if (changed > 0) logger.info({ task: task.name, changed }, 'housekeeping');
        } catch (err) {
          logger.warn({ err, task: task.name }, 'housekeeping task failed');
          failed ??= err;
        }
      }
      if (failed) throw failed;
    },
    everySeconds: PERIOD_SECONDS,
  };
}
