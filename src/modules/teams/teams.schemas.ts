import { Type, type Static } from '@sinclair/typebox';
import { Nullable, ObjectIdString } from '../../http/schemas.js';

const Members = Type.Array(ObjectIdString(), { maxItems: 1000, uniqueItems: true });

export const CreateTeamBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    members: Type.Optional(Members),
  },
  { additionalProperties: false },
);
export type CreateTeamInput = Static<typeof CreateTeamBody>;

export const UpdateTeamBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.Optional(Nullable(Type.String({ maxLength: 2000 }))),
    status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('inactive')])),
    members: Type.Optional(Members),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateTeamInput = Static<typeof UpdateTeamBody>;

/** A team as the API shows it. */
export const TeamSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  status: Type.String({ description: '`active` or `inactive`' }),
  members: Type.Array(Type.String()),
});
export type TeamT = Static<typeof TeamSchema>;
