import type { FastifyDynamicSwaggerOptions, SwaggerTransform } from '@fastify/swagger';
import type { FastifySchema } from 'fastify';
import { STATUS_CODES } from 'node:http';
import { guardDoc } from './auth.js';
import { DATABASE_RETRY_AFTER_SECONDS } from './errors.js';
import { BAD_REQUESTS, ErrorBodySchema, type BadRequestCase } from './schemas.js';

/**
 * The OpenAPI 3.0 document served at `/docs/json` (and `/docs/yaml`, `/docs` for the UI). Each
 * route's TypeBox schema gives its parameters, body and answers; what every route shares is
 * derived here, from what the route really runs, rather than repeated by hand in each route:
 *
 * - security and the errors of its guard (401, 429, 503, ...) from the guard's GuardDoc;
 * - 400 for a route that validates input, 413 and 415 for one that takes a JSON body;
 * - `Retry-After` on every 429 and 503;
 * - the few request-schema keywords OpenAPI 3.0 lacks rewritten into ones it has (finishDocument).
 */

const ERROR_BODY = { $ref: 'ErrorBody#' };
const SAFE_METHODS = new Set(['GET', 'HEAD']);

const ERROR_MEANING: Record<number, string> = {
  400: 'Invalid request: `message` lists every problem found (text may hold no NUL character nor unpaired surrogate)',
  401: 'Missing or invalid credential',
  403: 'Not allowed for this user, or a cookie-authenticated write from another site',
  404: 'Not found, or not reachable with this credential',
  409: 'Conflicts with the current state',
  413: 'Request body too large',
  415: 'Content-Type must be application/json',
  429: 'Too many requests: wait `Retry-After` seconds (this answer has no `error` field)',
  503: 'The database cannot be reached: retry after `Retry-After` seconds',
};

export const securitySchemes = {
  accountApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'Account API key of the Channel API: `Authorization: ApiKey <token>`',
  },
  channelApiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'x-channel-api-key',
    description: "A channel's API key, for sending on that channel",
  },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'The `accessToken` of `POST /auth/login`',
  },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'access_token',
    description:
      'The same token as the HttpOnly cookie `POST /auth/login` sets (the web console); writes must come from the console’s own origin',
  },
} as const;

type Responses = Record<string, unknown>;

/**
 * The route's schema as documented: its own answers, plus the errors and security that its guards
 * and inputs imply. A copy: the schema Fastify validates and serialises with is left as it is.
 */
export const documentRoute: SwaggerTransform = ({ schema, url, route }) => {
  if (!schema) return { schema, url };
  const methods = [route.method].flat();
  const guards = [route.onRequest ?? []].flat().map(guardDoc);
  const docs = guards.filter((d) => d !== undefined);
  const derived = new Set<number>();
  for (const doc of docs) {
    doc.errors.forEach((s) => derived.add(s));
    if (methods.some((m) => !SAFE_METHODS.has(m))) doc.writeErrors?.forEach((s) => derived.add(s));
  }
  const s = schema as FastifySchema & { security?: unknown; response?: Responses };
  if (s.body || s.querystring || s.params || s.headers) derived.add(400);
  if (s.body) [413, 415].forEach((c) => derived.add(c));
  const response: Responses = { ...s.response };
  for (const code of [...derived].sort((a, b) => a - b)) response[code] ??= ERROR_BODY;
  // The 400s a request valid by its schema can still get, each with its message (badRequestsWhen).
  const cases = (schema as { [BAD_REQUESTS]?: BadRequestCase[] })[BAD_REQUESTS];
  if (cases && cases.length > 0) {
    response[400] = { ...ERROR_BODY, description: badRequestDescription(cases) };
  }
  // The guard is what the route really asks for; a route's own `security` counts only without one.
  // No guard: a public route, said so explicitly (`security: []`).
  const security = docs.length > 0 ? docs.flatMap((d) => d.security) : (s.security ?? []);
  const { [BAD_REQUESTS]: _cases, ...documented } = schema as Record<string, unknown>;
  return { schema: { ...documented, security, response } as FastifySchema, url };
};

/** `400` described: the schema's failures, then each rule it cannot state with its exact message. */
function badRequestDescription(cases: BadRequestCase[]): string {
  const lines = cases.map(({ message, when }) => `- \`${String(message)}\`: ${when}`);
  return `${ERROR_MEANING[400]}. Besides what the schema states, a valid request is refused when:\n${lines.join('\n')}`;
}

type Json = unknown;
type JsonObject = Record<string, Json>;
const isObject = (v: Json): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Request schemas are JSON Schema for Ajv; two of their keywords are not OpenAPI 3.0's, and are
 * rewritten here, in a copy, into what they mean:
 *
 * - `if: {type: T}, then: A, else: B` (the send body's "a string or an object" and "an array or an
 *   object", written so that Ajv reports only the failing branch) is `oneOf: [A, B]`, exact since A
 *   has type T and B another type;
 * - `propertyNames: {maxLength: N}` (keys of a free-form map) becomes a sentence of the description.
 *
 * And `x-documented-types: [T1, T2]`, on a value the schema leaves to the service to check (so that
 * the service's sentence is the one a client gets), is documented as `oneOf: [{type: T1}, {type: T2}]`.
 *
 * Anything else of the kind throws, so a new keyword is seen in the tests, not by a client.
 */
function toOpenApi30(node: Json, path: string): Json {
  if (Array.isArray(node)) return node.map((v, i) => toOpenApi30(v, `${path}/${i}`));
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(node)) out[k] = toOpenApi30(v, `${path}/${k}`);
  // Property names are data, not keywords: `properties: {if: ...}` is a field called `if`.
  if (path.endsWith('/properties')) return out;
  if ('x-documented' in out) {
    // Rules a service checks in its own (binding) words: stated here for clients, merged in.
    const { 'x-documented': keywords, ...rest } = out;
    if (!isObject(keywords)) throw new Error(`${path}: x-documented must be an object of keywords`);
    const required = [
      ...(Array.isArray(rest.required) ? rest.required : []),
      ...(Array.isArray(keywords.required) ? keywords.required : []),
    ];
    return toOpenApi30({ ...rest, ...keywords, ...(required.length > 0 ? { required } : {}) }, path);
  }
  if ('if' in out || 'then' in out || 'else' in out) {
    const { if: condition, then, else: otherwise, ...rest } = out;
    if (!isObject(then) || !isObject(otherwise)) throw new Error(`${path}: if needs then and else`);
    const tag = tagCondition(condition);
    if (tag) {
      // `if: {k is v} then A else B` is exactly `oneOf: [{k is v, A}, {not k is v, B}]`.
      const is = { required: [tag.name], properties: { [tag.name]: { enum: [tag.value] } } };
      return { ...rest, oneOf: [merge(is, then), { ...otherwise, not: is }] };
    }
    const type = isObject(condition) && Object.keys(condition).length === 1 ? condition.type : undefined;
    if (typeof type !== 'string') {
      throw new Error(
        `${path}: only if/then/else on a value's type or on a property's value can be documented`,
      );
    }
    if (then.type !== type || otherwise.type === undefined || otherwise.type === type) {
      throw new Error(`${path}: the then branch must have the if's type, the else branch another one`);
    }
    return { ...rest, oneOf: [then, otherwise] };
  }
  if ('x-documented-types' in out) {
    // A value the service checks rather than the schema: documented with the types it takes.
    const { 'x-documented-types': types, ...rest } = out;
    if (!Array.isArray(types) || types.some((t) => typeof t !== 'string') || 'type' in rest) {
      throw new Error(`${path}: x-documented-types must be a list of type names, on a schema without type`);
    }
    return { ...rest, oneOf: types.map((type) => ({ type })) };
  }
  if ('propertyNames' in out) {
    const { propertyNames, ...rest } = out;
    const max = isObject(propertyNames) ? propertyNames.maxLength : undefined;
    if (typeof max !== 'number' || Object.keys(propertyNames as JsonObject).length !== 1) {
      throw new Error(`${path}: only propertyNames {maxLength} can be documented`);
    }
    const sentence = `Keys are at most ${max} characters.`;
    const description = typeof rest.description === 'string' ? `${rest.description}. ${sentence}` : sentence;
    return { ...rest, description };
  }
  return out;
}

/** `{properties: {k: {const: v}}, required: [k]}` (a tag's value) as `{name: k, value: v}`. */
function tagCondition(condition: Json): { name: string; value: Json } | undefined {
  if (!isObject(condition) || !isObject(condition.properties)) return undefined;
  const names = Object.keys(condition.properties);
  const required = condition.required;
  if (names.length !== 1 || !Array.isArray(required) || required.length !== 1 || required[0] !== names[0]) {
    return undefined;
  }
  const test = condition.properties[names[0]!];
  if (!isObject(test)) return undefined;
  const values = 'const' in test ? [test.const] : Array.isArray(test.enum) ? test.enum : [];
  return values.length === 1 ? { name: names[0]!, value: values[0] } : undefined;
}

/** Two object schemas' properties and required lists together (the rest of `b` wins). */
function merge(a: JsonObject, b: JsonObject): JsonObject {
  const props = {
    ...(isObject(a.properties) ? a.properties : {}),
    ...(isObject(b.properties) ? b.properties : {}),
  };
  const required = [
    ...(Array.isArray(a.required) ? a.required : []),
    ...(Array.isArray(b.required) ? b.required : []),
  ];
  return { ...a, ...b, properties: props, required };
}

const retryAfter = (description: string) => ({
  'Retry-After': { description, schema: { type: 'integer', minimum: 0 } },
});

/** The generated document, finished: OpenAPI 3.0 keywords, error descriptions, `Retry-After`. */
export function finishDocument(document: JsonObject): JsonObject {
  // A copy: the generated document shares schema objects with the routes' own schemas.
  const doc = toOpenApi30(JSON.parse(JSON.stringify(document)) as Json, '#') as JsonObject;
  nameDiscriminatedBranches(doc);
  const paths = isObject(doc.paths) ? doc.paths : {};
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue;
    for (const operation of Object.values(item)) {
      if (!isObject(operation) || !isObject(operation.responses)) continue;
      for (const [code, response] of Object.entries(operation.responses)) {
        const status = Number(code);
        if (!isObject(response) || status < 400) continue;
        // Fastify's placeholder, or the error body's own description: say what this status means.
        if (
          response.description === 'Default Response' ||
          response.description === ErrorBodySchema.description
        ) {
          response.description = ERROR_MEANING[status] ?? STATUS_CODES[status] ?? 'Error';
        }
        if (status === 429) response.headers ??= retryAfter('Seconds until the budget allows a request');
        if (status === 503 && isErrorBody(response)) {
          response.headers ??= retryAfter(
            `Seconds to wait before retrying (${DATABASE_RETRY_AFTER_SECONDS})`,
          );
        }
      }
    }
  }
  return doc;
}

/**
 * A discriminator selects among named schemas in OpenAPI: each inline branch of a discriminated
 * oneOf (validated inline by Ajv) moves to `components.schemas` under its `title`, with the mapping
 * from its tag value.
 */
function nameDiscriminatedBranches(doc: JsonObject): void {
  const components = (doc.components ??= {}) as JsonObject;
  const schemas = (components.schemas ??= {}) as JsonObject;
  const visit = (node: Json, path: string): void => {
    if (Array.isArray(node)) return node.forEach((v, i) => visit(v, `${path}/${i}`));
    if (!isObject(node)) return;
    Object.entries(node).forEach(([k, v]) => visit(v, `${path}/${k}`));
    if (!isObject(node.discriminator) || !Array.isArray(node.oneOf)) return;
    const tag = String(node.discriminator.propertyName);
    const mapping: Record<string, string> = {};
    node.oneOf = node.oneOf.map((branch, i) => {
      const value = isObject(branch) && isObject(branch.properties) ? branch.properties[tag] : undefined;
      const values = isObject(value) && Array.isArray(value.enum) ? value.enum : [];
      if (!isObject(branch) || typeof branch.title !== 'string' || values.length !== 1) {
        throw new Error(`${path}/oneOf/${i}: a discriminated branch needs a title and one ${tag} value`);
      }
      const ref = `#/components/schemas/${branch.title}`;
      if (
        schemas[branch.title] !== undefined &&
        JSON.stringify(schemas[branch.title]) !== JSON.stringify(branch)
      ) {
        throw new Error(`${path}/oneOf/${i}: another schema is already named ${branch.title}`);
      }
      schemas[branch.title] = branch;
      mapping[String(values[0])] = ref;
      return { $ref: ref };
    });
    node.discriminator = { propertyName: tag, mapping };
  };
  visit(doc.paths, '#/paths');
}

/** Whether a documented response is the shared error body. */
export function isErrorBody(response: Json): boolean {
  if (!isObject(response) || !isObject(response.content)) return false;
  const json = response.content['application/json'];
  return isObject(json) && isObject(json.schema) && json.schema.$ref === '#/components/schemas/ErrorBody';
}

export function swaggerOptions(): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Atende API',
        version: '1.0.0',
        description:
          'Channel API (`/channel-api`, account and channel API keys), agent/admin API (`/api`, JWT as a bearer token or the session cookie) and authentication. Errors always use the body `{statusCode, message, error}`; 429 has no `error`.',
      },
      // Relative: the API is wherever this document was loaded from (a proxy may add a prefix).
      servers: [{ url: '/', description: 'The server this document was loaded from' }],
      components: { securitySchemes: securitySchemes as never },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transform: documentRoute,
    transformObject: (document) =>
      'openapiObject' in document
        ? finishDocument(document.openapiObject as JsonObject)
        : document.swaggerObject,
  };
}
