// The console module's public entry: what other modules, the gateway and the wiring may use of it.
export { consoleRoutes } from './console.routes.js';
export { testRoutes } from './test-routes.js';
