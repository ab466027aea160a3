import { Type, type Static } from '@sinclair/typebox';
import { Nullable, ObjectIdString } from '../../http/schemas.js';

/** The reports' query, figures and answers (docs/adr/0089-reports-and-rollups.md). */

/** Longest range a report covers, in local days; an hourly series covers at most HOURLY_MAX_DAYS. */
export const MAX_RANGE_DAYS = 366;
export const HOURLY_MAX_DAYS = 31;

const LocalDate = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description });

const GROUP_BYS = ['none', 'team', 'agent', 'channel', 'label'] as const;
export type GroupBy = (typeof GROUP_BYS)[number];

/** Filters and the time zone every report takes. */
const ReportFilters = {
  timeZone: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'IANA time zone the dates and buckets are read in; default `America/Sao_Paulo`',
    }),
  ),
  granularity: Type.Optional(
    Type.Union([Type.Literal('hour'), Type.Literal('day')], {
      description: 'Series buckets: `day` (default) or `hour` (ranges of 31 days at most)',
    }),
  ),
  teamId: Type.Optional(ObjectIdString({ description: "Only this team's figures" })),
  channelId: Type.Optional(ObjectIdString({ description: "Only this channel's figures" })),
  agentId: Type.Optional(ObjectIdString({ description: "Only this attendant's figures (a user id)" })),
  labelId: Type.Optional(
    ObjectIdString({ description: 'Only conversations carrying this label when each fact happened' }),
  ),
};

const Range = {
  from: LocalDate('First local date of the range, `YYYY-MM-DD` (inclusive)'),
  to: LocalDate('Last local date of the range, `YYYY-MM-DD` (inclusive); at most 366 days after `from`'),
};

export const ReportQuery = Type.Object(
  {
    ...Range,
    ...ReportFilters,
    groupBy: Type.Optional(
      Type.Union(
        GROUP_BYS.map((g) => Type.Literal(g)),
        { description: 'Figures per team, attendant, channel or label besides the totals; default `none`' },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ReportQueryT = Static<typeof ReportQuery>;

export const AgentReportQuery = Type.Object({ ...Range, ...ReportFilters }, { additionalProperties: false });
export type AgentReportQueryT = Static<typeof AgentReportQuery>;

export const MyReportQuery = Type.Object(
  {
    timeZone: ReportFilters.timeZone,
    granularity: ReportFilters.granularity,
  },
  { additionalProperties: false },
);
export type MyReportQueryT = Static<typeof MyReportQuery>;

export const ExportQuery = Type.Object(
  {
    report: Type.Union([Type.Literal('conversations'), Type.Literal('agents')], {
      description: 'Which report: `conversations` (getConversationReport) or `agents` (getAgentReport)',
    }),
    ...Range,
    ...ReportFilters,
    groupBy: ReportQuery.properties.groupBy,
  },
  { additionalProperties: false },
);
export type ExportQueryT = Static<typeof ExportQuery>;

const seconds = (what: string) =>
  Nullable(Type.Number({ description: `${what}, in seconds; null without any value` }));

export const DurationSchema = Type.Object(
  {
    count: Type.Integer({ description: 'How many values' }),
    averageSeconds: seconds('Their mean'),
    p50Seconds: seconds(
      'Median (nearest rank, from a histogram of 4.4 % bins: exact when its bin holds one value)',
    ),
    p90Seconds: seconds('90th percentile'),
    p95Seconds: seconds('95th percentile'),
  },
  { description: 'A duration metric' },
);
export type DurationT = Static<typeof DurationSchema>;

const MetCount = Type.Object({ met: Type.Integer(), breached: Type.Integer() });

export const MetricsSchema = Type.Object(
  {
    opened: Type.Integer({ description: 'Conversations started' }),
    closed: Type.Integer({ description: 'Conversations closed' }),
    reopened: Type.Integer({ description: 'Closed conversations opened again' }),
    transfers: Type.Integer({ description: 'Transfers, counted for the team and attendant left' }),
    attended: Type.Integer({
      description:
        'Conversations taken by an attendant — a capture, an automatic assignment, a transfer to them or their reopening — counted for that attendant and the team it is in then',
    }),
    messagesIn: Type.Integer({ description: "The customers' messages" }),
    messagesOut: Type.Integer({ description: 'Messages to customers (people, Channel API, flows and bots)' }),
    firstResponse: DurationSchema,
    wait: DurationSchema,
    handling: DurationSchema,
    resolution: DurationSchema,
    csat: Type.Object({
      count: Type.Integer(),
      average: Nullable(Type.Number()),
      distribution: Type.Array(Type.Integer(), {
        minItems: 5,
        maxItems: 5,
        description: 'Ratings of 1, 2, 3, 4 and 5',
      }),
    }),
    sla: Type.Object({
      firstResponse: MetCount,
      resolution: MetCount,
      compliance: Nullable(
        Type.Number({ minimum: 0, maximum: 1, description: 'met / (met + breached), both targets' }),
      ),
    }),
  },
  { description: 'The figures of a report, a bucket or a group (definitions: docs/agent-api.md#reports)' },
);
export type MetricsT = Static<typeof MetricsSchema>;

const RangeSchema = Type.Object({
  from: Type.String(),
  to: Type.String(),
  timeZone: Type.String(),
  granularity: Type.Union([Type.Literal('hour'), Type.Literal('day')]),
});

export const FreshnessSchema = Type.Object(
  {
    upTo: Nullable(
      Type.String({
        format: 'date-time',
        description: 'Every event before this instant is counted; null before the first event',
      }),
    ),
    lagSeconds: Type.Number({ description: 'How far behind now the figures are' }),
    catchingUp: Type.Boolean({ description: 'The rollups are catching up with a backlog of events' }),
  },
  { description: 'How current the figures are' },
);
export type FreshnessT = Static<typeof FreshnessSchema>;

export const ReportSchema = Type.Object({
  range: RangeSchema,
  freshness: FreshnessSchema,
  totals: MetricsSchema,
  series: Type.Array(
    Type.Object({
      start: Type.String({ format: 'date-time', description: 'The bucket’s first instant' }),
      metrics: MetricsSchema,
    }),
    { description: 'One bucket per hour or local day of the range, in order, empty ones included' },
  ),
  groups: Type.Array(
    Type.Object({
      id: Type.String(),
      name: Type.String(),
      metrics: MetricsSchema,
    }),
    { description: 'One per team, attendant, channel or label with figures; [] when `groupBy` is none' },
  ),
});
export type ReportT = Static<typeof ReportSchema>;

export const MyReportSchema = Type.Object({
  ...ReportSchema.properties,
  openNow: Type.Integer({ description: 'Open conversations you attend now' }),
});
export type MyReportT = Static<typeof MyReportSchema>;
