import type { Logger } from 'pino';
import type { Services } from './services.js';
import { housekeepingWorker } from './jobs/housekeeping.js';
import { readReceiptWorker, inboundWebhookWorker, typingIndicatorWorker } from './modules/inbound/index.js';
import { mediaDownloadWorker } from './modules/media/index.js';
import { contactErasureWorker } from './modules/privacy/index.js';
import { SendDispatcher } from './jobs/send-dispatcher.js';

/**
 * Starts the worker role: every background loop of the node, so every background behaviour is found
 * from one place. Each runs on the one claim loop (`jobs/claim-loop.ts`): the job queue's worker of
 * each pg-boss queue (each capability declares its `JobWorker`), the send queue's dispatcher and the
 * webhook deliverer. `stop()` stops them all at once (each waits, bounded, for its work in flight),
 * before anything they use — the doorbell, the job queue, the pool — is closed.
 */
export async function registerWorkers(
  services: Services,
  databaseUrl: string,
  logger: Logger,
): Promise<{ stop(): Promise<void> }> {
  await services.jobs.register(inboundWebhookWorker(services.providerWebhooks));
  await services.jobs.register(readReceiptWorker(services.readReceipts));
  await services.jobs.register(typingIndicatorWorker(services.typingIndicator));
  await services.jobs.register(mediaDownloadWorker(services.mediaDownloader));
  await services.jobs.register(contactErasureWorker(services.erasures));
  await services.jobs.register(
    housekeepingWorker(
      [
        // The event log keeps ATENDE_EVENT_RETENTION_DAYS (7) days for resync. Webhook deliveries
        // reference their event and go with it (foreign key cascade), so the delivery log is kept
        // exactly as long as the events it sent.
        { name: 'expired events deleted', run: () => services.events.purgeExpired() },
        // List totals' slots opened by concurrent changes, folded back into one row per combination.
        { name: 'list total slots folded', run: () => services.chats.foldCounts() },
        // Accounts' retention: messages (or their files) older than the account keeps, in batches.
        { name: 'messages past retention deleted', run: () => services.retention.enforce() },
        // Built-in roles an older node created during a rolling upgrade, given this release's permissions.
        { name: 'built-in permissions granted', run: () => services.accounts.grantBuiltInPermissions() },
      ],
      logger,
    ),
  );
  // Outbound messages run on the send queue (FIFO per contact), not on pg-boss.
  const sends = new SendDispatcher({
    queue: services.sendQueue,
    handle: (jobs) => services.sendWorker.handleBatch(jobs),
    databaseUrl,
    logger,
  });
  await sends.start();
  // Outgoing webhooks run on their own table (webhook_deliveries), not on pg-boss.
  await services.webhookDeliverer.start({ databaseUrl });
  // Snoozed chats come back at their time: a claim loop on `chats` itself, not on pg-boss.
  await services.snoozeWaker.start();
  // Bots' overdue answers hand their conversations to the channel's team: a claim loop on `chats`.
  await services.botTimeouts.start();
  // SLA breaches are raised at their time: a claim loop on `chats` too.
  await services.slaBreaches.start();
  // Waiting chats given to online agents, and users gone from the gateway set offline.
  const assigner = services.assignmentWorker(databaseUrl);
  await assigner.start();
  await services.availabilitySweeper.start();
  // Flows' timers (menu timeouts, rating windows, auto-close): a claim loop on `chat_flows` and `chats`.
  await services.flowTimer.start();
  // Reports' rollups follow the event log from their cursor (one node at a time, under a lock).
  const rollups = services.rollupWorker(databaseUrl);
  await rollups.start();
  return {
    stop: async () => {
      await Promise.all([
        assigner.stop(),
        services.availabilitySweeper.stop(),
        sends.stop(),
        services.webhookDeliverer.stop(),
        services.jobs.stopWorkers(),
        services.snoozeWaker.stop(),
        services.botTimeouts.stop(),
        services.slaBreaches.stop(),
        services.flowTimer.stop(),
        rollups.stop(),
      ]);
    },
  };
}
