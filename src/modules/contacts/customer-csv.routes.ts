import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { Readable } from 'node:stream';
import { badRequest } from '../../http/errors.js';
import { en, render, requestLanguage } from '../../http/language.js';
import { badRequestsWhen, errorResponses } from '../../http/schemas.js';
import { IMPORT_CHANNEL_UNKNOWN, IMPORT_MAX_LINES, type CustomerCsvService } from './customer-csv.service.js';
import { ExportCustomersQuery, ImportQuery, ImportReportSchema } from './customers.schemas.js';

const NO_FILE = en(
  'The body must be the CSV file, sent as text/csv',
  'O corpo deve ser o arquivo CSV, enviado como text/csv',
);

/** The request's body as this route's parser hands it over: the stream of the file. */
function isStream(body: unknown): body is Readable {
  return body instanceof Readable;
}

/** What these routes use of the services. */
export type CustomerCsvRoutesDeps = UserGuardDeps & { customerCsv: CustomerCsvService };

const COLUMNS =
  '`id`, `name`, `phones` and `emails` (several separated by `;`), `createdAt`, `lastSeenAt`, `labels` ' +
  '(names separated by `;`), then `attr.<key>` for each attribute';

export function customerCsvRoutes(app: App, services: CustomerCsvRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Customers'] };
  app.get(
    '/api/customers/export',
    {
      onRequest,
      schema: {
        operationId: 'exportContacts',
        ...common,
        summary: 'The customers of the list, as CSV',
        description:
          `The customers the user may see that match the same filters as \`GET /api/customers\`, newest first, ` +
          `streamed as they are read. Columns: ${COLUMNS}. A value a spreadsheet would run as a formula ` +
          "(starting with `=`, `+`, `-` or `@`) is written after a `'`, which the import removes.",
        querystring: ExportCustomersQuery,
        response: {
          200: { description: 'CSV (UTF-8)', content: { 'text/csv': { schema: { type: 'string' } } } },
          ...errorResponses(400, 401),
        },
      },
    },
    async (request, reply) => {
      const stream = await services.customerCsv.export(userOf(request), request.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="contacts.csv"')
        .send(stream);
    },
  );

  // The file is read as it arrives: this route's own parser hands the body over as a stream.
  void app.register(async (scope) => {
    const csv = scope.withTypeProvider<TypeBoxTypeProvider>();
    csv.removeAllContentTypeParsers();
    csv.addContentTypeParser('text/csv', (_request, payload, done) => done(null, payload));
    csv.post(
      '/api/customers/import',
      {
        onRequest,
        schema: {
          operationId: 'importContacts',
          ...common,
          summary: 'Create and update customers from CSV (admin)',
          description:
            'Needs `customers:manage`. Body: `text/csv`, at most 5 MiB and ' +
            `${IMPORT_MAX_LINES} lines after the header, which names the columns: those of the export ` +
            '(`createdAt`, `lastSeenAt` and `labels` are ignored); `phone` and `email` are read as ' +
            '`phones` and `emails`. A line with `id` updates that customer; otherwise the customer its ' +
            'numbers or e-mails belong to, or a new one. Numbers and e-mails not yet on the channel are ' +
            'added on it; cells left empty change nothing. Lines are written as they are read; a line ' +
            'with a problem is reported by its number and the others are imported. Each customer ' +
            'written sends `customer.update`.',
          querystring: ImportQuery,
          body: {
            content: {
              'text/csv': { schema: { description: 'The CSV file (UTF-8)' } },
            },
          },
          ...badRequestsWhen(
            [NO_FILE, 'the request has no `text/csv` body'],
            [IMPORT_CHANNEL_UNKNOWN, '`channelId` is not a channel of the account'],
            ['column <name> is not known', 'the header names a column the import does not take'],
          ),
          response: { 200: ImportReportSchema, ...errorResponses(400, 401, 403, 413) },
        },
      },
      async (request) => {
        // Only this route's parser gives a body, and only for `text/csv`: without one there is no file.
        const body = request.body;
        if (!isStream(body)) throw badRequest(NO_FILE);
        const declared = Number(request.headers['content-length']);
        const report = await services.customerCsv.import(
          userOf(request),
          request.query.channelId,
          body,
          Number.isFinite(declared) ? declared : undefined,
        );
        const language = requestLanguage(request);
        return {
          ...report,
          errors: report.errors.map((e) => ({ line: e.line, message: render(e.message, language) })),
        };
      },
    );
  });
}
