// The inbound module's public entry: what other modules, the gateway and the wiring may use of it.
export { InboundActions } from './inbound-actions.js';
export { InboundEventsRepo } from './inbound-events.repo.js';
export { InboundService } from './inbound.service.js';
export { MessageStatusRepo } from './message-status.repo.js';
export { MessageStatusService } from './message-status.service.js';
export { whatsappWebhookRoutes } from './provider-webhooks.routes.js';
export { ProviderWebhooksService } from './provider-webhooks.service.js';
export { inboundWebhookWorker } from './provider-webhooks.worker.js';
export { ReadReceiptsRepo } from './read-receipts.repo.js';
export { ReadReceiptsService } from './read-receipts.service.js';
export { readReceiptWorker } from './read-receipts.worker.js';
export { TypingIndicatorsRepo } from './typing-indicator.repo.js';
export { TypingIndicatorService } from './typing-indicator.service.js';
export { typingIndicatorWorker } from './typing-indicator.worker.js';
