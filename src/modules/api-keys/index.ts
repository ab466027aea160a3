// The api-keys module's public entry: what other modules, the gateway and the wiring may use of it.
export { ApiKeysRepo } from './api-keys.repo.js';
export { apiKeysRoutes } from './api-keys.routes.js';
export { ACCOUNT_KEY_PREFIX, ApiKeysService } from './api-keys.service.js';
export { keyActiveSql, keyChecked } from './key-check.js';
