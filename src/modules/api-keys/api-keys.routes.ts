import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import { ApiKeySchema, CreateApiKeyBody, CreatedApiKeySchema } from './api-keys.schemas.js';
import type { ApiKeysService } from './api-keys.service.js';

/** What these routes use of the services. */
export type ApiKeysRoutesDeps = UserGuardDeps & {
  apiKeys: ApiKeysService;
};

export function apiKeysRoutes(app: App, services: ApiKeysRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['API keys'] };
  app.get(
    '/api/api-keys',
    {
      onRequest,
      schema: {
        operationId: 'listApiKeys',
        ...common,
        summary: 'List account API keys (tokens are never shown again)',
        response: { 200: Type.Array(ApiKeySchema), ...errorResponses(401, 403) },
      },
    },
    async (request) => services.apiKeys.list(userOf(request)),
  );
  app.post(
    '/api/api-keys',
    {
      onRequest,
      schema: {
        operationId: 'createApiKey',
        ...badRequestsWhen([
          'channelIds contains unknown channels: <ids>',
          '`channelIds` names ids that are not channels of the account',
        ]),
        ...common,
        summary: 'Create an account API key',
        description:
          'The token is shown only in this answer; it is stored hashed. `channelIds` null or absent means every channel.',
        body: CreateApiKeyBody,
        response: { 201: CreatedApiKeySchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await services.apiKeys.create(userOf(request), request.body)),
  );
  app.delete(
    '/api/api-keys/:id',
    {
      onRequest,
      schema: {
        operationId: 'revokeApiKey',
        ...common,
        summary: 'Revoke an account API key',
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      await services.apiKeys.revoke(userOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
}
