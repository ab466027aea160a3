// The sandbox module's public entry: what other modules, the gateway and the wiring may use of it.
export { SandboxRepo } from './sandbox.repo.js';
export { sandboxRoutes } from './sandbox.routes.js';
export { SandboxService } from './sandbox.service.js';
