import { Type, type Static } from '@sinclair/typebox';
import { eventType } from '../../events/catalogue.js';
import { Nullable, ObjectIdString } from '../../http/schemas.js';

/** Availability and automatic assignment: what the API reads and writes, and their events. */

export const MAX_OVERRIDES = 500;
export const MAX_OPEN_LIMIT = 1000;

export const AvailabilitySchema = Type.Union(
  [Type.Literal('online'), Type.Literal('away'), Type.Literal('offline')],
  {
    description:
      '`online` (receives conversations by automatic assignment), `away` (signed in, receives none) or `offline`',
  },
);
export type AvailabilityT = Static<typeof AvailabilitySchema>;

export const SetAvailabilityBody = Type.Object(
  { availability: AvailabilitySchema },
  { additionalProperties: false },
);

export const MyAvailabilitySchema = Type.Object({
  userId: Type.String(),
  availability: AvailabilitySchema,
  since: Type.String({ format: 'date-time', description: 'When it last changed' }),
});
export type MyAvailabilityT = Static<typeof MyAvailabilitySchema>;

const ModeSchema = Type.Union([Type.Literal('off'), Type.Literal('round_robin'), Type.Literal('capacity')], {
  description:
    '`off` (agents capture), `round_robin` (online agents in turn) or `capacity` (the least loaded online agent)',
});

const OverrideSchema = Type.Object(
  {
    userId: ObjectIdString({ description: 'A member of the team' }),
    maxOpen: Type.Integer({
      minimum: 0,
      maximum: MAX_OPEN_LIMIT,
      description: 'Their own maximum instead of the team’s; 0: assignment gives them none',
    }),
  },
  { additionalProperties: false },
);

export const UpdateTeamAssignmentBody = Type.Object(
  {
    mode: ModeSchema,
    maxOpen: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 1,
          maximum: MAX_OPEN_LIMIT,
          description:
            'The most open conversations an agent may have for assignment to give them another; required for `capacity`; null or absent: no limit (round robin)',
        }),
      ),
    ),
    overrides: Type.Optional(
      Type.Array(OverrideSchema, {
        maxItems: MAX_OVERRIDES,
        description: `Per-agent maxima, at most ${MAX_OVERRIDES}, one per agent`,
      }),
    ),
    releaseOnOffline: Type.Optional(
      Type.Boolean({
        description:
          'Whether an agent going offline gives back to `Espera` the conversations they have not answered (default true)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type UpdateTeamAssignmentInput = Static<typeof UpdateTeamAssignmentBody>;

export const TeamAssignmentSchema = Type.Object({
  teamId: Type.String(),
  mode: ModeSchema,
  maxOpen: Nullable(Type.Integer({ description: 'null: no limit' })),
  overrides: Type.Array(Type.Object({ userId: Type.String(), maxOpen: Type.Integer() }), {
    description: 'Per-agent maxima, by user id',
  }),
  releaseOnOffline: Type.Boolean(),
  updatedAt: Nullable(Type.String({ format: 'date-time', description: 'null: never configured' })),
});
export type TeamAssignmentT = Static<typeof TeamAssignmentSchema>;

export const TEAM_ASSIGNMENT = eventType(
  'team.assignment',
  Type.Object(
    { assignment: TeamAssignmentSchema },
    { description: "An admin or supervisor changed a team's automatic assignment" },
  ),
);

export const USER_AVAILABILITY = eventType(
  'user.availability',
  Type.Object(
    {
      userId: Type.String(),
      availability: AvailabilitySchema,
      since: Type.String({ format: 'date-time' }),
      auto: Type.Boolean({
        description:
          'true when the platform changed it: offline a while after the user’s last connection went, back at their next one',
      }),
    },
    { description: "A user's availability changed" },
  ),
);
