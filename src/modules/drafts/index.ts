// The drafts module's public entry: what other modules, the gateway and the wiring may use of it.
export { DraftsRepo } from './drafts.repo.js';
export { draftsRoutes } from './drafts.routes.js';
export { DRAFT_UPDATE } from './drafts.schemas.js';
export { DraftsService } from './drafts.service.js';
