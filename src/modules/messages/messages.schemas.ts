import { Type, type Static } from '@sinclair/typebox';
import { Nullable, ObjectIdString } from '../../http/schemas.js';
import { MAX_BASE64_LENGTH, TemplateMessageSchema } from './send.schemas.js';

/**
 * A stored message as the agent API shows it (and, later, the gateway's `message.*` events). Shared
 * here so every surface that shows a message uses one shape.
 */
export const MessageSchema = Type.Object({
  id: Type.String(),
  chatId: Type.String(),
  origin: Type.String({ description: '`contact`, `user` (an agent), `api` (send-message) or `system`' }),
  type: Type.String({ description: '`text`, `media`, `template`, or what the provider sent (`image`, …)' }),
  content: Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    additionalProperties: true,
    description:
      '`{text}` for text; `{text?, media: {kind, mimetype, filename?, caption?, id?}}` for media; ' +
      '`{template: {name, language, header, body, urlButtons, mediaHeader?, orderDetails}}` for a template, ' +
      'its variables as resolved for the provider (`header`/`body`: `[{text, parameterName?}]` in order)',
  }),
  status: Type.String({
    description: '`queued`, `sent`, `delivered`, `read`, `failed`, or `received` (customer)',
  }),
  providerMessageId: Nullable(Type.String()),
  error: Nullable(Type.Object({ code: Type.String(), message: Type.String() })),
  requestId: Nullable(Type.String({ description: 'The send-message request that produced it' })),
  userId: Nullable(Type.String({ description: 'The agent who wrote it' })),
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
});

/**
 * An agent's reply: exactly one of `text`, `media` or `template`, judged by the Channel API's own
 * rules. Free text and media need the customer's 24-hour window open; a template does not.
 */
export const AgentReplyBody = Type.Object(
  {
    text: Type.Optional(Type.String({ description: 'At most 4096 characters' })),
    media: Type.Optional(
      Type.Object(
        {
          mimetype: Type.String({ maxLength: 255 }),
          base64: Type.String({
            maxLength: MAX_BASE64_LENGTH,
            description:
              'File content in base64, without a `data:` prefix; within the provider limit for its type',
          }),
          filename: Type.Optional(Type.String({ maxLength: 255 })),
          caption: Type.Optional(Type.String({ description: 'At most 1024 characters' })),
        },
        { additionalProperties: false },
      ),
    ),
    template: Type.Optional(TemplateMessageSchema),
  },
  { additionalProperties: false, description: 'Exactly one of `text`, `media` or `template`' },
);
export type AgentReplyBodyT = Static<typeof AgentReplyBody>;
