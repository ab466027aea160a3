// The auth module's public entry: what other modules, the gateway and the wiring may use of it.
export { authRoutes } from './auth.routes.js';
export { AuthService, sessionValid, toActor } from './auth.service.js';
export { LoginRateLimiter } from './login-rate-limit.js';
