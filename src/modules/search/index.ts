// The search module's public entry: the search box's routes and service.
export { SearchRepo } from './search.repo.js';
export { searchRoutes } from './search.routes.js';
export { SearchService } from './search.service.js';
