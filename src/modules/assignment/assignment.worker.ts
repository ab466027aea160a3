import type { Logger } from 'pino';
import type { Doorbell } from '../../db/doorbell.js';
import { EVENTS_CHANNEL } from '../../events/events.repo.js';
import { ClaimLoop, committedChanges } from '../../jobs/claim-loop.js';
import type { AssignmentService, AvailabilityService } from './assignment.service.js';

/**
 * The worker role's automatic assignment (docs/adr/0085-availability-and-auto-assignment.md), on the
 * claim loop. Whatever path puts a chat in a team's `Espera` without attendant — a new conversation, a
 * transfer by an agent, the API or in bulk, a reopen, an agent going offline, a flow or a bot handing
 * over — commits an event, and every committed event rings the event log's doorbell (here at once,
 * on other nodes by NOTIFY): rings within 25 ms are one round of `assignWaiting`, rings during a
 * round fold into one more. So are the changes that free capacity (a close, a transfer away, an agent coming online,
 * a higher maximum). The poll is the backstop for a lost ring. Nodes exclude each other per account
 * with the assignment lock, so a chat is never given twice.
 */
export class AssignmentWorker {
  private readonly loop: ClaimLoop<never>;

  constructor(
    service: AssignmentService,
    doorbell: Doorbell,
    databaseUrl: string,
    pollMs: number,
    logger: Logger,
  ) {
    this.loop = new ClaimLoop<never>({
      name: 'auto-assignment',
      concurrency: 1,
      pollMs,
      // Every commit rings: a burst of new conversations is one round per 25 ms, not two per commit.
      gatherMs: 25,
      wakeUps: committedChanges({
        doorbell,
        channel: EVENTS_CHANNEL,
        databaseUrl,
        logger,
        name: 'auto-assignment',
      }),
      claim: async () => ({ items: [], more: (await service.assignWaiting()).more }),
      run: () => [],
      stopWaitMs: 10_000,
      claimFailed: 'assigning waiting chats failed',
      claimWorksAgain: 'assigning waiting chats works again',
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

/**
 * The worker role's availability sweep: every `pollMs`, users whose last gateway connection has been
 * gone for the grace period on every node (or whose node died) become offline.
 */
export class AvailabilitySweeper {
  private readonly loop: ClaimLoop<never>;
  private lastPurge = 0;

  constructor(service: AvailabilityService, pollMs: number, logger: Logger) {
    this.loop = new ClaimLoop<never>({
      name: 'availability sweep',
      concurrency: 1,
      pollMs,
      claim: async () => ({ items: [], more: (await service.sweep(100)) === 100 }),
      caughtUp: async () => {
        if (Date.now() - this.lastPurge < 3_600_000) return;
        this.lastPurge = Date.now();
        await service.purge();
      },
      run: () => [],
      stopWaitMs: 10_000,
      claimFailed: 'setting gone users offline failed',
      claimWorksAgain: 'setting gone users offline works again',
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
