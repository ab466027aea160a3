import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import { ChannelSchema } from '../channels/index.js';
import {
  BotSchema,
  CreateBotBody,
  CreatedBotSchema,
  UpdateBotBody,
  UpdateChannelBotBody,
  UpdatedBotSchema,
} from './bots.schemas.js';
import type { BotsService } from './bots.service.js';

/** What these routes use of the services. */
export type BotsRoutesDeps = UserGuardDeps & { bots: BotsService };

const URL_CASES: [string, string][] = [
  ['url must be an absolute http or https URL', 'the URL does not parse or is not http(s)'],
  ['url must not contain a user name or password', 'the URL has credentials'],
  ['url must point to a public address: <reason>', 'the host is (or resolves to) a non-public address'],
  ['name must not be blank', 'the name is only spaces'],
];

export function botsRoutes(app: App, services: BotsRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Bots'] };
  const manage = 'Admins (`api_keys:manage` and `webhooks:manage`).';
  app.get(
    '/api/bots',
    {
      onRequest,
      schema: {
        operationId: 'listBots',
        ...common,
        summary: 'List the account’s bots',
        description: 'For any user of the account (the console names the bot holding a conversation).',
        response: { 200: Type.Array(BotSchema), ...errorResponses(401) },
      },
    },
    async (request) => services.bots.list(userOf(request)),
  );
  app.post(
    '/api/bots',
    {
      onRequest,
      schema: {
        operationId: 'createBot',
        ...badRequestsWhen(...URL_CASES),
        ...common,
        summary: 'Create a bot',
        description:
          `${manage} Creates the bot with an account API key (scopes chats:read, chats:write, chats:transfer, users:read, teams:read) ` +
          'and a webhook endpoint that receives the events of the conversations the bot holds, signed. The key ' +
          '(`apiKey`) and the signing secret (`secret`) are shown only in this answer. 409: a bot of that name exists, ' +
          'or the account has 20 bots.',
        body: CreateBotBody,
        response: { 201: CreatedBotSchema, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await services.bots.create(userOf(request), request.body)),
  );
  app.get(
    '/api/bots/:id',
    {
      onRequest,
      schema: {
        operationId: 'getBot',
        ...common,
        summary: 'Get a bot',
        description: 'For any user of the account; another account’s bot → 404.',
        params: IdParams,
        response: { 200: BotSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.bots.get(userOf(request), request.params.id),
  );
  app.patch(
    '/api/bots/:id',
    {
      onRequest,
      schema: {
        operationId: 'updateBot',
        ...badRequestsWhen(...URL_CASES),
        ...common,
        summary: 'Change a bot',
        description: `${manage} Name, endpoint URL, reply deadline, pause (\`enabled\`), a new signing secret (\`rotateSecret\`, shown in this answer only).`,
        params: IdParams,
        body: UpdateBotBody,
        response: { 200: UpdatedBotSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => services.bots.update(userOf(request), request.params.id, request.body),
  );
  app.delete(
    '/api/bots/:id',
    {
      onRequest,
      schema: {
        operationId: 'deleteBot',
        ...common,
        summary: 'Delete a bot',
        description:
          `${manage} Its key is revoked and its endpoint removed; channels that routed to it route to no bot; the ` +
          'conversations it held go to their channels’ teams (`Espera`). Messages it wrote keep its id.',
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await services.bots.delete(userOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
  app.put(
    '/api/channels/:id/bot',
    {
      onRequest,
      schema: {
        operationId: 'updateChannelBot',
        ...badRequestsWhen(
          ['botId is not a bot of the account', 'the bot does not exist, is deleted or is another account’s'],
          ['hours.timeZone <zone> is not a known IANA time zone', 'as business hours'],
          ['hours.weekly.<d>.<i> must start before it ends', 'as business hours'],
          ['hours.weekly.<d>.<i> and hours.weekly.<d>.<j> overlap', 'as business hours'],
          ['hours.holidays.<i> <date> is not a date YYYY-MM-DD', 'as business hours'],
        ),
        tags: ['Channels'],
        summary: 'Route a channel’s new conversations to a bot',
        description:
          'Needs `channels:manage` (admins). A conversation that opens on the channel, at a time `hours` allow (business ' +
          'hours’ rules; null: always), enters queue `Automação` of the channel’s team held by the bot. `botId: null` ' +
          'routes to no bot. Conversations already open stay where they are.',
        params: IdParams,
        body: UpdateChannelBotBody,
        response: { 200: ChannelSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.bots.setChannelBot(userOf(request), request.params.id, request.body),
  );
}
