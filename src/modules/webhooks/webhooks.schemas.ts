import { Type, type Static } from '@sinclair/typebox';
import { EVENT_NAMES } from '../../events/catalogue.js';
import { Nullable, ObjectIdString, pageOf, PaginationQuery } from '../../http/schemas.js';

/** Every event of the catalogue, or `*` for all of them (events added later included). */
export const ALL_EVENTS = '*';

const EventNames = Type.Array(Type.Union([...EVENT_NAMES, ALL_EVENTS].map((n) => Type.Literal(n))), {
  minItems: 1,
  maxItems: EVENT_NAMES.length + 1,
  uniqueItems: true,
  description: `Events to receive: ${EVENT_NAMES.join(', ')}; or \`*\` for every event, including ones added later`,
});

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'Absolute http or https URL the events are POSTed to, without a user name or password, on a public address: ' +
    'loopback, private, link-local (cloud metadata), CGNAT, multicast and other non-public addresses, or names ' +
    'resolving to them, are refused unless the installation allows private networks',
  // Each rule in the words the service used for it before the schema stated it.
  allOf: [
    {
      format: 'uri',
      pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#]',
      'x-error-message': [
        'must be an absolute http or https URL',
        'deve ser um endereço http ou https completo',
      ],
    },
    {
      not: { pattern: '^[^:/?#]+://[^/?#]*@' },
      'x-error-message': [
        'must not contain a user name or password',
        'não pode conter nome de usuário nem senha',
      ],
    },
  ],
});

const Secret = Type.String({
  minLength: 16,
  maxLength: 256,
  description: 'Key of the HMAC-SHA256 signature (`Atende-Signature`); generated when absent',
});

export const CreateWebhookBody = Type.Object(
  { url: Url, events: EventNames, secret: Type.Optional(Secret) },
  { additionalProperties: false },
);
export type CreateWebhookInput = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(EventNames),
    enabled: Type.Optional(
      Type.Boolean({ description: '`false` pauses the endpoint; `true` turns a disabled one back on' }),
    ),
    secret: Type.Optional(Secret),
    rotateSecret: Type.Optional(
      Type.Boolean({ description: '`true` generates a new secret, shown in this answer only' }),
    ),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    // A secret given and a new one generated: one of them would be lost.
    not: {
      required: ['secret', 'rotateSecret'],
      properties: { secret: { type: 'string' }, rotateSecret: { enum: [true] } },
    },
  },
);
export type UpdateWebhookInput = Static<typeof UpdateWebhookBody>;

const webhookFields = {
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  secretHint: Type.String({ description: 'Last characters of the secret, to tell secrets apart' }),
  failingSince: Nullable(
    Type.String({
      format: 'date-time',
      description: 'First failed attempt since the last success; null while deliveries succeed',
    }),
  ),
  lastSuccessAt: Nullable(Type.String({ format: 'date-time' })),
  disabledAt: Nullable(Type.String({ format: 'date-time' })),
  disabledReason: Nullable(
    Type.String({ description: '`failing` (disabled by the platform) or `manual` (`enabled: false`)' }),
  ),
  botId: Nullable(
    Type.String({
      description:
        'The bot whose endpoint this is (`createBot`): it receives only the events of the conversations the bot holds, and is deleted with the bot',
    }),
  ),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
};

/** A subscription as listed: the secret is never shown again, only its hint. */
export const WebhookSchema = Type.Object(webhookFields);
export type WebhookT = Static<typeof WebhookSchema>;

/** The answer that created the subscription or changed its secret: the secret, this once. */
export const WebhookWithSecretSchema = Type.Object({
  ...webhookFields,
  secret: Type.String({ description: 'Shown only in this answer' }),
});

/** PATCH answer: `secret` only when the change set a new one. */
export const UpdatedWebhookSchema = Type.Object({
  ...webhookFields,
  secret: Type.Optional(Type.String({ description: 'Present when the secret changed; shown only here' })),
});

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

export const DeliverySchema = Type.Object({
  id: Type.String({
    format: 'uuid',
    description: 'Also the `Atende-Delivery` header; the same on every attempt',
  }),
  webhookId: Type.String(),
  eventId: Type.String({ format: 'uuid', description: '`id` of the envelope' }),
  event: Type.String(),
  seq: Type.Integer({ description: '`seq` of the envelope' }),
  status: Type.String({
    description: '`pending` (an attempt is due or running), `delivered` (2xx) or `failed` (final)',
  }),
  attempts: Type.Integer(),
  lastAttemptAt: Nullable(Type.String({ format: 'date-time' })),
  lastResponseStatus: Nullable(Type.Integer({ description: 'HTTP status of the last answer' })),
  lastError: Nullable(
    Type.String({
      description:
        'Why the last attempt failed: `HTTP <status>`, a short network reason, or `Refused: …` when the ' +
        'destination resolved to a non-public address. Never what the receiver answered',
    }),
  ),
  nextAttemptAt: Nullable(Type.String({ format: 'date-time' })),
  deliveredAt: Nullable(Type.String({ format: 'date-time' })),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type DeliveryT = Static<typeof DeliverySchema>;

export const DeliveryQuery = Type.Object(
  {
    status: Type.Optional(Type.Union(DELIVERY_STATUSES.map((s) => Type.Literal(s)))),
    ...PaginationQuery,
  },
  { additionalProperties: false },
);
export type DeliveryQueryT = Static<typeof DeliveryQuery>;

export const DeliveryPage = pageOf('items', DeliverySchema);

export const DeliveryParams = Type.Object(
  {
    id: ObjectIdString({ description: 'Webhook id' }),
    deliveryId: Type.String({ format: 'uuid', description: 'Delivery id' }),
  },
  { additionalProperties: false },
);
