import { Type, type Static } from '@sinclair/typebox';
import { ObjectIdString } from '../../http/schemas.js';

const Queue = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'Queue of new inbound conversations',
});

export const ChannelSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  provider: Type.String(),
  providerConfig: Type.Record(Type.String(), Type.Unknown()),
  apiEnabled: Type.Boolean(),
  hasApiKey: Type.Boolean(),
  defaultTeamId: Type.String(),
  queue: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type ChannelT = Static<typeof ChannelSchema>;

export const CreateChannelBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 200 }),
    provider: Type.Literal('sandbox'),
    defaultTeamId: ObjectIdString(),
    queue: Type.Optional(Queue),
    apiEnabled: Type.Optional(Type.Boolean()),
    providerConfig: Type.Optional(Type.Object({}, { additionalProperties: false })),
  },
  { additionalProperties: false },
);
export type CreateChannelInput = Static<typeof CreateChannelBody>;

export const UpdateChannelBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    defaultTeamId: Type.Optional(ObjectIdString()),
    queue: Type.Optional(Queue),
    apiEnabled: Type.Optional(Type.Boolean()),
    providerConfig: Type.Optional(Type.Object({}, { additionalProperties: false })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateChannelInput = Static<typeof UpdateChannelBody>;

export const ChannelApiKeyResponse = Type.Object({
  apiKey: Type.String({ description: 'The channel key for `x-channel-api-key`. Shown only this once.' }),
});
