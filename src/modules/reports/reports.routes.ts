import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses } from '../../http/schemas.js';
import { CSV_COLUMNS } from './reports.csv.js';
import {
  AgentReportQuery,
  ExportQuery,
  MyReportQuery,
  MyReportSchema,
  ReportQuery,
  ReportSchema,
} from './reports.schemas.js';
import {
  BAD_DATE,
  HOURLY_TOO_LONG,
  RANGE_BACKWARDS,
  RANGE_TOO_LONG,
  UNKNOWN_TIME_ZONE,
  type ReportsService,
} from './reports.service.js';

/** What these routes use of the services. */
export type ReportsRoutesDeps = UserGuardDeps & { reports: ReportsService };

const RANGE_ERRORS = badRequestsWhen(
  [BAD_DATE, '`from` or `to` is not a calendar date'],
  [RANGE_BACKWARDS, '`to` is before `from`'],
  [RANGE_TOO_LONG, 'more than 366 days'],
  [HOURLY_TOO_LONG, '`granularity=hour` over more than 31 days'],
  [UNKNOWN_TIME_ZONE, '`timeZone` is not an IANA name the server knows'],
);

const WHO =
  'Admins (`chats:supervise`) read the whole account; supervisors (`chats:supervise_team`) their teams ' +
  "(a `teamId` not theirs → 403); others → 403. Another account's team, channel, user or label → 404. ";
const WHAT =
  'Figures from the rollups of the event log, kept up to date as events are written (`freshness` says how ' +
  'current); each fact counts in the hour it happened and for the team, attendant, channel and labels the ' +
  'conversation had then. Definitions: docs/agent-api.md#reports.';

export function reportsRoutes(app: App, services: ReportsRoutesDeps): void {
  const onRequest = userGuard(services);
  const tags = ['Reports'];
  app.get(
    '/api/reports/conversations',
    {
      onRequest,
      schema: {
        operationId: 'getConversationReport',
        tags,
        summary: 'Conversation report over a date range',
        description: `${WHO}${WHAT} \`groupBy\` adds one group per team, attendant, channel or label.`,
        ...RANGE_ERRORS,
        querystring: ReportQuery,
        response: { 200: ReportSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.reports.conversations(userOf(request), request.query),
  );
  app.get(
    '/api/reports/agents',
    {
      onRequest,
      schema: {
        operationId: 'getAgentReport',
        tags,
        summary: 'Agent report over a date range',
        description: `${WHO}${WHAT} One group per attendant with figures in the range.`,
        ...RANGE_ERRORS,
        querystring: AgentReportQuery,
        response: { 200: ReportSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.reports.agents(userOf(request), request.query),
  );
  app.get(
    '/api/reports/me',
    {
      onRequest,
      schema: {
        operationId: 'getMyReport',
        tags,
        summary: 'Your own figures today',
        description:
          'For any user: your figures as an attendant today (the local date in `timeZone`), in every team, ' +
          `and the open conversations you attend now. ${WHAT}`,
        ...badRequestsWhen([UNKNOWN_TIME_ZONE, '`timeZone` is not an IANA name the server knows']),
        querystring: MyReportQuery,
        response: { 200: MyReportSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => services.reports.me(userOf(request), request.query),
  );
  app.get(
    '/api/reports/export',
    {
      onRequest,
      schema: {
        operationId: 'exportReport',
        tags,
        summary: 'A report as CSV',
        description:
          `The conversation or agent report of the same query as CSV: one line per series bucket with the ` +
          `totals (group columns empty) and, grouped, one line per group and bucket. Columns: ` +
          `${CSV_COLUMNS.join(', ')}. ${WHO}`,
        ...RANGE_ERRORS,
        querystring: ExportQuery,
        response: {
          200: { description: 'CSV (UTF-8)', content: { 'text/csv': { schema: { type: 'string' } } } },
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      const csv = await services.reports.export(userOf(request), request.query);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="report-${request.query.report}.csv"`)
        .send(csv);
    },
  );
}
