// The health module's public entry: what other modules, the gateway and the wiring may use of it.
export { healthRoutes } from './health.routes.js';
