import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyActor, UserActor } from '../modules/auth/actors.js';
import type { ApiChannel } from '../modules/messages/send.service.js';
import { requireScope } from '../modules/auth/guards.js';
import type { ApiKeyScope } from '../modules/auth/permissions.js';
import type { Services } from '../services.js';
import { refuseCrossSiteCookieWrite } from './browser-protections.js';
import { unauthorized } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ApiKeyActor | null;
    user: UserActor | null;
    /** The channel opened by `x-channel-api-key` (send-message routes). */
    apiChannel: ApiChannel | null;
  }
}

/** An OpenAPI security requirement: scheme names of `components.securitySchemes` (src/http/openapi.ts). */
export type SecurityRequirement = Record<string, string[]>;

/** What a guard asks of a request and may answer instead of the route, for the API reference. */
export interface GuardDoc {
  /** Alternatives: any one of them lets the request through. */
  security: SecurityRequirement[];
  /** Error statuses the guard answers, on every method. */
  errors: number[];
  /** Further error statuses on methods other than GET and HEAD. */
  writeErrors?: number[];
}

/**
 * Marks a guard with what it requires and answers, so each route's OpenAPI operation gets its
 * security and errors from the guard it really runs (see src/http/openapi.ts) rather than from a
 * copy that could drift from it.
 */
export const GUARD_DOC = Symbol('what a guard requires and answers');

function documented<T extends object>(guard: T, doc: GuardDoc): T {
  return Object.assign(guard, { [GUARD_DOC]: doc });
}

/** The guard's documentation, when `value` is a documented guard. */
export function guardDoc(value: unknown): GuardDoc | undefined {
  return typeof value === 'function' && GUARD_DOC in value ? (value[GUARD_DOC] as GuardDoc) : undefined;
}

// Every guard reads its credential from the database: 503 while it cannot be reached.
const ACCOUNT_KEY_DOC: GuardDoc = { security: [{ accountApiKey: [] }], errors: [401, 404, 429, 503] };
const USER_DOC: GuardDoc = {
  security: [{ bearer: [] }, { sessionCookie: [] }],
  errors: [401, 429, 503],
  // A write authenticated by the cookie from another site (refuseCrossSiteCookieWrite).
  writeErrors: [403],
};
// A missing key is a 400 and a wrong one a 404 (the contract's answers), never a 401.
const CHANNEL_KEY_DOC: GuardDoc = { security: [{ channelApiKey: [] }], errors: [400, 404, 429, 503] };

/**
 * onRequest guard of the Channel API's account-key routes. It runs before the body is parsed and
 * validated, giving the contract's order: credential (401) → rate limit (429) → scope (404) →
 * validation (400).
 */
export function accountKeyGuard(services: Services, scope: ApiKeyScope) {
  return documented(async (request: FastifyRequest, reply: FastifyReply) => {
    const actor = await services.apiKeys.authenticate(request.headers.authorization);
    const { headers } = await services.rateLimiter.consume(actor.keyId);
    reply.headers(headers);
    requireScope(actor, scope);
    request.apiKey = actor;
  }, ACCOUNT_KEY_DOC);
}

/**
 * onRequest guard of the agent API: JWT from `Authorization: Bearer` or the `access_token` cookie,
 * then the user's request budget (401 before 429, both before the body is read).
 * The cookie rides along on any request the browser makes, so a write it authenticates must come
 * from the console's own origin (403 otherwise); a header no other site can make a browser send.
 */
export function userGuard(services: Services) {
  return documented(async (request: FastifyRequest, reply: FastifyReply) => {
    const user = await services.auth.authenticate(sessionToken(request));
    reply.headers((await services.userRateLimiter.consume(user.userId)).headers);
    request.user = user;
  }, USER_DOC);
}

/**
 * The request's JWT: `Authorization: Bearer`, else the `access_token` cookie. The cookie rides on any
 * request the browser makes, so a write it authenticates must come from the console's own origin
 * (403 otherwise); reads pass.
 */
export function sessionToken(request: FastifyRequest): string | undefined {
  const bearer = bearerToken(request);
  if (bearer) return bearer;
  const cookie = request.cookies?.access_token;
  if (cookie) refuseCrossSiteCookieWrite(request);
  return cookie;
}

/** The token of an `Authorization: Bearer` header, if any. */
function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  return (header && /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1]) || undefined;
}

/**
 * onRequest guard of the send-message routes: the channel key in `x-channel-api-key`, checked against
 * the database on every request (rotation and disabling apply at once, on every node) and before the
 * body is read. Missing → 400; unknown, rotated away or API disabled → 404 `Invalid API token`.
 */
export function channelKeyGuard(services: Services) {
  return documented(async (request: FastifyRequest, reply: FastifyReply) => {
    const channel = await services.send.authenticate(request.headers['x-channel-api-key']);
    // One budget per channel: rotating its key does not refill it.
    reply.headers((await services.channelKeyRateLimiter.consume(channel.id)).headers);
    request.apiChannel = channel;
  }, CHANNEL_KEY_DOC);
}

export function apiChannelOf(request: FastifyRequest): ApiChannel {
  if (!request.apiChannel) throw unauthorized();
  return request.apiChannel;
}

export function apiKeyOf(request: FastifyRequest): ApiKeyActor {
  if (!request.apiKey) throw unauthorized();
  return request.apiKey;
}

export function userOf(request: FastifyRequest): UserActor {
  if (!request.user) throw unauthorized();
  return request.user;
}
