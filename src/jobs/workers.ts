import type { Logger } from 'pino';
import type { Services } from '../services.js';
import { registerEventRetention } from '../events/retention.js';
import { registerInboundWebhookWorker } from '../modules/whatsapp/whatsapp-webhooks.worker.js';

/**
 * Registers the job handlers of the worker role. Each capability adds its queue's handler here, so
 * every background behaviour is found from one place.
 */
export async function registerWorkers(services: Services, logger: Logger): Promise<void> {
  await registerInboundWebhookWorker(services.jobs, services.whatsappWebhooks, logger);
  await services.sendWorker.register(services.jobs);
  await services.webhookDeliverer.register(services.jobs);
  await registerEventRetention(services.jobs, services.events, logger);
}
