import { Type, type Static } from '@sinclair/typebox';
import { eventType } from '../../events/catalogue.js';
import { exactlyOneOf, NonBlank, Nullable, ObjectIdString } from '../../http/schemas.js';
import { ReplyMediaSchema, TemplateMessageSchema, TEXT_MAX_LENGTH } from '../message-content/index.js';
import { DeliverySchema } from './delivery.js';

const part = (description: string) =>
  Type.Optional(
    Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, description }),
  );
const target = (what: string) =>
  part(`${what}: \`{providerMessageId, messageId}\` (\`messageId\` null when that message is not stored)`);

/**
 * A message's content. Agents' and API messages carry `text`, `media` or `template`; a customer's
 * message keeps every field its provider sent, provider-neutral (the README's table of inbound types).
 */
export const MessageContentSchema = Type.Object(
  {
    text: Type.Optional(Type.String({ description: 'Body, caption, or the text a customer message shows' })),
    media: part(
      '`{kind?, id?, mimetype, filename?, caption?, sha256?, voice?}`; `voice: true` for a voice note',
    ),
    sentAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: "Customer messages: when the customer sent it (provider's time)",
      }),
    ),
    context: target(
      'The message this one replies to (`forwarded`, `frequentlyForwarded`, `product` when given)',
    ),
    referral: part(
      'The ad or post the customer came from: `{sourceType, sourceId, sourceUrl, headline, body, mediaType, mediaUrl, ctwaClid}`',
    ),
    interactive: part(
      "An answer to an interactive message: `{kind: button_reply|list_reply|nfm_reply, id, title, description?, name?, body?, response?}` (`response`: a Flow's answers, parsed)",
    ),
    button: part('A template quick-reply button: `{text, payload}`'),
    order: part(
      'A catalog order: `{catalogId, text, items: [{productRetailerId, quantity, itemPrice, currency}]}`',
    ),
    location: part('`{latitude, longitude, name?, address?, url?}`'),
    contacts: Type.Optional(
      Type.Array(Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true }), {
        description:
          'Shared contact cards: `{name, phones: [{phone, waId, type}], emails: [{email, type}], organization?}`',
      }),
    ),
    reaction: part(
      'On a `reaction` message: `{providerMessageId, messageId, emoji}` (emoji null: removed). On the message reacted to: `{emoji, at, messageId}` (the reaction message)',
    ),
    edit: target('On an `edit` message: the message it changed (its new text is `text`)'),
    edits: Type.Optional(
      Type.Array(Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true }), {
        description: 'On an edited message: earlier versions `{text, at}`, oldest first',
      }),
    ),
    editedAt: Type.Optional(
      Type.String({ format: 'date-time', description: 'When the customer last edited it' }),
    ),
    revoke: target('On a `revoke` message: the message the customer deleted'),
    revokedAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'When the customer deleted it for everyone (text kept for agents)',
      }),
    ),
    system: part('`{kind, body, newAddress?}`; `kind` `user_changed_number` with the new address'),
    template: part(
      'A template sent (Channel API or agent): `{name, language, header, body, urlButtons, mediaHeader?, orderDetails}`, its values resolved for the provider (`header`/`body`: `[{text, parameterName?}]` in order)',
    ),
    unsupported: part(
      'What the provider could not deliver: `{type, errors: [{code, title, message, details}]}`',
    ),
    errors: Type.Optional(
      Type.Array(Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true }), {
        description:
          "Customer messages: the provider's own errors about it, `[{code, title, message, details}]`, e.g. 131052 (Media download failed) on a file it could not fetch",
      }),
    ),
    raw: part(
      "`unsupported` messages: the provider's JSON as received (left out above 16,000 characters: `rawOmitted`)",
    ),
  },
  { additionalProperties: true },
);

/**
 * A stored message as the agent API shows it (and, later, the gateway's `message.*` events). Shared
 * here so every surface that shows a message uses one shape.
 */
export const MessageSchema = Type.Object({
  id: Type.String(),
  chatId: Type.String(),
  origin: Type.String({ description: '`contact`, `user` (an agent), `api` (send-message) or `system`' }),
  type: Type.String({ description: '`text`, `media`, `template`, or what the provider sent (`image`, …)' }),
  content: MessageContentSchema,
  status: Type.String({
    description: '`queued`, `sent`, `delivered`, `read`, `failed`, or `received` (customer)',
  }),
  providerMessageId: Nullable(Type.String()),
  error: Nullable(
    Type.Object(
      {
        code: Type.String({ description: "The provider's error code, e.g. 131047" }),
        message: Type.String(),
        details: Type.Optional(Type.String({ description: "The provider's longer explanation, when given" })),
      },
      { description: 'Why a `failed` message failed' },
    ),
  ),
  delivery: Type.Optional(DeliverySchema),
  requestId: Nullable(Type.String({ description: 'The send-message request that produced it' })),
  userId: Nullable(Type.String({ description: 'The agent who wrote it' })),
  bySupervisor: Type.Boolean({
    description:
      'Written by a supervisor or admin (`userId`) stepping into a conversation another agent attended',
  }),
  automation: Nullable(
    Type.Union([Type.Literal('flow'), Type.Literal('bot')], {
      description:
        "Written by the platform's automation rather than a person: `flow` (a channel's built-in greeting, menu, away or closing message) or `bot` (the account's bot `botId`, through the Channel API)",
    }),
  ),
  botId: Nullable(Type.String({ description: 'The bot that wrote it, when `automation` is `bot`' })),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type MessageT = Static<typeof MessageSchema>;

export const DEFAULT_HISTORY_LIMIT = 50;

export const MessageHistoryQuery = Type.Object(
  {
    before: Type.Optional(
      ObjectIdString({ description: 'A message id of this chat: only older messages are listed' }),
    ),
    after: Type.Optional(
      ObjectIdString({ description: 'A message id of this chat: only newer messages are listed' }),
    ),
    around: Type.Optional(
      ObjectIdString({
        description:
          'A message id of this chat: the page holds it, with older messages and newer ones around it (a search result opened there)',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100,
        default: DEFAULT_HISTORY_LIMIT,
        description: 'Page size, 1 to 100',
      }),
    ),
  },
  { additionalProperties: false },
);
export type MessageHistoryQueryT = Static<typeof MessageHistoryQuery>;

export const MessageHistorySchema = Type.Object({
  messages: Type.Array(MessageSchema, { description: 'Newest first' }),
  nextBefore: Nullable(
    Type.String({ description: 'Pass as `before` for the next (older) page; null at the end' }),
  ),
  nextAfter: Nullable(
    Type.String({
      description: 'Pass as `after` for the next newer page; null when the page reaches the newest message',
    }),
  ),
});

/**
 * An agent's reply: exactly one of `text`, `media` or `template`, judged by the Channel API's own
 * rules. Free text and media need the customer's 24-hour window open; a template does not.
 */
export const AgentReplyBody = Type.Object(
  {
    text: Type.Optional(NonBlank({ maxLength: TEXT_MAX_LENGTH, description: 'The text' })),
    media: Type.Optional(ReplyMediaSchema),
    template: Type.Optional(TemplateMessageSchema),
  },
  {
    additionalProperties: false,
    description: 'Exactly one of `text`, `media` or `template`',
    oneOf: exactlyOneOf('text', 'media', 'template'),
  },
);
export type AgentReplyBodyT = Static<typeof AgentReplyBody>;

/** The message events (src/events/catalogue.ts): the message as it is now, and its chat's id. */
const message = { chatId: Type.String(), message: MessageSchema };

export const MESSAGE_UPSERT = eventType(
  'message.upsert',
  Type.Object(message, { description: 'A message was stored (inbound, agent, API)' }),
);
export const MESSAGE_UPDATE = eventType(
  'message.update',
  Type.Object(message, {
    description:
      'A message changed: its status (sent, delivered, read, failed), what the provider reported with a status (`delivery`: pricing, conversation, callback data, errors; also on a status that moves nothing), or the customer edited, deleted or reacted to it',
  }),
);
