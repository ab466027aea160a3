import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import { AgentChatSchema } from '../chats/index.js';
import {
  CreateLabelBody,
  CustomerLabelsSchema,
  ItemLabelParams,
  LabelSchema,
  MAX_LABELS,
  UpdateLabelBody,
} from './labels.schemas.js';
import { TOO_MANY_LABELS, type LabelsService } from './labels.service.js';

/** What these routes use of the services. */
export type LabelsRoutesDeps = UserGuardDeps & { labels: LabelsService };

export function labelsRoutes(app: App, services: LabelsRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Labels'] };
  const labels = services.labels;
  app.get(
    '/api/labels',
    {
      onRequest,
      schema: {
        operationId: 'listLabels',
        ...common,
        summary: 'List the account’s labels',
        description: `Every label of the account, by name (at most ${MAX_LABELS}); for any user.`,
        response: { 200: Type.Array(LabelSchema), ...errorResponses(401) },
      },
    },
    async (request) => labels.list(userOf(request)),
  );
  app.post(
    '/api/labels',
    {
      onRequest,
      schema: {
        operationId: 'createLabel',
        ...badRequestsWhen([TOO_MANY_LABELS, `the account already has ${MAX_LABELS} labels`]),
        ...common,
        summary: 'Define a label',
        description:
          'Needs `labels:manage` (admins). A name another label of the account has, whatever its letter case → 409.',
        body: CreateLabelBody,
        response: { 201: LabelSchema, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) => reply.status(201).send(await labels.create(userOf(request), request.body)),
  );
  app.get(
    '/api/labels/:id',
    {
      onRequest,
      schema: {
        operationId: 'getLabel',
        ...common,
        summary: 'Get a label',
        params: IdParams,
        response: { 200: LabelSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => labels.get(userOf(request), request.params.id),
  );
  app.patch(
    '/api/labels/:id',
    {
      onRequest,
      schema: {
        operationId: 'updateLabel',
        ...common,
        summary: 'Change a label (name, colour, description)',
        description: 'Needs `labels:manage`. Another label’s name → 409.',
        params: IdParams,
        body: UpdateLabelBody,
        response: { 200: LabelSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => labels.update(userOf(request), request.params.id, request.body),
  );
  app.delete(
    '/api/labels/:id',
    {
      onRequest,
      schema: {
        operationId: 'deleteLabel',
        ...common,
        summary: 'Delete a label',
        description: 'Needs `labels:manage`. The label leaves every chat and customer it was on.',
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await labels.delete(userOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
  const chatLabel = (method: 'put' | 'delete', operationId: string, summary: string, description: string) =>
    app[method](
      '/api/chats/:id/labels/:labelId',
      {
        onRequest,
        schema: {
          operationId,
          tags: ['Chats', 'Labels'],
          summary,
          description,
          params: ItemLabelParams,
          response: { 200: AgentChatSchema, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        const { id, labelId } = request.params;
        const actor = userOf(request);
        return method === 'put'
          ? labels.addToChat(actor, id, labelId)
          : labels.removeFromChat(actor, id, labelId);
      },
    );
  chatLabel(
    'put',
    'addChatLabel',
    'Put a label on a chat',
    'For anyone who may see the chat (open or closed). Already there: the chat as it is, no event. ' +
      'A chat or label the user cannot see (another account’s included) → 404.',
  );
  chatLabel(
    'delete',
    'removeChatLabel',
    'Take a label off a chat',
    'For anyone who may see the chat. Not there: the chat as it is, no event.',
  );
  const customerLabel = (
    method: 'put' | 'delete',
    operationId: string,
    summary: string,
    description: string,
  ) =>
    app[method](
      '/api/customers/:id/labels/:labelId',
      {
        onRequest,
        schema: {
          operationId,
          tags: ['Labels'],
          summary,
          description,
          params: ItemLabelParams,
          response: { 200: CustomerLabelsSchema, ...errorResponses(400, 401, 404) },
        },
      },
      async (request) => {
        const { id, labelId } = request.params;
        const actor = userOf(request);
        return method === 'put'
          ? labels.addToCustomer(actor, id, labelId)
          : labels.removeFromCustomer(actor, id, labelId);
      },
    );
  customerLabel(
    'put',
    'addCustomerLabel',
    'Put a label on a customer',
    'For users who may see the customer: with `chats:read_all` any customer of the account, otherwise the ' +
      'customer of a conversation in one of their teams or attended by them. Already there: no event.',
  );
  customerLabel(
    'delete',
    'removeCustomerLabel',
    'Take a label off a customer',
    'For users who may see the customer. Not there: no event.',
  );
}
