import { Type, type Static } from '@sinclair/typebox';
import { eventType } from '../../events/catalogue.js';
import { Nullable } from '../../http/schemas.js';

/** A team's SLA targets: what the API reads and writes, and the event of a change (docs/adr/0088-slas.md). */

/** A target's upper bound: a year of business minutes. */
export const MAX_TARGET_MINUTES = 525_600;

const Target = (what: string) =>
  Type.Integer({
    minimum: 1,
    maximum: MAX_TARGET_MINUTES,
    description: `${what}, in minutes of the team's business hours (1 to ${MAX_TARGET_MINUTES}); null or absent: no target`,
  });

export const UpdateTeamSlaBody = Type.Object(
  {
    firstResponseMinutes: Type.Optional(
      Nullable(Target("From the customer's first message to a person's first reply")),
    ),
    resolutionMinutes: Type.Optional(
      Nullable(Target("From the customer's first message to the conversation's close")),
    ),
  },
  { additionalProperties: false },
);
export type UpdateTeamSlaInput = Static<typeof UpdateTeamSlaBody>;

export const TeamSlaSchema = Type.Object({
  teamId: Type.String(),
  firstResponseMinutes: Nullable(
    Type.Integer({ description: "Business minutes to a person's first reply; null: no target" }),
  ),
  resolutionMinutes: Nullable(
    Type.Integer({ description: 'Business minutes to the close; null: no target' }),
  ),
  updatedAt: Nullable(Type.String({ format: 'date-time', description: 'null: never set' })),
});
export type TeamSlaT = Static<typeof TeamSlaSchema>;

export const TEAM_SLA = eventType(
  'team.sla',
  Type.Object(
    { sla: TeamSlaSchema },
    {
      description:
        "An admin or supervisor set a team's SLA targets; they apply to conversations whose clock starts afterwards",
    },
  ),
);
