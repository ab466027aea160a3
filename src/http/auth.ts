import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyActor, UserActor } from '../modules/auth/actors.js';
import type { ApiChannel } from '../modules/messages/send.service.js';
import { requireScope } from '../modules/auth/guards.js';
import type { ApiKeyScope } from '../modules/auth/permissions.js';
import type { Services } from '../services.js';
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
 * onRequest guard of the Channel API's account-key routes. It runs before the body is parsed and
 * validated, giving the contract's order: credential (401) → rate limit (429) → scope (404) →
 * validation (400).
 */
export function accountKeyGuard(services: Services, scope: ApiKeyScope) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const actor = await services.apiKeys.authenticate(request.headers.authorization);
    const { headers } = await services.rateLimiter.consume(actor.keyId);
    reply.headers(headers);
    requireScope(actor, scope);
    request.apiKey = actor;
  };
}

/** onRequest guard of the agent API: JWT from `Authorization: Bearer` or the `access_token` cookie. */
export function userGuard(services: Services) {
  return async (request: FastifyRequest) => {
    request.user = await services.auth.authenticate(bearerOrCookie(request));
  };
}

/** The request's JWT: `Authorization: Bearer`, else the `access_token` cookie. */
export function bearerOrCookie(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const bearer = header && /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  return bearer || request.cookies?.access_token;
}

/**
 * onRequest guard of the send-message routes: the channel key in `x-channel-api-key`, checked against
 * the database on every request (rotation and disabling apply at once, on every node) and before the
 * body is read. Missing → 400; unknown, rotated away or API disabled → 404 `Invalid API token`.
 */
export function channelKeyGuard(services: Services) {
  return async (request: FastifyRequest) => {
    request.apiChannel = await services.send.authenticate(request.headers['x-channel-api-key']);
  };
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
