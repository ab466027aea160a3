import type { Logger } from 'pino';
import { ClaimLoop } from './claim-loop.js';

/** How long after a due time its timer fires, so the database's clock has reached it too. */
const SLACK_MS = 25;
/** A due time older than this gets no timer (see `at`). */
const STALE_MS = 1_000;

/** What a due-time loop claims, and where it hears of due times. */
export interface DueTimerWork {
  /** Log name of the loop, e.g. `snooze wake-ups`. */
  name: string;
  pollMs: number;
  logger: Logger;
  /** Does one transaction of due work; answers whether a full batch was done (claim again at once). */
  claimDue(): Promise<boolean>;
  /** The earliest due time still to come, once the loop has caught up. */
  nextDue(): Promise<Date | null | undefined>;
  /** Subscribes this process's loop to each due time made on this node (null: unsubscribes). */
  onScheduled(fn: ((due: Date) => void) | null): void;
  claimFailed: string;
  claimWorksAgain: string;
}

/**
 * A worker-role loop of work that falls due at stored times (snooze wake-ups, SLA breaches, bots'
 * answer deadlines), on the claim loop: each claim does the due work in one transaction with its
 * events, so what a crash interrupts is rolled back and still due after the restart, and two nodes
 * never do one item twice. Besides its poll, it sets a timer for the earliest due time it knows of and
 * for each one made on this node, so the work comes at its time.
 */
export class DueTimerLoop {
  private readonly loop: ClaimLoop<never>;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private stopped = false;

  constructor(private readonly work: DueTimerWork) {
    this.loop = new ClaimLoop<never>({
      name: work.name,
      concurrency: 1,
      pollMs: work.pollMs,
      claim: async () => ({ items: [], more: await work.claimDue() }),
      caughtUp: async () => {
        const next = await work.nextDue();
        if (next) this.at(next);
      },
      run: () => [],
      stopWaitMs: 10_000,
      claimFailed: work.claimFailed,
      claimWorksAgain: work.claimWorksAgain,
      logger: work.logger,
    });
  }

  async start(): Promise<void> {
    this.work.onScheduled((due) => this.at(due));
    await this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.work.onScheduled(null);
    clearTimeout(this.timer);
    await this.loop.stop();
  }

  /**
   * Wakes the loop at `when` when that is before its next poll and its current timer. A time already
   * well past is an item another transaction holds (or a clock apart from the database's): the poll
   * comes back for it rather than a timer spinning on it.
   */
  private at(when: Date): void {
    const at = when.getTime();
    const late = Date.now() - at;
    if (this.stopped || late > STALE_MS || (this.timer && at >= this.timerAt)) return;
    const delay = Math.max(0, -late) + SLACK_MS;
    if (delay >= this.work.pollMs) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Infinity;
      this.loop.wake();
    }, delay);
    this.timer.unref();
  }
}
