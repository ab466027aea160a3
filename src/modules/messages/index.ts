// The messages module's public entry: what other modules, the gateway and the wiring may use of it.
export { deliveryOf, DeliverySchema } from './delivery.js';
export { MessageEvents } from './message-events.js';
export { MessagesRepo, type OutboundMessageRow, type StoredMedia } from './messages.repo.js';
export { messagesRoutes } from './messages.routes.js';
export { MESSAGE_UPDATE, MESSAGE_UPSERT } from './messages.schemas.js';
export { MessagesService } from './messages.service.js';
