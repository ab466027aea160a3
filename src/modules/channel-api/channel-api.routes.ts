import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { App } from '../../http/app-type.js';
import { apiKeyOf } from '../../access/request-actor.js';
import { notFound } from '../../http/errors.js';
import { sendJsonText } from '../../http/json-text.js';
import { badRequestsWhen, errorResponses, IdParams, ObjectIdString } from '../../http/schemas.js';
import { TeamSchema, TEAM_NOT_FOUND, type TeamsService } from '../teams/index.js';
import { UserSchema, USER_NOT_FOUND, type UsersService } from '../users/index.js';
import {
  ChatPageSchema,
  ChatSchema,
  ListChatsQuery,
  type ChatMovesService,
  type ChatsService,
} from '../chats/index.js';
import { isObjectId } from '../../lib/ids.js';
import { keyAllowsChannel } from '../../access/guards.js';
import { accountKeyGuard, chatReach, partPasses, type AccountKeyGuardDeps } from './guards.js';

const rateLimitNote =
  'Limited to 120 requests per 60 s per API key (headers `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset`; `Retry-After` on 429).';

export const TransferToTeamBody = Type.Object(
  {
    teamId: ObjectIdString(),
    reasonCode: Type.Optional(Type.String({ maxLength: 64 })),
    reason: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

export const TransferToUserBody = Type.Object(
  {
    userId: ObjectIdString(),
    reasonCode: Type.Optional(Type.String({ maxLength: 64 })),
    reason: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);

/**
 * preValidation hooks: what the key addresses (a channel in the query, a chat in the path) is checked
 * before the rest of the request is validated, giving the order of docs/channel-api.md "Errors": scope/channel (404) →
 * validation (400). Values that are not ObjectIds are left to validation.
 */
const channelReach = (services: { chats: ChatsService }) => async (request: FastifyRequest) => {
  const { channelId } = request.query as Record<string, unknown>;
  if (typeof channelId !== 'string' || !isObjectId(channelId)) return;
  const actor = apiKeyOf(request);
  if (!keyAllowsChannel(actor, channelId)) throw notFound();
  // Whether the channel is the account's shows in the page itself (the service looks it up only for
  // an empty page), so a valid request costs no lookup here; one that validation will refuse gets
  // no page, and its 404 must come before the 400.
  if (!partPasses(request, 'querystring')) await services.chats.assertChannelReachable(actor, channelId);
};

/** What these routes use of the services. */
export type ChannelApiRoutesDeps = AccountKeyGuardDeps & {
  chats: ChatsService;
  chatMoves: ChatMovesService;
  teams: TeamsService;
  users: UsersService;
};

/** The contract's account-key routes under /channel-api. */
export function channelApiRoutes(app: App, services: ChannelApiRoutesDeps): void {
  app.get(
    '/channel-api/chats',
    {
      onRequest: accountKeyGuard(services, 'chats:read'),
      preValidation: channelReach(services),
      schema: {
        operationId: 'listOpenChats',
        tags: ['Channel API'],
        summary: 'List open chats',
        description: `Open chats the key may reach, newest first; queue \`Observação\` is left out. ${rateLimitNote}`,
        querystring: ListChatsQuery,
        response: { 200: ChatPageSchema, ...errorResponses(400, 401, 404, 429) },
      },
    },
    async (request, reply) =>
      sendJsonText(reply, await services.chats.listForApiKey(apiKeyOf(request), request.query)),
  );

  app.get(
    '/channel-api/users',
    {
      onRequest: accountKeyGuard(services, 'users:read'),
      schema: {
        operationId: 'listUsers',
        tags: ['Channel API'],
        summary: 'List users',
        description: `Active and onboarding users; cancelled users are left out. ${rateLimitNote}`,
        response: { 200: Type.Array(UserSchema), ...errorResponses(401, 404, 429) },
      },
    },
    async (request, reply) => sendJsonText(reply, await services.users.listForApiKey(apiKeyOf(request))),
  );

  app.get(
    '/channel-api/teams',
    {
      onRequest: accountKeyGuard(services, 'teams:read'),
      schema: {
        operationId: 'listTeams',
        tags: ['Channel API'],
        summary: 'List teams',
        description: rateLimitNote,
        response: { 200: Type.Array(TeamSchema), ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => services.teams.listForApiKey(apiKeyOf(request)),
  );

  app.post(
    '/channel-api/chats/:id/transfer/team',
    {
      onRequest: accountKeyGuard(services, 'chats:transfer'),
      preValidation: chatReach(services),
      schema: {
        operationId: 'transferChatToTeam',
        ...badRequestsWhen([TEAM_NOT_FOUND, '`teamId` is not an active team of the account']),
        tags: ['Channel API'],
        summary: 'Transfer a chat to a team',
        description: `The chat goes to the team's \`Espera\` queue and loses its attendant. Waits up to 2 s for a chat another operation is processing, then answers 409. ${rateLimitNote}`,
        params: IdParams,
        body: TransferToTeamBody,
        response: { 200: ChatSchema, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (request) => services.chatMoves.transferToTeam(apiKeyOf(request), request.params.id, request.body),
  );

  app.post(
    '/channel-api/chats/:id/transfer/user',
    {
      onRequest: accountKeyGuard(services, 'chats:transfer'),
      preValidation: chatReach(services),
      schema: {
        operationId: 'transferChatToUser',
        ...badRequestsWhen([USER_NOT_FOUND, '`userId` is not a user of the account, or is cancelled']),
        tags: ['Channel API'],
        summary: 'Transfer a chat to a user',
        description: `The chat goes to \`Em Atendimento\` with the user as attendant, replacing any other. 409 at once when another operation is processing the chat. ${rateLimitNote}`,
        params: IdParams,
        body: TransferToUserBody,
        response: { 200: ChatSchema, ...errorResponses(400, 401, 404, 409, 429) },
      },
    },
    async (request) => services.chatMoves.transferToUser(apiKeyOf(request), request.params.id, request.body),
  );
}
