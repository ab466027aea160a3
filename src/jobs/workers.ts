import type { Logger } from 'pino';
import type { Services } from '../services.js';
import { registerEventRetention } from '../events/retention.js';
import { registerReadReceiptWorker } from '../modules/inbound/read-receipts.worker.js';
import { registerInboundWebhookWorker } from '../modules/inbound/provider-webhooks.worker.js';
import { registerMediaDownloadWorker } from '../modules/media/media-download.worker.js';
import { SendDispatcher } from './send-dispatcher.js';

/**
 * Registers the job handlers of the worker role. Each capability adds its queue's handler here, so
 * every background behaviour is found from one place. `stop()` ends what the job queue does not stop itself.
 */
export async function registerWorkers(
  services: Services,
  databaseUrl: string,
  logger: Logger,
): Promise<{ stop(): Promise<void> }> {
  await registerInboundWebhookWorker(services.jobs, services.providerWebhooks, logger);
  await registerReadReceiptWorker(services.jobs, services.readReceipts, logger);
  await registerMediaDownloadWorker(services.jobs, services.mediaDownloader, logger);
  await registerEventRetention(services.jobs, services.events, logger);
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
