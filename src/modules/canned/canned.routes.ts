import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import { TEAM_NOT_FOUND } from '../teams/index.js';
import {
  CannedPageSchema,
  CannedResponseSchema,
  CannedUseSchema,
  CreateCannedBody,
  ListCannedQuery,
  RenderCannedQuery,
  RenderedCannedSchema,
  UpdateCannedBody,
} from './canned.schemas.js';
import { TEAM_ID_FOR_TEAM_ONLY, type CannedService } from './canned.service.js';
import { cannedAttachmentRoutes } from './canned-attachment.routes.js';

/** What these routes use of the services. */
export type CannedRoutesDeps = UserGuardDeps & {
  canned: CannedService;
};

const UNKNOWN_VARIABLE: [string, string] = [
  'content has unknown variables: {{<name>}}, …; known variables: {{contact.name}}, …',
  'content names a variable that is neither built in nor a custom attribute the account defines',
];

/** Canned responses: the composer's `/` picker, the admin page and each user's own page. */
export function cannedRoutes(app: App, services: CannedRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Canned responses'] };
  app.get(
    '/api/canned-responses',
    {
      onRequest,
      schema: {
        operationId: 'listCannedResponses',
        ...common,
        summary: 'The canned responses you may use',
        description:
          "The account's, your teams' (every team's for admins) and your own. `q` searches shortcuts and text " +
          '(accents and case ignored; shortcuts starting with it first, then the most used); `scope` and `teamId` filter.',
        querystring: ListCannedQuery,
        response: { 200: CannedPageSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => services.canned.list(userOf(request), request.query),
  );
  app.post(
    '/api/canned-responses',
    {
      onRequest,
      schema: {
        operationId: 'createCannedResponse',
        ...badRequestsWhen(
          UNKNOWN_VARIABLE,
          [TEAM_ID_FOR_TEAM_ONLY, '`teamId` missing with `scope: team`, or given with another scope'],
          [TEAM_NOT_FOUND, '`teamId` is not a team of the account'],
        ),
        ...common,
        summary: 'Create a canned response',
        description:
          '`account`: `canned_responses:manage` (admins). `team`: admins, or a supervisor (`canned_responses:manage_team`) ' +
          'of that team. `personal`: anyone, for themselves. 409 when the owner already has the shortcut (any case) or ' +
          'holds the most responses of its scope (2,000 account-wide, 1,000 per team, 300 per user).',
        body: CreateCannedBody,
        response: { 201: CannedResponseSchema, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await services.canned.create(userOf(request), request.body)),
  );
  app.get(
    '/api/canned-responses/:id',
    {
      onRequest,
      schema: {
        operationId: 'getCannedResponse',
        ...common,
        summary: 'A canned response you may use',
        params: IdParams,
        response: { 200: CannedResponseSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.canned.get(userOf(request), request.params.id),
  );
  app.patch(
    '/api/canned-responses/:id',
    {
      onRequest,
      schema: {
        operationId: 'updateCannedResponse',
        ...badRequestsWhen(UNKNOWN_VARIABLE),
        ...common,
        summary: 'Change the shortcut or text of a canned response',
        description:
          'Who may create it may change it; its scope and team stay. 409 when the shortcut is taken.',
        params: IdParams,
        body: UpdateCannedBody,
        response: { 200: CannedResponseSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => services.canned.update(userOf(request), request.params.id, request.body),
  );
  app.delete(
    '/api/canned-responses/:id',
    {
      onRequest,
      schema: {
        operationId: 'deleteCannedResponse',
        ...common,
        summary: 'Delete a canned response and its file',
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await services.canned.delete(userOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
  app.get(
    '/api/canned-responses/:id/render',
    {
      onRequest,
      schema: {
        operationId: 'renderCannedResponse',
        ...common,
        summary: 'The text to insert in a conversation, its variables filled',
        description:
          "For a response you may use and a chat you see (else 404): the customer's name and custom attributes, your " +
          'own name. A variable without a value is left empty. Inserting counts nothing: `POST …/use` does, once sent.',
        params: IdParams,
        querystring: RenderCannedQuery,
        response: { 200: RenderedCannedSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.canned.render(userOf(request), request.params.id, request.query.chatId),
  );
  app.post(
    '/api/canned-responses/:id/use',
    {
      onRequest,
      schema: {
        operationId: 'useCannedResponse',
        ...common,
        summary: 'Count one use (the response went out in a message)',
        description:
          'The console calls it once the message it was inserted in is sent. Counted in place, so uses at the same ' +
          'moment are all counted.',
        params: IdParams,
        response: { 200: CannedUseSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.canned.use(userOf(request), request.params.id),
  );
  cannedAttachmentRoutes(app, services, onRequest);
}
