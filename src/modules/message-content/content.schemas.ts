/* eslint-disable max-lines -- one contract, the message object of a send and of a reply with every bound the API reference states. */
import { Type, type Static, type TSchema, type TUnion } from '@sinclair/typebox';
import { NOT_BLANK_PATTERN } from '../../http/validation-messages.js';
import { NonBlank, Nullable } from '../../http/schemas.js';
import {
  CAPTION_MAX_LENGTH,
  LARGEST_MEDIA_BYTES,
  MEDIA_TYPES_OF_EVERY_PROVIDER,
  TEXT_MAX_LENGTH,
} from '../../providers/registry.js';
import type { JsonBodyOptions } from '../../http/json-body.js';
import type { SendTemplateVariables, TemplateVariableValue } from './content.types.js';

/**
 * The message of the contract's send-message request (docs/channel-api.md, "POST
 * /channel-api/messages/send") and of an agent's reply: text, media, template (with its buttons'
 * order details), and how such a body is read. The schema fixes the shape — every object refuses unknown fields, every string and array is
 * bounded — while the rules of each message type (which object is required, base64, amounts, totals,
 * template variables) are judged by `prepareMessage`, whose sentences the contract fixes. So fields
 * whose absence or value prepare words itself (e.g. `Base64 payload is required`) stay optional or
 * loosely typed here.
 */

export { TEXT_MAX_LENGTH };

/** Base64 length of the largest file any provider takes (a 100 MB document). */
export const MAX_BASE64_LENGTH = 4 * Math.ceil(LARGEST_MEDIA_BYTES / 3);
/**
 * Most bytes of a send body besides `media.base64`: far more than any valid message takes (a template
 * body is at most 1,024 characters at the provider), and little enough to parse in a few milliseconds.
 */
export const SEND_ENVELOPE_LIMIT_BYTES = 1024 * 1024;
/** The send route's own body limit: the largest media in base64 plus room for the rest of the body. */
export const SEND_BODY_LIMIT_BYTES = MAX_BASE64_LENGTH + SEND_ENVELOPE_LIMIT_BYTES;
/** Most members of one object or array in a send or reply body: the longest list (order items) is 999. */
const SEND_MAX_MEMBERS = 1_000;

/** How the send route reads its body: the media's base64 streamed to its decoder, the rest bounded. */
export const SEND_JSON_BODY: JsonBodyOptions = {
  streamBase64At: ['message', 'media', 'base64'],
  envelopeLimit: SEND_ENVELOPE_LIMIT_BYTES,
  maxMembers: SEND_MAX_MEMBERS,
};
/** The same for an agent's reply, whose media is at the body's top. */
export const REPLY_JSON_BODY: JsonBodyOptions = { ...SEND_JSON_BODY, streamBase64At: ['media', 'base64'] };

export const Str = (maxLength: number, description?: string) =>
  Type.String({ maxLength, ...(description ? { description } : {}) });

/**
 * Strict base64 as prepareMessage reads it (`base64DecodedLength`): the standard alphabet, `=` padding
 * to a multiple of 4, no white space, and zero unused bits in the last character before the padding.
 */
export const STRICT_BASE64_PATTERN =
  '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{4}|[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)$';

/**
 * Rules prepareMessage judges, in the contract's own words (`Base64 payload is required`, ...), that
 * the schema states for the API reference and generated clients without checking them itself: they
 * are merged into the documented schema (`x-documented`, see src/http/openapi.ts).
 */
const documented = (keywords: Record<string, unknown>) => ({ 'x-documented': keywords });

/** `image/png`, `IMAGE/PNG; x=y`: a type every provider takes, as prepareMessage reads it. */
const MEDIA_TYPE_PATTERN = `^\\s*(?:${MEDIA_TYPES_OF_EVERY_PROVIDER.map(caseless).join('|')})\\s*(?:;[\\s\\S]*)?$`;

/** A pattern matching `text` in any letter case (JSON Schema patterns take no flags). */
function caseless(text: string): string {
  return [...text]
    .map((c) =>
      c.toLowerCase() !== c.toUpperCase()
        ? `[${c.toLowerCase()}${c.toUpperCase()}]`
        : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('');
}

const Mimetype = Type.String({
  maxLength: 255,
  pattern: MEDIA_TYPE_PATTERN,
  description: `One of ${MEDIA_TYPES_OF_EVERY_PROVIDER.join(', ')} (any letter case; parameters such as \`; codecs=opus\` are allowed)`,
  'x-error-message': [
    `must be one of the following values: ${MEDIA_TYPES_OF_EVERY_PROVIDER.join(', ')}`,
    `deve ser um dos seguintes valores: ${MEDIA_TYPES_OF_EVERY_PROVIDER.join(', ')}`,
  ],
});

const Base64 = (description: string) =>
  Type.String({
    maxLength: MAX_BASE64_LENGTH,
    description,
    ...documented({ minLength: 4, pattern: STRICT_BASE64_PATTERN, nullable: false }),
  });

/**
 * "One of" two JSON types, written as if/then/else on the value's type so that a failure is reported
 * once, by the branch the value is in, instead of once per branch as with anyOf.
 */
function eitherType<T>(whenType: 'string' | 'array', then: TSchema, otherwise: TSchema, description: string) {
  return Type.Unsafe<T>({ description, if: { type: whenType }, then, else: otherwise });
}

const NOT_BLANK = documented({ pattern: NOT_BLANK_PATTERN });
const enumOf = (...values: string[]) => documented({ enum: values });

const VariableObject = Type.Object(
  {
    value: Type.String({
      maxLength: 4096,
      description: 'Final value sent for the placeholder',
      ...NOT_BLANK,
    }),
    key: Type.Optional(
      Type.String({
        maxLength: 128,
        description: 'Name of a named variable in the provider template (parameter_name)',
        ...documented({ pattern: '^[a-z_][a-z0-9_]*$' }),
      }),
    ),
    correlationId: Type.Optional(
      Type.Number({
        description: 'Legacy placeholder position (1-based) in the component',
        ...documented({ type: 'integer', minimum: 1 }),
      }),
    ),
  },
  { additionalProperties: false },
);
const VariableValue = eitherType<TemplateVariableValue>(
  'string',
  Type.String({ maxLength: 4096, ...NOT_BLANK }),
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
    keyType: Type.String({ maxLength: 16, ...enumOf('CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP') }),
  },
  { additionalProperties: false },
);
const PaymentSetting = Type.Object(
  {
    type: Type.String({ maxLength: 64, ...enumOf('pix_dynamic_code') }),
    pixDynamicCode: Type.Optional(PixDynamicCode),
  },
  { additionalProperties: false, ...documented({ required: ['pixDynamicCode'] }) },
);
const OrderItem = Type.Object(
  {
    retailerId: Str(256),
    name: Type.String({ maxLength: 256, ...documented({ maxLength: 60 }) }),
    amount: Amount,
    quantity: Type.Number({ ...documented({ type: 'integer', minimum: 1 }) }),
  },
  { additionalProperties: false },
);
const OrderPayload = Type.Object(
  {
    status: Type.String({ maxLength: 64, ...enumOf('pending') }),
    items: Type.Array(OrderItem, { maxItems: 999, ...documented({ minItems: 1 }) }),
    subtotal: Amount,
    tax: Type.Optional(Tax),
  },
  { additionalProperties: false },
);
const OrderDetails = Type.Object(
  {
    referenceId: Type.String({
      maxLength: 256,
      description: 'Unique id of the charge in the issuing system',
      ...documented({ pattern: '^[A-Za-z0-9_.-]{1,60}$' }),
    }),
    type: Type.String({ maxLength: 64, ...enumOf('digital-goods', 'physical-goods') }),
    paymentType: Type.String({ maxLength: 64, ...enumOf('br') }),
    currency: Type.String({ maxLength: 16, ...enumOf('BRL') }),
    totalAmount: Amount,
    paymentSettings: Type.Array(PaymentSetting, { maxItems: 10, ...documented({ minItems: 1 }) }),
    order: OrderPayload,
  },
  { additionalProperties: false },
);
const TemplateButton = Type.Object(
  {
    index: Type.Number({
      description: 'Index of the button within the approved template',
      ...documented({ type: 'integer', minimum: 0 }),
    }),
    type: Type.String({ maxLength: 64, ...enumOf('order_details') }),
    orderDetails: OrderDetails,
  },
  { additionalProperties: false },
);

const MediaHeader = Type.Object(
  {
    format: Type.String({ maxLength: 16, ...enumOf('image', 'video', 'document') }),
    link: Type.Optional(
      Type.String({
        maxLength: 2048,
        description: 'Public https URL of the file',
        ...documented({ pattern: '^[Hh][Tt][Tt][Pp][Ss]://[A-Za-z0-9.-]+(?::[0-9]{1,4})?(?:[/?#]\\S*)?$' }),
      }),
    ),
    fileId: Type.Optional(
      Type.String({ maxLength: 256, description: 'Id of a media already at the provider', ...NOT_BLANK }),
    ),
    filename: Type.Optional(Str(255, 'File name, only when `format` is `document`')),
  },
  {
    additionalProperties: false,
    description: 'Exactly one of `link` or `fileId`',
    ...documented({ oneOf: [{ required: ['link'] }, { required: ['fileId'] }] }),
  },
);

/**
 * The contract's TemplateMessage; agents' template replies take the same object. `strict`: the
 * template of a `template` message (or reply); otherwise an object the message's type leaves unread.
 */
const templateMessage = (strict: boolean) =>
  Type.Object(
    {
      name: strict
        ? NonBlank({ maxLength: 512, description: 'Name of a template approved at the provider' })
        : Str(512),
      language: Type.Optional(strict ? NonBlank({ maxLength: 16, description: 'Default `pt_BR`' }) : Str(16)),
      variables: Type.Optional(Variables),
      mediaHeader: Type.Optional(MediaHeader),
      buttons: Type.Optional(Type.Array(TemplateButton, { maxItems: 10 })),
    },
    { additionalProperties: false },
  );
export const TemplateMessageSchema = templateMessage(true);

const textMessage = (strict: boolean) =>
  Type.Object(
    {
      value: strict
        ? NonBlank({ maxLength: TEXT_MAX_LENGTH, description: 'The text' })
        : Type.String({ description: 'The text' }),
      pushName: Type.Optional(Str(256, 'Push name kept with the stored message')),
    },
    { additionalProperties: false },
  );

/** `strict`: the media of a `media` message; otherwise an object the message's type leaves unread. */
const mediaMessage = (strict: boolean) =>
  Type.Object(
    {
      mimetype: strict ? Mimetype : Str(255),
      base64: Type.Optional(
        Nullable(
          strict
            ? Base64(
                'File content in base64, without a `data:` prefix; within the provider limit for its type. Required (`Base64 payload is required`)',
              )
            : Type.String({ maxLength: MAX_BASE64_LENGTH }),
        ),
      ),
      filename: Type.Optional(Str(255)),
      caption: Type.Optional(
        strict
          ? Type.String({
              maxLength: CAPTION_MAX_LENGTH,
              description: 'Not for audio nor stickers (`image/webp`)',
            })
          : Type.String(),
      ),
      mediaUrl: Type.Optional(
        Type.String({
          maxLength: 4096,
          description: 'Reserved; refused: send `base64`',
          ...(strict ? documented({ maxLength: 0 }) : {}),
        }),
      ),
      mediaType: Type.Optional(Str(64, 'Logical type kept with the stored message')),
    },
    // Required for a media message, in the contract's words: prepareMessage says it.
    { additionalProperties: false, ...(strict ? documented({ required: ['base64'] }) : {}) },
  );

/** An agent's media reply: the same rules as a Channel API media message. */
export const ReplyMediaSchema = Type.Object(
  {
    mimetype: Mimetype,
    base64: Base64(
      'File content in base64, without a `data:` prefix; within the provider limit for its type',
    ),
    filename: Type.Optional(Type.String({ maxLength: 255 })),
    caption: Type.Optional(
      Type.String({
        maxLength: CAPTION_MAX_LENGTH,
        description: 'Not for audio nor stickers (`image/webp`)',
      }),
    ),
  },
  { additionalProperties: false },
);

const MESSAGE_TYPES = ['text', 'template', 'media'] as const;

/**
 * A message of one type: its object required and held to its rules; the other two objects, which
 * this type leaves unread, keep only their shape (the contract never refused them).
 */
const branch = (type: string) => ({
  title: `Send${type[0]!.toUpperCase()}${type.slice(1)}Message`,
  additionalProperties: false,
  description: `A \`${type}\` message: \`${type}\` is required`,
});
const TextMessage = Type.Object(
  {
    type: Type.Literal('text'),
    text: textMessage(true),
    template: Type.Optional(templateMessage(false)),
    media: Type.Optional(mediaMessage(false)),
  },
  branch('text'),
);
const TemplateMessage = Type.Object(
  {
    type: Type.Literal('template'),
    text: Type.Optional(textMessage(false)),
    template: templateMessage(true),
    media: Type.Optional(mediaMessage(false)),
  },
  branch('template'),
);
const MediaMessage = Type.Object(
  {
    type: Type.Literal('media'),
    text: Type.Optional(textMessage(false)),
    template: Type.Optional(templateMessage(false)),
    media: mediaMessage(true),
  },
  branch('media'),
);
const MessageBranches = [TextMessage, TemplateMessage, MediaMessage];

/** OpenAPI's discriminator on `type`: a failure reports the named type's rules only. */
export const Message = Type.Unsafe<
  Static<TUnion<[typeof TextMessage, typeof TemplateMessage, typeof MediaMessage]>>
>({
  type: 'object',
  required: ['type'],
  properties: { type: Type.Union(MESSAGE_TYPES.map((t) => Type.Literal(t))) },
  discriminator: { propertyName: 'type' },
  oneOf: MessageBranches,
  description: 'The object named by `type` is required',
});

/**
 * The rules of a message that no schema states (they tie fields together, or depend on sizes and
 * amounts), as prepareMessage words them; `prefix` is `message.` on the Channel API, empty on a reply.
 * Listed in the route's documented 400.
 */
export function messageRulesJudgedOnSend(prefix: string): Array<[string, string]> {
  const t = `${prefix}template`;
  return [
    [
      `${prefix}media.base64 must decode to at most <size> for <kind>, got <n> bytes`,
      'the file is larger than the provider takes for its kind (image 5 MB, video and audio 16 MB, document 100 MB, sticker 500 KB)',
    ],
    [`${prefix}media.caption is not allowed for <kind>`, 'a caption on audio or a sticker (`image/webp`)'],
    [
      `${t}.mediaHeader.filename is only allowed when format is document`,
      'a filename on an image or video header',
    ],
    [
      `${t}.variables.header must be empty when template.mediaHeader is given`,
      'header values and a media header together',
    ],
    [
      `${t}.variables.<component> must not mix named values (with key) and positional ones`,
      'some values of a component have `key` and others not',
    ],
    [`${t}.variables.<component>[i].key repeats …`, 'two values of a component have the same `key`'],
    [
      `${t}.variables.<component>[i].correlationId must not be greater than <n> (the number of values in …)`,
      'a `correlationId` beyond the number of values, or one used twice (`<n> is used by another value`)',
    ],
    [
      `${t}.variables.buttons[i] targets button index <i>, which already has a value`,
      'two values for the same button, or a button index used twice (`is already used by another button`)',
    ],
    [
      `${t}.buttons[i].orderDetails.… must equal the sum of item amounts times quantities (…)`,
      'amounts that do not add up (subtotal = Σ amount × quantity, total = subtotal + tax), or an amount its `offset` cannot hold (`offset must be a power of ten`, `has more decimal places than offset …`)',
    ],
  ];
}
