import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { errorResponses, IdParams } from '../../http/schemas.js';
import { TeamSlaSchema, UpdateTeamSlaBody } from './sla.schemas.js';
import type { TeamSlaService } from './sla.service.js';

/** What these routes use of the services. */
export type TeamSlaRoutesDeps = UserGuardDeps & { teamSla: TeamSlaService };

export function teamSlaRoutes(app: App, services: TeamSlaRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Teams'] };
  app.get(
    '/api/teams/:id/sla',
    {
      onRequest,
      schema: {
        operationId: 'getTeamSla',
        ...common,
        summary: 'Get a team’s SLA targets',
        description:
          'For any user of the account. Targets are minutes of the team’s business hours; null is no target ' +
          '(a team never set has none). Another account’s team → 404.',
        params: IdParams,
        response: { 200: TeamSlaSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.teamSla.get(userOf(request), request.params.id),
  );
  app.put(
    '/api/teams/:id/sla',
    {
      onRequest,
      schema: {
        operationId: 'updateTeamSla',
        ...common,
        summary: 'Set a team’s SLA targets',
        description:
          'Needs `teams:manage` (admins and supervisors). Replaces both targets: the first response (from the ' +
          'customer’s first message of a conversation to a person’s first reply) and the resolution (to its ' +
          'close), in minutes of the team’s business hours; null or absent is no target. Applies to ' +
          'conversations whose clock starts afterwards. Publishes `team.sla` to the account.',
        params: IdParams,
        body: UpdateTeamSlaBody,
        response: { 200: TeamSlaSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.teamSla.update(userOf(request), request.params.id, request.body),
  );
}
