import type { Logger } from 'pino';
import type { Doorbell } from '../../db/doorbell.js';
import { EVENTS_CHANNEL } from '../../events/events.repo.js';
import { ClaimLoop, committedChanges } from '../../jobs/claim-loop.js';
import type { RollupService } from './rollup.service.js';

/** Least time between two housekeeping rounds. */
const FORGET_EVERY_MS = 3_600_000;

/**
 * The worker role's consumer of the event log for reports, on the claim loop: woken by every
 * committed change (the doorbell here, NOTIFY from other nodes), with a poll as backstop; a full batch
 * claims again at once, so a backlog (a restart, an outage) is caught up at full speed. Several nodes
 * may run it: each batch takes the consumer's lock, and a node that finds it taken skips its turn.
 */
export class RollupWorker {
  private readonly loop: ClaimLoop<never>;
  private lastForget = 0;

  constructor(
    service: RollupService,
    doorbell: Doorbell,
    databaseUrl: string,
    pollMs: number,
    logger: Logger,
  ) {
    this.loop = new ClaimLoop<never>({
      name: 'report rollups',
      concurrency: 1,
      pollMs,
      // Every commit rings (twice on its own node): a burst is one batch per 25 ms, not two per commit.
      gatherMs: 25,
      wakeUps: committedChanges({
        doorbell,
        channel: EVENTS_CHANNEL,
        databaseUrl,
        logger,
        name: 'report rollups',
      }),
      claim: async () => ({ items: [], more: (await service.step()).more }),
      caughtUp: async () => {
        if (Date.now() - this.lastForget < FORGET_EVERY_MS) return;
        this.lastForget = Date.now();
        await service.forget();
      },
      run: () => [],
      stopWaitMs: 10_000,
      claimFailed: 'applying events failed',
      claimWorksAgain: 'applying events works again',
      logger,
    });
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
