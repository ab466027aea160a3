import type { Logger } from 'pino';
import type { Services } from './services.js';
import { eventRetentionWorker } from './events/retention.js';
import { readReceiptWorker } from './modules/inbound/read-receipts.worker.js';
import { inboundWebhookWorker } from './modules/inbound/provider-webhooks.worker.js';
import { mediaDownloadWorker } from './modules/media/media-download.worker.js';
import { SendDispatcher } from './jobs/send-dispatcher.js';

/**
 * Registers the job handlers of the worker role. Each capability declares its worker (`JobWorker`)
 * and it is registered here, so every background behaviour is found from one place. `stop()` ends
 * what the job queue does not stop itself.
 */
export async function registerWorkers(
  services: Services,
  databaseUrl: string,
  logger: Logger,
): Promise<{ stop(): Promise<void> }> {
  await services.jobs.register(inboundWebhookWorker(services.providerWebhooks));
  await services.jobs.register(readReceiptWorker(services.readReceipts));
  await services.jobs.register(mediaDownloadWorker(services.mediaDownloader));
  await services.jobs.register(eventRetentionWorker(services.events, logger));
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
  return {
    stop: async () => {
      await Promise.all([sends.stop(), services.webhookDeliverer.stop()]);
    },
  };
}
