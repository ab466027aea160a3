// The channel-api module's public entry: what other modules, the gateway and the wiring may use of it.
export { channelApiRoutes } from './channel-api.routes.js';
export { keyConfirmation } from './guards.js';
export { sendRoutes } from './send.routes.js';
