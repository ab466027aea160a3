// The activity module's public entry: what the wiring may use of it.
export { ActivityRepo } from './activity.repo.js';
export { activityRoutes } from './activity.routes.js';
export { ActivityService } from './activity.service.js';
