import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { errorResponses } from '../../http/schemas.js';
import { AuditListQuery, AuditPageSchema } from './audit.schemas.js';
import type { AuditService } from './audit.service.js';

/** What these routes use of the services. */
export type AuditRoutesDeps = UserGuardDeps & { audit: AuditService };

export function auditRoutes(app: App, services: AuditRoutesDeps): void {
  app.get(
    '/api/audit-log',
    {
      onRequest: userGuard(services),
      schema: {
        operationId: 'listAuditLog',
        tags: ['Audit log'],
        summary: "List the account's audit log of admin actions (admins only)",
        description:
          'Newest first, keyset-paginated: pass `nextBefore` as `before` for the next page. Filters combine: ' +
          '`actorId`, `action` (an action or its prefix, e.g. `apikey.`), `targetType`/`targetId`, and the ' +
          'date range `from` (inclusive) to `to` (exclusive). Details never hold a secret. Requires `audit:read`.',
        querystring: AuditListQuery,
        response: { 200: AuditPageSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => services.audit.list(userOf(request), request.query),
  );
}
