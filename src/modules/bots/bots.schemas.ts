import { Type, type Static } from '@sinclair/typebox';
import { eventType } from '../../events/catalogue.js';
import { Nullable, ObjectIdString } from '../../http/schemas.js';
import { HoursSchema } from '../teams/index.js';

/** Bots (docs/adr/0087-bots.md): what the API reads and writes, and the event that ends a bot's hold. */

export const MIN_REPLY_TIMEOUT_S = 5;
export const MAX_REPLY_TIMEOUT_S = 3600;
export const DEFAULT_REPLY_TIMEOUT_S = 60;

const Name = Type.String({ minLength: 1, maxLength: 100, description: 'Unique among the account’s bots' });
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'Where the bot’s events are POSTed, signed (docs/webhooks.md): an absolute http(s) URL on a public address, as a webhook’s',
});
const ReplyTimeout = Type.Integer({
  minimum: MIN_REPLY_TIMEOUT_S,
  maximum: MAX_REPLY_TIMEOUT_S,
  description: `Seconds the bot has to answer a customer’s message before the conversation goes to the channel’s team (default ${DEFAULT_REPLY_TIMEOUT_S})`,
});

export const CreateBotBody = Type.Object(
  { name: Name, url: Url, replyTimeoutSeconds: Type.Optional(ReplyTimeout) },
  { additionalProperties: false },
);
export type CreateBotInput = Static<typeof CreateBotBody>;

export const UpdateBotBody = Type.Object(
  {
    name: Type.Optional(Name),
    url: Type.Optional(Url),
    replyTimeoutSeconds: Type.Optional(ReplyTimeout),
    enabled: Type.Optional(
      Type.Boolean({
        description:
          '`false` pauses the bot’s endpoint (no new conversation goes to the bot); `true` turns it back on, also after the platform disabled it for failing',
      }),
    ),
    rotateSecret: Type.Optional(
      Type.Boolean({ description: '`true` generates a new signing secret, shown in this answer only' }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateBotInput = Static<typeof UpdateBotBody>;

const botFields = {
  id: Type.String(),
  name: Type.String(),
  url: Type.String(),
  replyTimeoutSeconds: Type.Integer(),
  enabled: Type.Boolean({
    description: 'Whether its endpoint receives events (and it takes new conversations)',
  }),
  failingSince: Nullable(
    Type.String({ format: 'date-time', description: 'First failed delivery since the last success' }),
  ),
  disabledReason: Nullable(
    Type.String({ description: '`failing` (disabled by the platform) or `manual` (`enabled: false`)' }),
  ),
  apiKeyId: Type.String({ description: 'The account API key the bot acts with (`Authorization: ApiKey …`)' }),
  webhookId: Type.String({
    description: 'Its endpoint as a webhook: the delivery log is `GET /api/webhooks/{webhookId}/deliveries`',
  }),
  secretHint: Type.String({ description: 'Last characters of the signing secret' }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
};

export const BotSchema = Type.Object(botFields);
export type BotT = Static<typeof BotSchema>;

export const BOT_UPDATE = eventType(
  'bot.update',
  Type.Object(
    {
      bot: BotSchema,
      deleted: Type.Boolean({ description: 'true: the bot was deleted (it is shown as it was)' }),
    },
    { description: 'An admin created, changed or deleted one of the account’s bots' },
  ),
);

export const CreatedBotSchema = Type.Object({
  ...botFields,
  apiKey: Type.String({ description: 'Send as `Authorization: ApiKey <apiKey>`. Shown only this once.' }),
  secret: Type.String({
    description: 'Verifies `Atende-Signature` of the bot’s deliveries. Shown only this once.',
  }),
});

export const UpdatedBotSchema = Type.Object({
  ...botFields,
  secret: Type.Optional(
    Type.String({ description: 'Present when `rotateSecret` made a new one; shown only here' }),
  ),
});

export const UpdateChannelBotBody = Type.Object(
  {
    botId: Nullable(ObjectIdString({ description: 'The bot new conversations go to; null: no bot' })),
    hours: Type.Optional(
      Nullable(
        Type.Object(HoursSchema.properties, {
          additionalProperties: false,
          description:
            'When the bot takes new conversations, by business hours’ rules (Sunday first, `HH:MM`, holidays); null or absent: at any time',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type UpdateChannelBotInput = Static<typeof UpdateChannelBotBody>;
