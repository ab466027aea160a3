import { Type, type Static, type StringOptions, type TSchema, type TUnsafe } from '@sinclair/typebox';
import { NOT_BLANK_PATTERN } from './validation-messages.js';

/** Building blocks of every module's schemas: ids, non-blank strings, nullable values, pages, the error body. */

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

export const pageOf = <T extends TSchema>(key: string, item: T) =>
  Type.Object({
    total: Type.Integer(),
    page: Type.Integer(),
    limit: Type.Integer(),
    hasNextPage: Type.Boolean(),
    nextPage: Nullable(Type.Integer()),
    [key]: Type.Array(item),
  });

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

/**
 * One frozen reference shared by every route: response serializers are compiled once per schema object
 * (http/serialization.ts), so all the error answers of the API share one per status code.
 */
const ERROR_BODY_REF = Object.freeze({ $ref: 'ErrorBody#' });

export const errorResponses = (...codes: number[]) =>
  Object.fromEntries(codes.map((c) => [c, ERROR_BODY_REF]));
