import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import {
  ChatViewSchema,
  CreateViewBody,
  MAX_VIEWS,
  UpdateViewBody,
  ViewCountsSchema,
} from './chat-views.schemas.js';
import { TOO_MANY_VIEWS, type ChatViewsService } from './chat-views.service.js';

/** What these routes use of the services. */
export type ChatViewsRoutesDeps = UserGuardDeps & { chatViews: ChatViewsService };

export function chatViewsRoutes(app: App, services: ChatViewsRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Chat views'] };
  const views = services.chatViews;
  app.get(
    '/api/chat-views',
    {
      onRequest,
      schema: {
        operationId: 'listChatViews',
        ...common,
        summary: 'List my saved views of the chat list',
        description: `The user’s own views, in their order (at most ${MAX_VIEWS}).`,
        response: { 200: Type.Array(ChatViewSchema), ...errorResponses(401) },
      },
    },
    async (request) => views.list(userOf(request)),
  );
  app.get(
    '/api/chat-views/counts',
    {
      onRequest,
      schema: {
        operationId: 'countChatViews',
        ...common,
        summary: 'Count the chats of each of my saved views',
        description: 'Exact counts, as `listAgentChats` would answer each view’s `total` now.',
        response: { 200: ViewCountsSchema, ...errorResponses(401) },
      },
    },
    async (request) => views.counts(userOf(request)),
  );
  app.post(
    '/api/chat-views',
    {
      onRequest,
      schema: {
        operationId: 'createChatView',
        ...badRequestsWhen([TOO_MANY_VIEWS, `the user already has ${MAX_VIEWS} views`]),
        ...common,
        summary: 'Save a view of the chat list',
        description:
          'Saved last among the user’s views. Filters the user may not use in the list (another user’s ' +
          '`assignee` without `chats:read_all`) → 403.',
        body: CreateViewBody,
        response: { 201: ChatViewSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request, reply) => reply.status(201).send(await views.create(userOf(request), request.body)),
  );
  app.patch(
    '/api/chat-views/:id',
    {
      onRequest,
      schema: {
        operationId: 'updateChatView',
        ...common,
        summary: 'Rename, refilter or move one of my views',
        description: 'Another user’s view → 404.',
        params: IdParams,
        body: UpdateViewBody,
        response: { 200: ChatViewSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => views.update(userOf(request), request.params.id, request.body),
  );
  app.delete(
    '/api/chat-views/:id',
    {
      onRequest,
      schema: {
        operationId: 'deleteChatView',
        ...common,
        summary: 'Delete one of my views',
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await views.delete(userOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
}
