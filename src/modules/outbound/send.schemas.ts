import { Type, type Static } from '@sinclair/typebox';
import { Nullable, pageOf, PaginationQuery } from '../../http/schemas.js';
import { DeliverySchema } from '../messages/index.js';
import { Message, Str } from '../message-content/index.js';

/**
 * The Channel API's send-message request around its message (the message itself:
 * message-content/content.schemas.ts): the recipient, correlation data, headers, the 201, and the
 * request log.
 */

/**
 * A phone as `normalizeContact` takes it: 8 to 15 digits, an optional leading `+`, and spaces,
 * dots, dashes and parentheses anywhere. Whether the number exists in its country's numbering plan
 * is checked by the service (`contact.value must be a valid phone number`).
 */
export const PHONE_PATTERN = '^[\\s().-]*\\+?(?:[\\s().-]*[0-9]){8,15}[\\s().-]*$';
/** An email as `normalizeContact` takes it (surrounding spaces are trimmed). */
export const EMAIL_PATTERN = '^\\s*[^\\s@]+@[^\\s@]+\\.[^\\s@]+\\s*$';

const PhoneValue = Type.String({
  pattern: PHONE_PATTERN,
  'x-error-message': ['must be a valid phone number', 'deve ser um número de telefone válido'],
});
const EmailValue = Type.String({
  pattern: EMAIL_PATTERN,
  'x-error-message': ['must be an email', 'deve ser um e-mail'],
});

const Contact = Type.Object(
  {
    value: Type.String({
      minLength: 1,
      maxLength: 320,
      description:
        'Phone with country and area code (8 to 15 digits, `+`, spaces, dots, dashes, parentheses), or an email when `type` is `email`',
    }),
    type: Type.Optional(Type.Union([Type.Literal('phone'), Type.Literal('email')], { default: 'phone' })),
    name: Type.Optional(Str(256, 'Recipient name, request context only')),
  },
  {
    additionalProperties: false,
    // The value's shape follows `type` (phone by default).
    if: { properties: { type: { const: 'email' } }, required: ['type'] },
    then: { properties: { value: EmailValue } },
    else: { properties: { value: PhoneValue } },
  },
);

export const SendMessageBody = Type.Object(
  {
    contact: Contact,
    message: Message,
    flowId: Type.Optional(Str(255, 'External correlation id of a flow')),
    closeConversation: Type.Optional(Type.Boolean({ default: false })),
    metadata: Type.Optional(
      Type.Record(Type.String(), Str(1000), {
        maxProperties: 50,
        propertyNames: { maxLength: 100 },
        description: 'Free key/value correlation data, recorded in the request log',
      }),
    ),
  },
  { additionalProperties: false },
);
export type SendMessageBodyT = Static<typeof SendMessageBody>;

/** `sendChatMessage`'s body: send-message's without `contact` (the chat names the recipient). */
export const SendChatMessageBody = Type.Object(
  {
    message: Message,
    flowId: SendMessageBody.properties.flowId,
    closeConversation: SendMessageBody.properties.closeConversation,
    metadata: SendMessageBody.properties.metadata,
  },
  { additionalProperties: false },
);
export type SendChatMessageBodyT = Static<typeof SendChatMessageBody>;

export const SendHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'The same key on the same channel within 24 h answers the first requestId again',
    }),
  ),
});

export const SendAccepted = Type.Object({
  requestId: Type.String({ format: 'uuid', description: 'Follows the request in the channel request log' }),
});

export const REQUEST_STATUSES = ['queued', 'processing', 'sent', 'failed'] as const;

export const RequestLogSchema = Type.Object({
  requestId: Type.String({ format: 'uuid' }),
  status: Type.String({ description: '`queued`, `processing`, `sent` or `failed`' }),
  attempts: Type.Integer({ description: 'Provider attempts so far' }),
  flowId: Nullable(Type.String()),
  metadata: Type.Record(Type.String(), Type.String()),
  contact: Type.Object({ type: Type.String(), value: Type.String(), name: Nullable(Type.String()) }),
  messageType: Type.String(),
  templateName: Nullable(Type.String()),
  messageId: Nullable(Type.String({ description: 'The stored message, once sent or failed' })),
  providerMessageId: Nullable(Type.String()),
  error: Nullable(
    Type.Object({
      code: Type.String({ description: "The provider's error code, e.g. 132001" }),
      message: Type.String(),
      details: Type.Optional(Type.String()),
    }),
  ),
  delivery: Type.Optional(DeliverySchema),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type RequestLogT = Static<typeof RequestLogSchema>;

export const RequestIdParams = Type.Object(
  { requestId: Type.String({ format: 'uuid' }) },
  { additionalProperties: false },
);

export const RequestLogQuery = Type.Object(
  {
    requestId: Type.Optional(Type.String({ format: 'uuid' })),
    status: Type.Optional(Type.Union(REQUEST_STATUSES.map((s) => Type.Literal(s)))),
    flowId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    ...PaginationQuery,
  },
  { additionalProperties: false },
);
export type RequestLogQueryT = Static<typeof RequestLogQuery>;

export const RequestLogPage = pageOf('items', RequestLogSchema);
