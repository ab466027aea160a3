import { Readable } from 'node:stream';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { errorResponses, IdParams } from '../../http/schemas.js';
import { EraseBody, ErasureSchema, type ErasureService } from './erasure.service.js';
import type { DataExportService } from './export.service.js';
import { RetentionSchema, type RetentionService } from './retention.js';

/** What these routes use of the services. */
export type PrivacyRoutesDeps = UserGuardDeps & {
  dataExport: DataExportService;
  erasures: ErasureService;
  retention: RetentionService;
};

const PERSON =
  "The id is a customer's (the contacts page) or one of its contacts' (an address on a channel): either way " +
  'the person is meant, with every address merged into it. Needs `customers:manage` (admins); another ' +
  "account's id → 404.";

/** The data subject's rights (LGPD): access (export) and erasure. */
export function privacyRoutes(app: App, services: PrivacyRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Customers'] };
  app.get(
    '/api/contacts/:id/export',
    {
      onRequest,
      schema: {
        operationId: 'exportContactData',
        ...common,
        summary: 'Everything stored about a person, as one ZIP (LGPD access)',
        description:
          `${PERSON} The archive holds \`contact.json\` (names, addresses per channel, attributes, labels, ` +
          'notes, records merged in), `conversations.json` (every conversation with its messages: content, ' +
          'type, status, times, who sent) and `media/<messageId>-<file name>` (the stored files). Streamed as ' +
          'it is read.',
        params: IdParams,
        response: {
          200: {
            description: 'ZIP archive',
            content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
          },
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const { customerId, body } = await services.dataExport.export(userOf(request), request.params.id);
      return reply
        .type('application/zip')
        .header('content-disposition', `attachment; filename="contact-${customerId}.zip"`)
        .send(Readable.from(body));
    },
  );
  app.post(
    '/api/contacts/:id/erase',
    {
      onRequest,
      schema: {
        operationId: 'eraseContactData',
        ...common,
        summary: "Erase a person's personal data (LGPD erasure)",
        description:
          `${PERSON} Body \`{"confirm": "ERASE"}\`. Deletes the person's messages and files; scrubs their ` +
          'names, addresses, attributes, labels and notes, the event log, Channel API request logs, stored ' +
          'provider deliveries and notifications naming them. Conversations remain as anonymous shells ' +
          '(reports). Done by a job in batches: answered 202 with the erasure record (no personal data), ' +
          'whose `status` becomes `done` (`GET /api/erasures/{id}`). Asking again while it runs answers ' +
          'the same record; asking after it finished records a new (empty) one.',
        params: IdParams,
        body: EraseBody,
        response: { 202: ErasureSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply.status(202).send(await services.erasures.request(userOf(request), request.params.id)),
  );
  app.get(
    '/api/erasures/:id',
    {
      onRequest,
      schema: {
        operationId: 'getErasure',
        ...common,
        summary: 'An erasure record: who asked, when, how many rows each step changed',
        description: 'Needs `customers:manage`. Holds no personal data.',
        params: IdParams,
        response: { 200: ErasureSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.erasures.get(userOf(request), request.params.id),
  );
  const retention = { tags: ['Customers'] };
  app.get(
    '/api/retention',
    {
      onRequest,
      schema: {
        operationId: 'getRetention',
        ...retention,
        summary: "The account's retention of messages and files (admin)",
        description: 'Needs `customers:manage`. `days` null: kept forever.',
        response: { 200: RetentionSchema, ...errorResponses(401, 403) },
      },
    },
    async (request) => services.retention.get(userOf(request)),
  );
  app.put(
    '/api/retention',
    {
      onRequest,
      schema: {
        operationId: 'updateRetention',
        ...retention,
        summary: "Set the account's retention of messages and files (admin)",
        description:
          'Needs `customers:manage`. Messages (scope `messages`) or only their files (scope `media`) older ' +
          'than `days` are deleted by the workers, a batch at a time, every minute.',
        body: RetentionSchema,
        response: { 200: RetentionSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => services.retention.update(userOf(request), request.body),
  );
}
