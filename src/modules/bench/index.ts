// The bench module's public entry: what other modules, the gateway and the wiring may use of it.
export { benchRoutes } from './bench.routes.js';
