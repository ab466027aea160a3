import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import {
  MyAvailabilitySchema,
  SetAvailabilityBody,
  TeamAssignmentSchema,
  UpdateTeamAssignmentBody,
} from './assignment.schemas.js';
import type { AvailabilityService, TeamAssignmentService } from './assignment.service.js';

/** What these routes use of the services. */
export type AssignmentRoutesDeps = UserGuardDeps & {
  availability: AvailabilityService;
  teamAssignment: TeamAssignmentService;
};

export function assignmentRoutes(app: App, services: AssignmentRoutesDeps): void {
  const onRequest = userGuard(services);
  app.get(
    '/api/me/availability',
    {
      onRequest,
      schema: {
        operationId: 'getMyAvailability',
        tags: ['Users'],
        summary: 'Your availability',
        response: { 200: MyAvailabilitySchema, ...errorResponses(401) },
      },
    },
    async (request) => services.availability.get(userOf(request)),
  );
  app.put(
    '/api/me/availability',
    {
      onRequest,
      schema: {
        operationId: 'setMyAvailability',
        tags: ['Users'],
        summary: 'Set your availability',
        description:
          '`online` receives conversations by automatic assignment; `away` and `offline` receive none. Going ' +
          '`offline` gives back to `Espera` the conversations you have not answered, in teams that say so ' +
          '(`releaseOnOffline`). The platform also sets you `offline` once your last console connection has ' +
          'been gone for a minute, and brings back what you were at your next connection. Publishes ' +
          '`user.availability` to the account when it changes.',
        body: SetAvailabilityBody,
        response: { 200: MyAvailabilitySchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => services.availability.set(userOf(request), request.body.availability),
  );
  app.get(
    '/api/teams/:id/assignment',
    {
      onRequest,
      schema: {
        operationId: 'getTeamAssignment',
        tags: ['Teams'],
        summary: 'Get a team’s automatic assignment',
        description:
          'For any user of the account. A team never configured answers `mode: off`. Another account’s team → 404.',
        params: IdParams,
        response: { 200: TeamAssignmentSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.teamAssignment.get(userOf(request), request.params.id),
  );
  app.put(
    '/api/teams/:id/assignment',
    {
      onRequest,
      schema: {
        operationId: 'updateTeamAssignment',
        ...badRequestsWhen(
          ['maxOpen is required for mode capacity', 'mode `capacity` without `maxOpen`'],
          ['overrides.<i>.userId is not a member of the team', 'an override names a user outside the team'],
          ['overrides.<i>.userId appears more than once', 'two overrides for one agent'],
        ),
        tags: ['Teams'],
        summary: 'Set a team’s automatic assignment',
        description:
          'Needs `teams:manage` (admins and supervisors). Replaces the configuration whole: `mode` (`off`, ' +
          '`round_robin`, `capacity`), `maxOpen` (the most open conversations an agent may have for assignment ' +
          'to give them another; required for `capacity`), per-agent `overrides`, and `releaseOnOffline`. ' +
          'Conversations waiting in the team’s `Espera` are assigned at once when the change allows it. ' +
          'Publishes `team.assignment` to the account.',
        params: IdParams,
        body: UpdateTeamAssignmentBody,
        response: { 200: TeamAssignmentSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.teamAssignment.update(userOf(request), request.params.id, request.body),
  );
}
