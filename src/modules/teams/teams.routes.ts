import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import { TeamSchema } from './teams.schemas.js';
import { CreateTeamBody, UpdateTeamBody } from './teams.schemas.js';
import type { TeamsService } from './teams.service.js';

/** What these routes use of the services. */
export type TeamsRoutesDeps = UserGuardDeps & {
  teams: TeamsService;
};

export function teamsRoutes(app: App, services: TeamsRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Teams'] };
  app.get(
    '/api/teams',
    {
      onRequest,
      schema: {
        operationId: 'listAccountTeams',
        ...common,
        summary: 'List teams',
        response: { 200: Type.Array(TeamSchema), ...errorResponses(401) },
      },
    },
    async (request) => services.teams.list(userOf(request)),
  );
  app.post(
    '/api/teams',
    {
      onRequest,
      schema: {
        operationId: 'createTeam',
        ...badRequestsWhen([
          'members contains unknown users: <ids>',
          '`members` names ids that are not users of the account',
        ]),
        ...common,
        summary: 'Create a team',
        body: CreateTeamBody,
        response: { 201: TeamSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await services.teams.create(userOf(request), request.body)),
  );
  app.get(
    '/api/teams/:id',
    {
      onRequest,
      schema: {
        operationId: 'getTeam',
        ...common,
        summary: 'Get a team',
        params: IdParams,
        response: { 200: TeamSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.teams.get(userOf(request), request.params.id),
  );
  app.patch(
    '/api/teams/:id',
    {
      onRequest,
      schema: {
        operationId: 'updateTeam',
        ...badRequestsWhen([
          'members contains unknown users: <ids>',
          '`members` names ids that are not users of the account',
        ]),
        ...common,
        summary: 'Change a team (name, description, status, members)',
        params: IdParams,
        body: UpdateTeamBody,
        response: { 200: TeamSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.teams.update(userOf(request), request.params.id, request.body),
  );
}
