import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import { TEAM_NOT_FOUND } from '../teams/index.js';
import {
  ChannelApiKeyResponse,
  ChannelSchema,
  ChannelTemplatesSchema,
  CreateChannelBody,
  UpdateChannelBody,
} from './channels.schemas.js';
import type { ChannelsService } from './channels.service.js';
import type { TemplatesService } from './templates.service.js';

/** What these routes use of the services. */
export type ChannelsRoutesDeps = UserGuardDeps & {
  channels: ChannelsService;
  templates: TemplatesService;
};

export function channelsRoutes(app: App, services: ChannelsRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Channels'] };
  app.get(
    '/api/channels',
    {
      onRequest,
      schema: {
        operationId: 'listChannels',
        ...common,
        summary: 'List channels',
        response: { 200: Type.Array(ChannelSchema), ...errorResponses(401) },
      },
    },
    async (request) => services.channels.list(userOf(request)),
  );
  app.post(
    '/api/channels',
    {
      onRequest,
      schema: {
        operationId: 'createChannel',
        ...badRequestsWhen([TEAM_NOT_FOUND, '`defaultTeamId` is not an active team of the account']),
        ...common,
        summary: 'Create a channel',
        body: CreateChannelBody,
        response: { 201: ChannelSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await services.channels.create(userOf(request), request.body)),
  );
  app.get(
    '/api/channels/:id',
    {
      onRequest,
      schema: {
        operationId: 'getChannel',
        ...common,
        summary: 'Get a channel',
        params: IdParams,
        response: { 200: ChannelSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.channels.get(userOf(request), request.params.id),
  );
  app.patch(
    '/api/channels/:id',
    {
      onRequest,
      schema: {
        operationId: 'updateChannel',
        ...badRequestsWhen(
          [TEAM_NOT_FOUND, '`defaultTeamId` is not an active team of the account'],
          [
            'property providerConfig.<field> should not exist',
            'the channel is (or becomes) a sandbox channel, which takes no settings',
          ],
          [
            'providerConfig.<field> should not be empty',
            'a WhatsApp channel would lack phoneNumberId, accessToken, appSecret or verifyToken once the change is merged with its stored settings (a new provider starts from none)',
          ],
        ),
        ...common,
        summary: 'Change a channel',
        params: IdParams,
        body: UpdateChannelBody,
        response: { 200: ChannelSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.channels.update(userOf(request), request.params.id, request.body),
  );
  app.post(
    '/api/channels/:id/api-key',
    {
      onRequest,
      schema: {
        operationId: 'generateChannelApiKey',
        ...common,
        summary: 'Generate the channel API key',
        description: 'The key is shown only in this answer; the previous key stops working at once.',
        params: IdParams,
        response: { 201: ChannelApiKeyResponse, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await services.channels.rotateApiKey(userOf(request), request.params.id)),
  );
  app.get(
    '/api/channels/:id/templates',
    {
      onRequest,
      schema: {
        ...common,
        operationId: 'listChannelTemplates',
        summary: "The channel's approved message templates",
        description:
          'For users who may see chats of the channel (others → 404). A WhatsApp channel with `businessAccountId` ' +
          "lists its business account's APPROVED templates (kept for a minute); otherwise `available` is false and " +
          'the template is typed by hand. The provider failing or refusing → 502 with its reason.',
        params: IdParams,
        response: { 200: ChannelTemplatesSchema, ...errorResponses(400, 401, 404, 502) },
      },
    },
    async (request) => services.templates.list(userOf(request), request.params.id),
  );
}
