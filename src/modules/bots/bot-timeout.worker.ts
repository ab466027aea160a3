import type { Logger } from 'pino';
import { DueTimerLoop } from '../../jobs/due-timer-loop.js';
import type { BotHoldService } from './bot-hold.service.js';

/** Conversations handed over per transaction; a full batch claims again at once. */
const BATCH = 100;

/**
 * The worker role's safeguard of bots' conversations (docs/adr/0087-bots.md): each claim hands the
 * overdue conversations to their teams in one transaction (BotHoldService.handOverDue), so what a crash
 * interrupts is still due after the restart; besides its poll (`ATENDE_BOT_POLL_MS`), a timer for the
 * earliest due time it knows of.
 */
export class BotTimeoutWorker extends DueTimerLoop {
  constructor(service: BotHoldService, pollMs: number, logger: Logger) {
    super({
      name: 'bot answer deadlines',
      pollMs,
      logger,
      claimDue: async () => (await service.handOverDue(BATCH)) === BATCH,
      nextDue: () => service.nextDue(),
      onScheduled: (fn) => service.onScheduled(fn),
      claimFailed: 'handing over overdue bot conversations failed',
      claimWorksAgain: 'handing over overdue bot conversations works again',
    });
  }
}
