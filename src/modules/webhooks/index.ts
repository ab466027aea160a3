// The webhooks module's public entry: what other modules, the gateway and the wiring may use of it.
export { WebhookEgress } from './webhooks.egress.js';
export { WebhooksRepo } from './webhooks.repo.js';
export { WebhookQueueRepo } from './webhook-queue.repo.js';
export { webhooksRoutes } from './webhooks.routes.js';
export { newSecret, WebhooksService } from './webhooks.service.js';
export { WebhookDeliverer } from './webhooks.worker.js';
export type { WebhookRow } from './webhooks.repo.js';
