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

/**
 * Marks a guard that spends a request budget, so the route's OpenAPI answers list its 429 (see
 * documentRateLimits in app.ts).
 */
export const SPENDS_BUDGET = Symbol('spends a request budget');

function spendsBudget<T extends object>(guard: T): T {
  return Object.assign(guard, { [SPENDS_BUDGET]: true });
}

/**
 * onRequest guard of the Channel API's account-key routes. It runs before the body is parsed and
 * validated, giving the contract's order: credential (401) → rate limit (429) → scope (404) →
 * validation (400).
 */
export function accountKeyGuard(services: Services, scope: ApiKeyScope) {
  return spendsBudget(async (request: FastifyRequest, reply: FastifyReply) => {
    const actor = await services.apiKeys.authenticate(request.headers.authorization);
    const { headers } = await services.rateLimiter.consume(actor.keyId);
    reply.headers(headers);
    requireScope(actor, scope);
    request.apiKey = actor;
  });
}

/**
 * onRequest guard of the agent API: JWT from `Authorization: Bearer` or the `access_token` cookie,
 * then the user's request budget (401 before 429, both before the body is read).
 * The cookie rides along on any request the browser makes, so a write it authenticates must come
 * from the console's own origin (403 otherwise); a header no other site can make a browser send.
 */
export function userGuard(services: Services) {
  return spendsBudget(async (request: FastifyRequest, reply: FastifyReply) => {
    const user = await services.auth.authenticate(sessionToken(request));
    reply.headers((await services.userRateLimiter.consume(user.userId)).headers);
    request.user = user;
  });
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
  return spendsBudget(async (request: FastifyRequest, reply: FastifyReply) => {
    const channel = await services.send.authenticate(request.headers['x-channel-api-key']);
    // One budget per channel: rotating its key does not refill it.
    reply.headers((await services.channelKeyRateLimiter.consume(channel.id)).headers);
    request.apiChannel = channel;
  });
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
