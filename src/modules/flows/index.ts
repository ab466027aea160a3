// The flows module's public entry: channels' built-in flows (menu, routing, auto-close, CSAT).
export { FlowsRepo } from './flows.repo.js';
export {
  FlowsService,
  FLOW_ATTEMPTS,
  FLOW_CHOSE,
  FLOW_TIMEOUT,
  type PendingRating,
} from './flows.service.js';
export { FlowSettingsService } from './flow-settings.service.js';
export { FlowTimer } from './flow-timer.worker.js';
export { flowsRoutes } from './flows.routes.js';
export { CHANNEL_FLOW, CHAT_CSAT, type FlowSettings } from './flows.schemas.js';
export { createFlowsServices } from './flows.wiring.js';
