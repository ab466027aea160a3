import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import {
  CreateWebhookBody,
  DeliveryPage,
  DeliveryParams,
  DeliveryQuery,
  DeliverySchema,
  UpdatedWebhookSchema,
  UpdateWebhookBody,
  WebhookSchema,
  WebhookWithSecretSchema,
} from './webhooks.schemas.js';
import type { WebhooksService } from './webhooks.service.js';

const DELIVERY_DOC =
  'Each event is POSTed as its envelope `{id, event, schemaVersion, seq, occurredAt, accountId, data}` with ' +
  '`Atende-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, `Atende-Delivery` ' +
  '(the same on every attempt) and `Atende-Event`. 2xx = delivered; network errors, timeouts, 408, 429 and 5xx ' +
  'are retried with exponential backoff and jitter for 24 h; any other answer is final. An endpoint failing ' +
  'for 24 h is disabled and the account’s webhook admins are notified. Deliveries are not ordered: use `seq`. ' +
  'Only public addresses are called: each attempt resolves the URL’s host and refuses (final, `Refused: …`) ' +
  'a loopback, private, link-local or other non-public address; 400 when the URL is one at registration.';

/** What these routes use of the services. */
export type WebhooksRoutesDeps = UserGuardDeps & {
  webhooks: WebhooksService;
};

export function webhooksRoutes(app: App, services: WebhooksRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Webhooks'] };
  app.get(
    '/api/webhooks',
    {
      onRequest,
      schema: {
        operationId: 'listWebhooks',
        ...common,
        summary: 'List outgoing webhook subscriptions (secrets are never shown again)',
        response: { 200: Type.Array(WebhookSchema), ...errorResponses(401, 403) },
      },
    },
    async (request) => services.webhooks.list(userOf(request)),
  );
  app.post(
    '/api/webhooks',
    {
      onRequest,
      schema: {
        operationId: 'createWebhook',
        ...badRequestsWhen([
          'url must point to a public address: <reason>',
          'the host is, or resolves to, a loopback, private, link-local or other non-public address, unless the installation allows private networks',
        ]),
        ...common,
        summary: 'Subscribe an endpoint to events',
        description: `The secret (given, or generated when absent) is shown only in this answer. ${DELIVERY_DOC}`,
        body: CreateWebhookBody,
        response: { 201: WebhookWithSecretSchema, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await services.webhooks.create(userOf(request), request.body)),
  );
  app.get(
    '/api/webhooks/:id',
    {
      onRequest,
      schema: {
        operationId: 'getWebhook',
        ...common,
        summary: 'Get a webhook subscription',
        params: IdParams,
        response: { 200: WebhookSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.webhooks.get(userOf(request), request.params.id),
  );
  app.patch(
    '/api/webhooks/:id',
    {
      onRequest,
      schema: {
        operationId: 'updateWebhook',
        ...badRequestsWhen([
          'url must point to a public address: <reason>',
          'the host is, or resolves to, a loopback, private, link-local or other non-public address, unless the installation allows private networks',
        ]),
        ...common,
        summary: 'Change a webhook subscription',
        description:
          '`enabled: false` pauses it (deliveries still being retried fail); `enabled: true` turns it back on. ' +
          '`secret` sets a new secret, `rotateSecret: true` generates one; either way it is shown in this answer only.',
        params: IdParams,
        body: UpdateWebhookBody,
        response: { 200: UpdatedWebhookSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.webhooks.update(userOf(request), request.params.id, request.body),
  );
  app.delete(
    '/api/webhooks/:id',
    {
      onRequest,
      schema: {
        operationId: 'deleteWebhook',
        ...common,
        summary: 'Delete a webhook subscription and its delivery log',
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await services.webhooks.delete(userOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );
  app.get(
    '/api/webhooks/:id/deliveries',
    {
      onRequest,
      schema: {
        operationId: 'listWebhookDeliveries',
        ...common,
        summary: "The endpoint's delivery log",
        description: 'Newest first; kept as long as the events (`ATENDE_EVENT_RETENTION_DAYS`).',
        params: IdParams,
        querystring: DeliveryQuery,
        response: { 200: DeliveryPage, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.webhooks.deliveries(userOf(request), request.params.id, request.query),
  );
  app.post(
    '/api/webhooks/:id/deliveries/:deliveryId/replay',
    {
      onRequest,
      schema: {
        operationId: 'replayWebhookDelivery',
        ...common,
        summary: 'Send a delivery again',
        description:
          'A new attempt of the same delivery: the same envelope and `Atende-Delivery`, a fresh retry window; ' +
          'a pending delivery is attempted now. 409 when the endpoint is disabled.',
        params: DeliveryParams,
        response: { 202: DeliverySchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) =>
      reply
        .status(202)
        .send(await services.webhooks.replay(userOf(request), request.params.id, request.params.deliveryId)),
  );
}
