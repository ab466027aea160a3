// The notifications module's public entry: what other modules, the gateway and the wiring may use of it.
export { NotificationsRepo } from './notifications.repo.js';
export { notificationsRoutes } from './notifications.routes.js';
export { NOTIFICATION_NEW } from './notifications.schemas.js';
export { NotificationsService } from './notifications.service.js';
export { PreferencesRepo } from './preferences.repo.js';
export { NotificationPreferencesService } from './preferences.service.js';
