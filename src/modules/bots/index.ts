// The bots module's public entry: what other modules, the gateway and the wiring may use of it.
export { BotHoldService } from './bot-hold.service.js';
export { BotTimeoutWorker } from './bot-timeout.worker.js';
export { BotsRepo } from './bots.repo.js';
export { botsRoutes } from './bots.routes.js';
export { BOT_UPDATE, BotSchema } from './bots.schemas.js';
export { BOT_SCOPES, BotsService, MAX_BOTS_PER_ACCOUNT } from './bots.service.js';
export { createBotsServices } from './bots.wiring.js';
