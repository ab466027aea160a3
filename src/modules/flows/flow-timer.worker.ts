import type { Logger } from 'pino';
import { ClaimLoop } from '../../jobs/claim-loop.js';
import type { FlowsService } from './flows.service.js';

/** A full round (this many waits or idle chats) claims again at once. */
const BATCH = 100;

/**
 * The worker role's timer of built-in flows (docs/adr/0086-built-in-flows.md), on the claim loop: each
 * round (`FlowsService.runDue`) claims what is due — unanswered menus, expired ratings, idle
 * conversations — in one transaction with SKIP LOCKED, so a crash leaves them due for the next round
 * and two nodes never act on the same one. Polls every `ATENDE_FLOW_POLL_MS`.
 */
export class FlowTimer {
  private readonly loop: ClaimLoop<never>;

  constructor(service: FlowsService, pollMs: number, logger: Logger) {
    this.loop = new ClaimLoop<never>({
      name: 'flow timers',
      concurrency: 1,
      pollMs,
      claim: async () => ({ items: [], more: (await service.runDue()) >= BATCH }),
      run: () => [],
      stopWaitMs: 10_000,
      claimFailed: 'flow timers failed',
      claimWorksAgain: 'flow timers work again',
      logger,
    });
  }

  async start(): Promise<void> {
    await this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }
}
