// The history module's public entry: a customer's conversations, and who may read which.
export { HistoryRepo, visibleSql, type Viewer } from './history.repo.js';
export { historyRoutes } from './history.routes.js';
export { ConversationSummarySchema, type ConversationSummaryT } from './history.schemas.js';
export { HistoryService } from './history.service.js';
