import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Nullable, pageOf, PaginationQuery } from '../../http/schemas.js';
import { LARGEST_MEDIA_BYTES } from '../../providers/registry.js';
import { DeliverySchema } from '../messages/delivery.js';
import type { SendTemplateVariables, TemplateVariableValue } from './send.types.js';

/**
 * The contract's send-message request (docs/channel-api.md, "POST /channel-api/messages/send",
 * and the objects under it). The schema fixes the shape — every object refuses unknown fields, every string and array is
 * bounded — while the rules of each message type (which object is required, base64, amounts, totals,
 * template variables) are judged by `prepareMessage`, whose sentences the contract fixes. So fields
 * whose absence or value prepare words itself (e.g. `Base64 payload is required`) stay optional or
 * loosely typed here.
 */

/** Base64 length of the largest file any provider takes (a 100 MB document). */
export const MAX_BASE64_LENGTH = 4 * Math.ceil(LARGEST_MEDIA_BYTES / 3);
/** The send route's own body limit: the largest media in base64 plus room for the rest of the body. */
export const SEND_BODY_LIMIT_BYTES = MAX_BASE64_LENGTH + 1024 * 1024;

const Str = (maxLength: number, description?: string) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });

/**
 * "One of" two JSON types, written as if/then/else on the value's type so that a failure is reported
 * once, by the branch the value is in, instead of once per branch as with anyOf.
 */
function eitherType<T>(whenType: 'string' | 'array', then: TSchema, otherwise: TSchema, description: string) {
  return Type.Unsafe<T>({ description, if: { type: whenType }, then, else: otherwise });
}

const VariableObject = Type.Object(
  {
    value: Str(4096, 'Final value sent for the placeholder'),
    key: Type.Optional(Str(128, 'Name of a named variable in the provider template (parameter_name)')),
    correlationId: Type.Optional(
      Type.Number({ description: 'Legacy placeholder position (1-based) in the component' }),
    ),
  },
  { additionalProperties: false },
);
const VariableValue = eitherType<TemplateVariableValue>(
  'string',
  Str(4096),
  VariableObject,
  'A positional value (string), or `{value, key?, correlationId?}`',
);
const VariableList = Type.Array(VariableValue, { maxItems: 100 });

const VariablesObject = Type.Object(
  {
    header: Type.Optional(VariableList),
    body: Type.Optional(VariableList),
    buttons: Type.Optional(VariableList),
  },
  { additionalProperties: false },
);
const Variables = eitherType<SendTemplateVariables | TemplateVariableValue[]>(
  'array',
  VariableList,
  VariablesObject,
  '`{header?, body?, buttons?}`; a plain array is taken as `body` (legacy format)',
);

/**
 * Not type-checked by the schema: prepareMessage words a wrong amount itself (the contract's
 * sentence). `x-documented-types` gives the API reference its type (see src/http/openapi.ts).
 */
const AmountValue = Type.Unsafe<number | string>({
  description:
    'An integer in the smallest currency unit, or an ERP decimal string in major units ("1.234,56", "1234.56", "25")',
  'x-documented-types': ['integer', 'string'],
});
const Amount = Type.Object(
  {
    value: AmountValue,
    offset: Type.Integer({ description: '100 means two decimal places' }),
  },
  { additionalProperties: false },
);
const Tax = Type.Object(
  {
    value: AmountValue,
    offset: Type.Integer(),
    description: Type.Optional(Str(256)),
  },
  { additionalProperties: false },
);

const PixDynamicCode = Type.Object(
  {
    code: Str(1024, 'Full dynamic payment code from the payment service provider'),
    merchantName: Str(256),
    key: Str(256),
    keyType: Str(16, 'CPF, CNPJ, EMAIL, PHONE or EVP'),
  },
  { additionalProperties: false },
);
const PaymentSetting = Type.Object(
  {
    type: Str(64, '`pix_dynamic_code`'),
    pixDynamicCode: Type.Optional(PixDynamicCode),
  },
  { additionalProperties: false },
);
const OrderItem = Type.Object(
  {
    retailerId: Str(256),
    name: Str(256),
    amount: Amount,
    quantity: Type.Number(),
  },
  { additionalProperties: false },
);
const OrderPayload = Type.Object(
  {
    status: Str(64, '`pending`'),
    items: Type.Array(OrderItem, { maxItems: 999 }),
    subtotal: Amount,
    tax: Type.Optional(Tax),
  },
  { additionalProperties: false },
);
const OrderDetails = Type.Object(
  {
    referenceId: Str(256, 'Unique id of the charge in the issuing system ([A-Za-z0-9_.-], at most 60)'),
    type: Str(64, '`digital-goods` or `physical-goods`'),
    paymentType: Str(64, '`br`'),
    currency: Str(16, '`BRL`'),
    totalAmount: Amount,
    paymentSettings: Type.Array(PaymentSetting, { maxItems: 10 }),
    order: OrderPayload,
  },
  { additionalProperties: false },
);
const TemplateButton = Type.Object(
  {
    index: Type.Number({ description: 'Index of the button within the approved template' }),
    type: Str(64, '`order_details`'),
    orderDetails: OrderDetails,
  },
  { additionalProperties: false },
);

const MediaHeader = Type.Object(
  {
    format: Str(16, '`image`, `video` or `document`'),
    link: Type.Optional(Str(2048, 'Public https URL of the file')),
    fileId: Type.Optional(Str(256, 'Id of a media already at the provider')),
    filename: Type.Optional(Str(255, 'File name, for documents')),
  },
  { additionalProperties: false, description: 'Exactly one of `link` or `fileId`' },
);

/** The contract's TemplateMessage; agents' template replies take the same object. */
export const TemplateMessageSchema = Type.Object(
  {
    name: Str(512, 'Name of a template approved at the provider'),
    language: Type.Optional(Str(16, 'Default `pt_BR`')),
    variables: Type.Optional(Variables),
    mediaHeader: Type.Optional(MediaHeader),
    buttons: Type.Optional(Type.Array(TemplateButton, { maxItems: 10 })),
  },
  { additionalProperties: false },
);

const Text = Type.Object(
  {
    value: Type.String({ description: 'The text, at most 4096 characters' }),
    pushName: Type.Optional(Str(256, 'Push name kept with the stored message')),
  },
  { additionalProperties: false },
);

const Media = Type.Object(
  {
    mimetype: Str(255),
    base64: Type.Optional(
      Nullable(
        Type.String({
          maxLength: MAX_BASE64_LENGTH,
          description:
            'File content in base64, without a `data:` prefix; within the provider limit for its type',
        }),
      ),
    ),
    filename: Type.Optional(Str(255)),
    caption: Type.Optional(Type.String({ description: 'At most 1024 characters' })),
    mediaUrl: Type.Optional(Str(4096, 'Reserved; refused: send `base64`')),
    mediaType: Type.Optional(Str(64, 'Logical type kept with the stored message')),
  },
  { additionalProperties: false },
);

const Message = Type.Object(
  {
    type: Type.Union([Type.Literal('text'), Type.Literal('template'), Type.Literal('media')]),
    text: Type.Optional(Text),
    template: Type.Optional(TemplateMessageSchema),
    media: Type.Optional(Media),
  },
  { additionalProperties: false, description: 'The object named by `type` is required' },
);

export const SendMessageBody = Type.Object(
  {
    contact: Type.Object(
      {
        value: Type.String({
          minLength: 1,
          maxLength: 320,
          description: 'Phone with country and area code, or an email',
        }),
        type: Type.Optional(Type.Union([Type.Literal('phone'), Type.Literal('email')], { default: 'phone' })),
        name: Type.Optional(Str(256, 'Recipient name, request context only')),
      },
      { additionalProperties: false },
    ),
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
