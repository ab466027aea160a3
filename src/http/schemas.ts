import { Type, type Static, type StringOptions, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { NOT_BLANK_PATTERN } from './errors.js';

/** Shapes shared by several modules: the contract's resources and the error body. */

export const ObjectIdString = (opts: { description?: string } = {}) =>
  Type.String({ format: 'objectid', ...opts });

/**
 * A string with at least one character other than white space: what the services call empty they
 * trim first. A failure reads `<field> should not be empty`, as theirs did.
 */
export const NonBlank = (opts: StringOptions = {}) =>
  Type.String({ minLength: 1, pattern: NOT_BLANK_PATTERN, ...opts });

/**
 * `oneOf: [{required: [a]}, {required: [b]}, ...]`: exactly one of these optional properties of the
 * object is given. A failure reads `exactly one of a or b must be given` (http/errors.ts).
 */
export const exactlyOneOf = (...names: string[]) => names.map((name) => ({ required: [name] }));

export const IdParams = Type.Object(
  { id: ObjectIdString({ description: 'Resource id (ObjectId)' }) },
  {
    additionalProperties: false,
  },
);

export const ErrorBodySchema = Type.Object(
  {
    statusCode: Type.Integer(),
    message: Type.Union([Type.String(), Type.Array(Type.String())]),
    error: Type.Optional(Type.String()),
  },
  { $id: 'ErrorBody', description: 'The error body of every failure; `error` is absent from 429 answers.' },
);

/**
 * `T | null`, written as a JSON Schema type list (`type: ['string', 'null']`) rather than `anyOf`.
 * Ajv coerces scalars (coerceTypes) only when a value has none of the listed types, so `null` stays
 * null and `""`, `0`, `false` keep their type; with `anyOf` Ajv tries the branches in turn and
 * coerces into the first one that takes the value (`description: null` stored as `""`, or, with
 * `null` first, `channelIds: ""` taken as null, i.e. every channel).
 */
export const Nullable = <T extends TSchema>(schema: T): TUnsafe<Static<T> | null> => {
  const plain = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return typeof plain.type === 'string'
    ? Type.Unsafe<Static<T> | null>({ ...plain, type: [plain.type, 'null'] })
    : Type.Unsafe<Static<T> | null>({ anyOf: [plain, { type: 'null' }] });
};

export const LastMessageSchema = Type.Object({
  id: Type.String(),
  origin: Type.String({ description: 'contact, user, api or system' }),
  type: Type.String(),
  content: Type.String({ description: 'Text of the message, or a summary such as [image] for media' }),
  createdAt: Type.String({ format: 'date-time' }),
  userId: Type.Optional(Type.String({ description: 'The agent who wrote it, for `user` messages' })),
});

export const ChatSchema = Type.Object({
  id: Type.String(),
  status: Type.String({ description: '`open` or `closed`' }),
  queue: Type.String(),
  channelId: Type.String(),
  teamId: Type.String(),
  userId: Nullable(Type.String()),
  contact: Type.Object({ id: Type.String(), name: Type.String(), value: Type.String() }),
  unreadMessages: Type.Integer(),
  lastMessage: Nullable(LastMessageSchema),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

/** How long a customer's message keeps the customer-service window open. */
export const CUSTOMER_WINDOW_MS = 24 * 60 * 60 * 1000;

export const ChatWindowSchema = Type.Object(
  {
    open: Type.Boolean({
      description:
        'Whether free text and media may be sent now; when false only a template reaches the customer',
    }),
    expiresAt: Nullable(
      Type.String({
        format: 'date-time',
        description: "24 hours after the customer's last message; null when the customer never wrote",
      }),
    ),
  },
  { description: "The 24-hour customer-service window, opened by each of the customer's messages" },
);

/**
 * The chat as agents (agent API, gateway events, webhooks) see it: the contract's Chat plus the
 * customer-service window. The Channel API answers with `ChatSchema`, whose serializer leaves
 * `window` out, so its Chat stays exactly the contract's.
 */
export const AgentChatSchema = Type.Object({ ...ChatSchema.properties, window: ChatWindowSchema });
export type ChatT = Static<typeof AgentChatSchema>;
export type ChatWindowT = Static<typeof ChatWindowSchema>;

/** The window as of `now`, from when the customer last wrote. */
export function chatWindow(lastInboundAt: Date | null, now = Date.now()): ChatWindowT {
  if (!lastInboundAt) return { open: false, expiresAt: null };
  const expires = lastInboundAt.getTime() + CUSTOMER_WINDOW_MS;
  return { open: now < expires, expiresAt: new Date(expires).toISOString() };
}

export const pageOf = <T extends TSchema>(key: string, item: T) =>
  Type.Object({
    total: Type.Integer(),
    page: Type.Integer(),
    limit: Type.Integer(),
    hasNextPage: Type.Boolean(),
    nextPage: Nullable(Type.Integer()),
    [key]: Type.Array(item),
  });

export const ChatPageSchema = pageOf('chats', ChatSchema);
export const AgentChatPageSchema = pageOf('chats', AgentChatSchema);

export const UserSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  email: Type.String(),
  status: Type.String({ description: '`active`, `onboarding` or `cancelled`' }),
  role: Type.Object({ id: Type.String(), name: Type.String() }),
});
export type UserT = Static<typeof UserSchema>;

export const TeamSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Nullable(Type.String()),
  status: Type.String({ description: '`active` or `inactive`' }),
  members: Type.Array(Type.String()),
});
export type TeamT = Static<typeof TeamSchema>;

/** Page and limit, with the contract's bounds. */
export const PaginationQuery = {
  page: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      default: 1,
      description: 'Page number, from 1',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Page size, 1 to 100' }),
  ),
};

export function pageInfo(total: number, page: number, limit: number) {
  const hasNextPage = page * limit < total;
  return { total, page, limit, hasNextPage, nextPage: hasNextPage ? page + 1 : null };
}

/** Where a route schema lists its `badRequestsWhen` cases (read by the OpenAPI build only). */
export const BAD_REQUESTS = 'x-bad-requests';

/** A 400 that a request valid by its schema can still get: its exact message, and when. */
export interface BadRequestCase {
  message: string | { toString(): string };
  when: string;
}

/**
 * The rules of a route that no schema can state — ids that do not exist, what is stored, other
 * resources — listed in its documented 400 with their exact messages. Spread into the route schema.
 */
export const badRequestsWhen = (...cases: Array<[message: BadRequestCase['message'], when: string]>) => ({
  [BAD_REQUESTS]: cases.map(([message, when]) => ({ message, when })),
});

export const errorResponses = (...codes: number[]) =>
  Object.fromEntries(codes.map((c) => [c, { $ref: 'ErrorBody#' }]));
