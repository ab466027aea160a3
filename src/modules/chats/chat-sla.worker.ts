import type { Logger } from 'pino';
import { DueTimerLoop } from '../../jobs/due-timer-loop.js';
import type { ChatSlaService } from './chat-sla.service.js';

/** Breaches raised per kind and transaction; a full batch claims again at once. */
const BATCH = 100;

/**
 * The worker role's SLA breach loop (docs/adr/0088-slas.md): each claim raises the due breaches in one
 * transaction with their events (ChatSlaService.raiseDue), so two nodes never raise one breach twice;
 * besides its poll (`ATENDE_SLA_POLL_MS`), a timer for the earliest due instant it knows of and for
 * each clock started on this node.
 */
export class SlaBreachLoop extends DueTimerLoop {
  constructor(service: ChatSlaService, pollMs: number, logger: Logger) {
    super({
      name: 'SLA breaches',
      pollMs,
      logger,
      claimDue: async () => (await service.raiseDue(BATCH)) >= BATCH,
      nextDue: () => service.nextDue(),
      onScheduled: (fn) => service.onScheduled(fn),
      claimFailed: 'raising SLA breaches failed',
      claimWorksAgain: 'raising SLA breaches works again',
    });
  }
}
