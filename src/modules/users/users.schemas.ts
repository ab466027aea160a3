import { Type, type Static } from '@sinclair/typebox';
import { ROLE_NAMES } from '../../access/permissions.js';

const RoleName = Type.Union(ROLE_NAMES.map((r) => Type.Literal(r)));
const Status = Type.Union([Type.Literal('active'), Type.Literal('onboarding'), Type.Literal('cancelled')]);

export const CreateUserBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    email: Type.String({ format: 'email', maxLength: 320 }),
    password: Type.String({ minLength: 8, maxLength: 200 }),
    role: RoleName,
    status: Type.Optional(Status),
  },
  { additionalProperties: false },
);
export type CreateUserInput = Static<typeof CreateUserBody>;

export const UpdateUserBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    status: Type.Optional(Status),
    role: Type.Optional(RoleName),
    password: Type.Optional(Type.String({ minLength: 8, maxLength: 200 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateUserInput = Static<typeof UpdateUserBody>;

/** A user as the API shows it. */
export const UserSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  email: Type.String(),
  status: Type.String({ description: '`active`, `onboarding` or `cancelled`' }),
  role: Type.Object({ id: Type.String(), name: Type.String() }),
  availability: Type.Union([Type.Literal('online'), Type.Literal('away'), Type.Literal('offline')], {
    description:
      '`online` (automatic assignment gives them conversations), `away` or `offline` (the platform sets it a minute after their last console connection went)',
  }),
});
export type UserT = Static<typeof UserSchema>;
