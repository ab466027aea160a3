import { Type, type Static } from '@sinclair/typebox';
import { eventType } from '../../events/catalogue.js';
import { Nullable } from '../../http/schemas.js';
import { DEFAULT_TIME_ZONE, MAX_HOLIDAYS, MAX_INTERVALS_PER_DAY } from './business-hours.js';

/** A team's business hours: what the API reads and writes, and the event of a change. */

const Time = Type.String({
  pattern: '^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$',
  description: 'Local time `HH:MM`, 00:00 to 23:59; `24:00` is the end of the day',
  'x-error-message': ['must be a time HH:MM', 'deve ser um horário HH:MM'],
});

const IntervalSchema = Type.Object(
  { start: Time, end: Time },
  {
    additionalProperties: false,
    description: 'Open from `start` (included) to `end` (excluded), local time; start before end',
  },
);

const Day = Type.Array(IntervalSchema, {
  maxItems: MAX_INTERVALS_PER_DAY,
  description: `The day's open intervals, at most ${MAX_INTERVALS_PER_DAY}, not overlapping; empty: closed that day`,
});

const Weekly = Type.Array(Day, {
  minItems: 7,
  maxItems: 7,
  description:
    'Seven days, Sunday first (0 Sunday … 6 Saturday); null: no weekly hours, open at any time that is not a holiday',
});

const Holiday = Type.String({
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
  description: 'A local date `YYYY-MM-DD`, closed all day',
  'x-error-message': ['must be a date YYYY-MM-DD', 'deve ser uma data AAAA-MM-DD'],
});

const Holidays = Type.Array(Holiday, {
  maxItems: MAX_HOLIDAYS,
  uniqueItems: true,
  description: `At most ${MAX_HOLIDAYS} dates on which the team is closed`,
});

/**
 * Hours as other parts of the product store them (a channel's bot routing): the same time zone,
 * weekly intervals and holidays, read by the same rules (`isOpenAt`).
 */
export const HoursSchema = Type.Object(
  {
    timeZone: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'IANA time zone (e.g. `America/Sao_Paulo`) the hours are read in',
    }),
    weekly: Nullable(Weekly),
    holidays: Type.Optional(Holidays),
  },
  { additionalProperties: false },
);
export type HoursInput = Static<typeof HoursSchema>;

export const UpdateBusinessHoursBody = Type.Object(
  {
    timeZone: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: `IANA time zone (e.g. \`America/Sao_Paulo\`, \`Europe/Lisbon\`); default \`${DEFAULT_TIME_ZONE}\``,
      }),
    ),
    weekly: Nullable(Weekly),
    holidays: Type.Optional(Holidays),
  },
  { additionalProperties: false },
);
export type UpdateBusinessHoursInput = Static<typeof UpdateBusinessHoursBody>;

/** A team's business hours as the API shows them, with whether it is open at the time of the answer. */
export const BusinessHoursSchema = Type.Object({
  teamId: Type.String(),
  configured: Type.Boolean({ description: 'false: the team has no business hours and is always open' }),
  timeZone: Type.String({ description: 'IANA time zone the hours are read in' }),
  weekly: Nullable(Weekly),
  holidays: Type.Array(Type.String({ description: '`YYYY-MM-DD`' }), { description: 'In date order' }),
  openNow: Type.Boolean({ description: 'Whether the team attends at the time of the answer' }),
  nextChange: Nullable(
    Type.String({
      format: 'date-time',
      description: 'When the team next opens (closed now) or closes (open now); null: never',
    }),
  ),
  updatedAt: Nullable(Type.String({ format: 'date-time', description: 'null: never configured' })),
});
export type BusinessHoursT = Static<typeof BusinessHoursSchema>;

export const TEAM_BUSINESS_HOURS = eventType(
  'team.business_hours',
  Type.Object(
    { businessHours: BusinessHoursSchema },
    {
      description: "An admin set a team's business hours; `openNow` and `nextChange` are as of the change",
    },
  ),
);
