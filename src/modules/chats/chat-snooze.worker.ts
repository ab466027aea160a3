import type { Logger } from 'pino';
import { DueTimerLoop } from '../../jobs/due-timer-loop.js';
import type { ChatSnoozeService } from './chat-snooze.service.js';

/** Snoozes ended per transaction; a full batch claims again at once. */
const BATCH = 100;

/**
 * The worker role's wake-up of snoozed chats (docs/adr/0078-snooze.md): each claim ends the due
 * snoozes in one transaction with their events (ChatSnoozeService.wakeDue); besides its poll
 * (`ATENDE_SNOOZE_POLL_MS`), a timer for the earliest snooze it knows of and each one made on this node.
 */
export class SnoozeWaker extends DueTimerLoop {
  constructor(service: ChatSnoozeService, pollMs: number, logger: Logger) {
    super({
      name: 'snooze wake-ups',
      pollMs,
      logger,
      claimDue: async () => (await service.wakeDue(BATCH)) === BATCH,
      nextDue: () => service.nextDue(),
      onScheduled: (fn) => service.onScheduled(fn),
      claimFailed: 'waking snoozed chats failed',
      claimWorksAgain: 'waking snoozed chats works again',
    });
  }
}
