import { Type, type Static } from '@sinclair/typebox';
import { Nullable, ObjectIdString } from '../../http/schemas.js';

const Queue = Type.String({
  minLength: 1,
  maxLength: 100,
  description: 'Queue of new inbound conversations',
});

export const PROVIDERS = ['sandbox', 'whatsapp-cloud'] as const;
export type Provider = (typeof PROVIDERS)[number];

/**
 * A channel's provider settings as input. Every field is optional here: which ones a provider needs
 * is checked by the service (`checkProviderConfig`), so a wrong field is named once, in the same
 * wording as schema failures, instead of by every branch of a union.
 */
const providerConfigFields = {
  phoneNumberId: Type.String({
    pattern: '^[0-9]{1,32}$',
    description: 'whatsapp-cloud: the WhatsApp phone number id (digits) from Meta',
  }),
  accessToken: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'whatsapp-cloud: Graph API access token',
  }),
  appSecret: Type.String({
    minLength: 1,
    maxLength: 256,
    description: "whatsapp-cloud: the Meta app's secret, which signs inbound webhooks",
  }),
  verifyToken: Type.String({
    minLength: 1,
    maxLength: 256,
    description: 'whatsapp-cloud: the verify token typed in Meta when subscribing the webhook',
  }),
  businessAccountId: Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,32}$',
      description:
        'whatsapp-cloud, optional: the WhatsApp Business Account id (digits), so agents can pick approved templates',
    }),
  ),
};

/**
 * A channel's provider settings in a change: every field optional, since a change sends only what
 * changes; whether the merged settings are complete for the channel's provider is the service's
 * check (`checkProviderConfig`), as it depends on what is stored.
 */
const ProviderConfigInput = Type.Object(
  {
    phoneNumberId: Type.Optional(providerConfigFields.phoneNumberId),
    accessToken: Type.Optional(providerConfigFields.accessToken),
    appSecret: Type.Optional(providerConfigFields.appSecret),
    verifyToken: Type.Optional(providerConfigFields.verifyToken),
    businessAccountId: providerConfigFields.businessAccountId,
  },
  {
    additionalProperties: false,
    description:
      'sandbox: empty. whatsapp-cloud: phoneNumberId, accessToken, appSecret and verifyToken once merged with ' +
      'the stored settings, businessAccountId optional; a change may send only the fields that change.',
  },
);
export type ProviderConfigInputT = Static<typeof ProviderConfigInput>;

/** What the API shows of a channel's provider settings: never a secret, only whether it is set. */
const PublicProviderConfig = Type.Object(
  {
    phoneNumberId: Type.Optional(Type.String()),
    accessTokenSet: Type.Optional(Type.Boolean()),
    appSecretSet: Type.Optional(Type.Boolean()),
    verifyTokenSet: Type.Optional(Type.Boolean()),
    businessAccountId: Type.Optional(Type.String()),
  },
  {
    description:
      'sandbox: `{}`. whatsapp-cloud: `{phoneNumberId, accessTokenSet, appSecretSet, verifyTokenSet, businessAccountId?}`; secrets are never returned.',
  },
);
export type PublicProviderConfigT = Static<typeof PublicProviderConfig>;

const SEND_READ_RECEIPTS =
  "When an agent reads a chat, the provider is told the customer's latest message was read (WhatsApp: blue ticks). Default false.";

export const ChannelSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  provider: Type.String(),
  providerConfig: PublicProviderConfig,
  apiEnabled: Type.Boolean(),
  hasApiKey: Type.Boolean(),
  defaultTeamId: Type.String(),
  queue: Type.String(),
  health: Type.Union([Type.Literal('ok'), Type.Literal('unhealthy')], {
    description:
      "`unhealthy` once the provider refused the channel's access token (WhatsApp error 190): sends fail at once with `channel_unhealthy` until a new `accessToken` is stored, which makes it `ok` again",
  }),
  healthReason: Nullable(
    Type.Object(
      { code: Type.String(), message: Type.String(), details: Type.Optional(Type.String()) },
      { description: "The provider's error that made the channel unhealthy" },
    ),
  ),
  unhealthySince: Nullable(Type.String({ format: 'date-time' })),
  sendReadReceipts: Type.Boolean({ description: SEND_READ_RECEIPTS }),
  botId: Nullable(
    Type.String({
      description: 'The bot new conversations go to (`updateChannelBot`), within `botHours`; null: none',
    }),
  ),
  botHours: Nullable(
    Type.Object(
      {
        timeZone: Type.String(),
        weekly: Nullable(Type.Array(Type.Array(Type.Object({ start: Type.String(), end: Type.String() })))),
        holidays: Type.Array(Type.String()),
      },
      { description: "When the bot takes new conversations (business hours' rules); null: at any time" },
    ),
  ),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type ChannelT = Static<typeof ChannelSchema>;

const channelFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  defaultTeamId: ObjectIdString({ description: 'An active team of the account' }),
  queue: Type.Optional(Queue),
  apiEnabled: Type.Optional(Type.Boolean()),
  sendReadReceipts: Type.Optional(Type.Boolean({ description: SEND_READ_RECEIPTS })),
};

const SandboxChannelInput = Type.Object(
  {
    ...channelFields,
    provider: Type.Literal('sandbox'),
    providerConfig: Type.Optional(
      Type.Object({}, { additionalProperties: false, description: 'A sandbox takes no settings' }),
    ),
  },
  { title: 'SandboxChannelInput', additionalProperties: false },
);

const WhatsAppChannelInput = Type.Object(
  {
    ...channelFields,
    provider: Type.Literal('whatsapp-cloud'),
    providerConfig: Type.Object(providerConfigFields, {
      additionalProperties: false,
      description: 'phoneNumberId, accessToken, appSecret and verifyToken; businessAccountId optional',
    }),
  },
  { title: 'WhatsAppChannelInput', additionalProperties: false },
);

/** A new channel: the settings its provider needs, chosen by `provider` (OpenAPI's discriminator). */
export const CreateChannelBody = Type.Unsafe<
  Static<typeof SandboxChannelInput> | Static<typeof WhatsAppChannelInput>
>({
  type: 'object',
  required: ['provider'],
  properties: { provider: Type.Union(PROVIDERS.map((p) => Type.Literal(p))) },
  discriminator: { propertyName: 'provider' },
  oneOf: [SandboxChannelInput, WhatsAppChannelInput],
});
export type CreateChannelInput = Static<typeof CreateChannelBody>;

export const UpdateChannelBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    provider: Type.Optional(
      Type.Union(
        PROVIDERS.map((p) => Type.Literal(p)),
        { description: 'A new provider takes a complete providerConfig of its own' },
      ),
    ),
    defaultTeamId: Type.Optional(ObjectIdString()),
    queue: Type.Optional(Queue),
    apiEnabled: Type.Optional(Type.Boolean()),
    providerConfig: Type.Optional(ProviderConfigInput),
    sendReadReceipts: Type.Optional(Type.Boolean({ description: SEND_READ_RECEIPTS })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateChannelInput = Static<typeof UpdateChannelBody>;

export const ChannelApiKeyResponse = Type.Object({
  apiKey: Type.String({ description: 'The channel key for `x-channel-api-key`. Shown only this once.' }),
});

const Placeholders = Type.Array(Type.String(), {
  description: 'Placeholder names in the order values go: `1`, `2`… (positional) or names (named)',
});

/** An approved template as the console shows it for picking and filling in. */
export const ChannelTemplateSchema = Type.Object({
  name: Type.String(),
  language: Type.String({ description: 'e.g. `pt_BR`' }),
  category: Nullable(Type.String({ description: '`MARKETING`, `UTILITY` or `AUTHENTICATION`' })),
  header: Nullable(
    Type.Object({
      format: Type.String({ description: '`text`, `image`, `video`, `document` or `location`' }),
      text: Nullable(Type.String()),
    }),
  ),
  body: Nullable(Type.String({ description: 'With its `{{…}}` placeholders' })),
  footer: Nullable(Type.String()),
  buttons: Type.Array(
    Type.Object({ type: Type.String(), text: Type.String(), url: Nullable(Type.String()) }),
  ),
  parameters: Type.Object({
    header: Placeholders,
    body: Placeholders,
    buttons: Type.Array(Type.Object({ index: Type.Integer(), names: Placeholders })),
  }),
  named: Type.Boolean({ description: 'Values are sent by name (`key`), not by position' }),
});

export const ChannelTemplatesSchema = Type.Object({
  available: Type.Boolean({
    description:
      "Whether the channel lists its templates (WhatsApp with `businessAccountId`); otherwise agents type the template's name, language and values",
  }),
  templates: Type.Array(ChannelTemplateSchema),
});
