import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/unavailable.js';

/** The contract's error body. `error` is left out only of 429 answers. */
export interface ErrorBody {
  statusCode: number;
  message: string | string[];
  error?: string;
}

export function errorBody(statusCode: number, message: string | string[]): ErrorBody {
  return { statusCode, message, error: STATUS_CODES[statusCode] ?? 'Error' };
}

/** A failure with a defined HTTP answer; services throw these, the error handler renders them. */
export class AppError extends Error {
  constructor(
    public readonly statusCode: number,
    public readonly body: string | string[],
    public readonly headers: Record<string, string> = {},
    public readonly omitErrorField = false,
  ) {
    super(Array.isArray(body) ? body.join('; ') : body);
    this.name = 'AppError';
  }
}

export const badRequest = (message: string | string[]) => new AppError(400, message);
export const unauthorized = (message = 'Credencial ausente ou inválida') => new AppError(401, message);
export const forbidden = (message = 'Forbidden') => new AppError(403, message);
export const notFound = (message = 'Not Found') => new AppError(404, message);
export const conflict = (message: string) => new AppError(409, message);

/** Seconds a client is asked to wait when the database is unreachable: about a restart's length. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;
export const DATABASE_UNAVAILABLE_MESSAGE =
  'The service is temporarily unavailable because its database cannot be reached; try again shortly';
export const databaseUnavailable = () =>
  new AppError(503, DATABASE_UNAVAILABLE_MESSAGE, { 'Retry-After': String(DATABASE_RETRY_AFTER_SECONDS) });

interface AjvError {
  keyword: string;
  instancePath: string;
  schemaPath?: string;
  params: Record<string, unknown>;
  message?: string;
}

const CONST_BRANCH = /^(.*\/anyOf)\/\d+\/const$/;
const NULL_BRANCH = /\/anyOf\/\d+\/type$/;

/**
 * TypeBox writes an enum as a union of literals, which fails with one `const` error per branch. Finds
 * the unions whose branches all failed that way, so they are reported once, class-validator style.
 * Returns the allowed values per `instancePath + anyOf schemaPath`; linear in the errors.
 */
function literalUnions(errors: AjvError[]): Map<string, string[]> {
  const values = new Map<string, string[]>();
  const mixed = new Set<string>(); // anyOf paths where some branch failed otherwise
  for (const e of errors) {
    const path = e.schemaPath ?? '';
    const m = e.keyword === 'const' ? CONST_BRANCH.exec(path) : null;
    if (m) {
      const key = `${e.instancePath}\u0000${m[1]}`;
      const list = values.get(key) ?? [];
      const v = String(e.params.allowedValue);
      if (!list.includes(v)) list.push(v);
      values.set(key, list);
    } else if (e.keyword !== 'anyOf') {
      for (let i = path.indexOf('/anyOf/'); i >= 0; i = path.indexOf('/anyOf/', i + 1)) {
        mixed.add(path.slice(0, i + '/anyOf'.length));
      }
    }
  }
  for (const key of values.keys()) if (mixed.has(key.split('\u0000')[1] ?? '')) values.delete(key);
  return values;
}

const FORMAT_WORDING: Record<string, string> = {
  objectid: 'must be a 24-character hexadecimal id',
  uuid: 'must be a UUID',
  email: 'must be an email',
  uri: 'must be a URL address',
  'date-time': 'must be a valid ISO 8601 date string',
};

const TYPE_WORDING: Record<string, string> = {
  integer: 'must be an integer number',
  number: 'must be a number conforming to the specified constraints',
  string: 'must be a string',
  boolean: 'must be a boolean value',
  array: 'must be an array',
  object: 'must be an object',
  null: 'must be null',
};

/**
 * Most sentences one validation failure reports. A huge array of bad items would otherwise give one
 * sentence per item: megabytes of answer, and seconds of work, for a few kilobytes of request.
 */
export const MAX_VALIDATION_MESSAGES = 50;

/**
 * Turns Ajv errors into the sentences clients of this API already parse (class-validator wording),
 * e.g. `limit must not be greater than 100`, `property foo should not exist`.
 */
export function validationMessages(errors: AjvError[], context?: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const unions = literalUnions(errors);
  // `maxProperties` on an object that refuses unknown properties only says there are unknown ones:
  // when those are named, the count adds nothing.
  const named = new Set(
    errors.filter((e) => e.keyword === 'additionalProperties').map((e) => e.instancePath),
  );
  const unionOf = (e: AjvError, anyOfPath: string | undefined) =>
    anyOfPath === undefined ? undefined : unions.get(`${e.instancePath}\u0000${anyOfPath}`);
  const push = (s: string) => {
    if (!seen.has(s)) {
      seen.add(s);
      out.push(s);
    }
  };
  for (const e of errors) {
    if (out.length >= MAX_VALIDATION_MESSAGES) break;
    const prop = e.instancePath
      .split('/')
      .filter(Boolean)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .join('.');
    const name = prop || (context === 'body' ? 'body' : context || 'value');
    const join = (child: string) => (prop ? `${prop}.${child}` : child);
    const p = e.params;
    if (e.keyword === 'const' && unionOf(e, CONST_BRANCH.exec(e.schemaPath ?? '')?.[1])) continue;
    // The `null` branch of a nullable field: the other branch's errors say what is wrong.
    if (e.keyword === 'type' && p.type === 'null' && NULL_BRANCH.test(e.schemaPath ?? '')) continue;
    switch (e.keyword) {
      case 'maximum':
        push(`${name} must not be greater than ${String(p.limit)}`);
        break;
      case 'minimum':
        push(`${name} must not be less than ${String(p.limit)}`);
        break;
      case 'exclusiveMinimum':
        push(`${name} must be greater than ${String(p.limit)}`);
        break;
      case 'exclusiveMaximum':
        push(`${name} must be less than ${String(p.limit)}`);
        break;
      case 'type': {
        const t = String(p.type).split(',')[0] ?? '';
        push(`${name} ${TYPE_WORDING[t] ?? `must be ${String(p.type)}`}`);
        break;
      }
      case 'required':
        push(`${join(String(p.missingProperty))} should not be empty`);
        break;
      case 'additionalProperties':
        push(`property ${join(String(p.additionalProperty))} should not exist`);
        break;
      case 'minLength':
        push(
          Number(p.limit) <= 1
            ? `${name} should not be empty`
            : `${name} must be longer than or equal to ${String(p.limit)} characters`,
        );
        break;
      case 'maxLength':
        push(`${name} must be shorter than or equal to ${String(p.limit)} characters`);
        break;
      case 'minItems':
        push(`${name} must contain at least ${String(p.limit)} elements`);
        break;
      case 'maxItems':
        push(`${name} must contain no more than ${String(p.limit)} elements`);
        break;
      case 'minProperties':
        push(`${name} should not be empty`);
        break;
      case 'maxProperties':
        if (named.has(e.instancePath)) break;
        push(`${name} must contain no more than ${String(p.limit)} properties`);
        break;
      case 'uniqueItems':
        push(`All ${name}'s elements must be unique`);
        break;
      case 'enum': {
        const allowed = Array.isArray(p.allowedValues) ? p.allowedValues.map(String).join(', ') : '';
        push(`${name} must be one of the following values: ${allowed}`);
        break;
      }
      case 'const':
        push(`${name} must be equal to ${JSON.stringify(p.allowedValue)}`);
        break;
      case 'format':
        push(`${name} ${FORMAT_WORDING[String(p.format)] ?? `must match format ${String(p.format)}`}`);
        break;
      case 'pattern':
        push(`${name} must match ${String(p.pattern)} regular expression`);
        break;
      case 'if':
        // if/then/else picks one shape by the value's type; that branch's errors say what is wrong.
        break;
      case 'anyOf':
      case 'oneOf': {
        const allowed = e.keyword === 'anyOf' ? unionOf(e, e.schemaPath) : undefined;
        if (allowed) push(`${name} must be one of the following values: ${allowed.join(', ')}`);
        // The branch errors above already say what is wrong; only add a sentence when none did.
        else if (out.length === 0) push(`${name} has an invalid shape`);
        break;
      }
      default:
        push(`${name} ${e.message ?? 'is invalid'}`);
    }
  }
  return out;
}

export function sendError(reply: FastifyReply, err: AppError): FastifyReply {
  reply.headers(err.headers);
  const body: ErrorBody = err.omitErrorField
    ? { statusCode: err.statusCode, message: err.body }
    : errorBody(err.statusCode, err.body);
  return reply.status(err.statusCode).send(body);
}

/** Every error, from any route or from Fastify itself, leaves in the contract's body. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError & { validationContext?: string }, request, reply) => {
    if (err instanceof AppError) return sendError(reply, err);
    if (err.validation) {
      return reply
        .status(400)
        .send(errorBody(400, validationMessages(err.validation as AjvError[], err.validationContext)));
    }
    // A database restart, failover or outage: the client may retry; the node carries on.
    if (isDatabaseUnavailable(err)) {
      request.log.warn({ err: err.message }, 'database unavailable');
      return sendError(reply, databaseUnavailable());
    }
    const status = err.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      return reply.status(status).send(errorBody(status, clientMessage(err, status)));
    }
    request.log.error({ err }, 'unhandled error');
    return reply.status(500).send(errorBody(500, 'Internal Server Error'));
  });
  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) =>
    reply.status(404).send(errorBody(404, `Cannot ${request.method} ${request.url.split('?')[0]}`)),
  );
}

function clientMessage(err: FastifyError, status: number): string {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Content-Type must be application/json';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is too large';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'Body cannot be empty when content-type is set to application/json';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'Malformed JSON body';
    default:
      if (err instanceof SyntaxError) return 'Malformed JSON body';
      return status === 404 ? 'Not Found' : err.message || (STATUS_CODES[status] ?? 'Error');
  }
}
