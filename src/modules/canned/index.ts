// The canned responses module's public entry: what other modules, the gateway and the wiring may use of it.
export { type CustomerAttributes, NO_CUSTOMER_ATTRIBUTES } from './canned.attributes.js';
export { CannedRepo } from './canned.repo.js';
export { cannedRoutes } from './canned.routes.js';
export { CannedService } from './canned.service.js';
