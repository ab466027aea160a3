import type { Logger } from 'pino';
import { ClaimLoop } from '../../jobs/claim-loop.js';
import type { ChatSnoozeService } from './chat-snooze.service.js';

/** Snoozes ended per transaction; a full batch claims again at once. */
const BATCH = 100;
/** How long after a snooze's time its timer fires. */
const SLACK_MS = 25;
/** A due time older than this gets no timer (see `at`). */
const STALE_MS = 1_000;

/**
 * The worker role's wake-up of snoozed chats (docs/adr/0078-snooze.md), on the claim loop: each claim
 * ends the due snoozes in one transaction with their events (ChatSnoozeService.wakeDue), so what a
 * crash interrupts is rolled back and still due after the restart, and two nodes never end one
 * snooze twice. Besides its poll (`ATENDE_SNOOZE_POLL_MS`), the loop sets a timer for the earliest
 * snooze it knows of and for each snooze made on this node, so a wake-up comes at its time.
 */
export class SnoozeWaker {
  private readonly loop: ClaimLoop<never>;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Infinity;
  private stopped = false;

  constructor(
    private readonly service: ChatSnoozeService,
    private readonly pollMs: number,
    logger: Logger,
  ) {
    this.loop = new ClaimLoop<never>({
      name: 'snooze wake-ups',
      concurrency: 1,
      pollMs,
      claim: async () => ({ items: [], more: (await this.service.wakeDue(BATCH)) === BATCH }),
      caughtUp: async () => {
        const next = await this.service.nextDue();
        if (next) this.at(next);
      },
      run: () => [],
      stopWaitMs: 10_000,
      claimFailed: 'waking snoozed chats failed',
      claimWorksAgain: 'waking snoozed chats works again',
      logger,
    });
  }

  async start(): Promise<void> {
    this.service.onScheduled((until) => this.at(until));
    await this.loop.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.service.onScheduled(null);
    clearTimeout(this.timer);
    await this.loop.stop();
  }

  /**
   * Wakes the loop at `when` when that is before its next poll and its current timer. A time already
   * well past is a snooze another transaction holds (or a clock apart from the database's): the poll
   * comes back for it rather than a timer spinning on it.
   */
  private at(when: Date): void {
    const at = when.getTime();
    const late = Date.now() - at;
    if (this.stopped || late > STALE_MS || (this.timer && at >= this.timerAt)) return;
    // A little after the time, so the database's clock has reached it too.
    const delay = Math.max(0, -late) + SLACK_MS;
    if (delay >= this.pollMs) return;
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
