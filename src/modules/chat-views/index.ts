// The chat-views module's public entry: users' saved views of the chat list.
export { ChatViewsRepo } from './chat-views.repo.js';
export { chatViewsRoutes } from './chat-views.routes.js';
export { ChatViewsService } from './chat-views.service.js';
