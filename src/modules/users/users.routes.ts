import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import { UserSchema } from './users.schemas.js';
import { CreateUserBody, UpdateUserBody } from './users.schemas.js';
import { OWN_USER, type UsersService } from './users.service.js';

/** What these routes use of the services. */
export type UsersRoutesDeps = UserGuardDeps & {
  users: UsersService;
};

export function usersRoutes(app: App, services: UsersRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Users'] };
  app.get(
    '/api/users',
    {
      onRequest,
      schema: {
        operationId: 'listAccountUsers',
        ...common,
        summary: 'List users',
        response: { 200: Type.Array(UserSchema), ...errorResponses(401) },
      },
    },
    async (request) => services.users.list(userOf(request)),
  );
  app.post(
    '/api/users',
    {
      onRequest,
      schema: {
        operationId: 'createUser',
        ...common,
        summary: 'Create a user',
        body: CreateUserBody,
        response: { 201: UserSchema, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await services.users.create(userOf(request), request.body)),
  );
  app.get(
    '/api/users/:id',
    {
      onRequest,
      schema: {
        operationId: 'getUser',
        ...common,
        summary: 'Get a user',
        params: IdParams,
        response: { 200: UserSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.users.get(userOf(request), request.params.id),
  );
  app.patch(
    '/api/users/:id',
    {
      onRequest,
      schema: {
        operationId: 'updateUser',
        ...badRequestsWhen([OWN_USER, 'an admin cancels their own user or gives it another role']),
        ...common,
        summary: 'Change a user (name, status, role, password)',
        params: IdParams,
        body: UpdateUserBody,
        response: { 200: UserSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.users.update(userOf(request), request.params.id, request.body),
  );
}
