import { Type, type Static } from '@sinclair/typebox';
import { Nullable, ObjectIdString } from '../../http/schemas.js';
import { API_KEY_SCOPES } from '../../access/permissions.js';

const Scope = Type.Union(API_KEY_SCOPES.map((s) => Type.Literal(s)));

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    scopes: Type.Array(Scope, { minItems: 1, maxItems: API_KEY_SCOPES.length, uniqueItems: true }),
    channelIds: Type.Optional(
      Nullable(Type.Array(ObjectIdString(), { minItems: 1, maxItems: 1000, uniqueItems: true })),
    ),
  },
  { additionalProperties: false },
);
export type CreateApiKeyInput = Static<typeof CreateApiKeyBody>;

export const ApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  channelIds: Nullable(Type.Array(Type.String())),
  createdBy: Nullable(Type.String()),
  lastUsedAt: Nullable(Type.String({ format: 'date-time' })),
  revokedAt: Nullable(Type.String({ format: 'date-time' })),
  createdAt: Type.String({ format: 'date-time' }),
});
export type ApiKeyT = Static<typeof ApiKeySchema>;

export const CreatedApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scopes: Type.Array(Type.String()),
  channelIds: Nullable(Type.Array(Type.String())),
  token: Type.String({ description: 'Send as `Authorization: ApiKey <token>`. Shown only this once.' }),
});
