// The audit module's public entry: what other modules, the gateway and the wiring may use of it.
export { AuditRepo } from './audit.repo.js';
export { auditRoutes } from './audit.routes.js';
export { type AuditAction, AuditService, changedFields, urlHost } from './audit.service.js';
