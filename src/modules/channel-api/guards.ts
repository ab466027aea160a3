import type { FastifyReply, FastifyRequest } from 'fastify';
import { documented, type GuardDoc } from '../../http/auth.js';
import { AppError, renderError, unauthorized } from '../../http/errors.js';
import type { RequestRateLimiter } from '../../http/rate-limit.js';
import type { ApiKeysService } from '../api-keys/index.js';
import { requireScope } from '../../access/guards.js';
import type { ApiKeyScope } from '../../access/permissions.js';
import type { ApiChannel, ChannelKeys } from '../channels/index.js';
import type { ChatsService } from '../chats/index.js';
import { apiKeyOf } from '../../access/request-actor.js';
import { inputProblems } from '../../http/input-guard.js';
import { isObjectId } from '../../lib/ids.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The channel opened by `x-channel-api-key` (send-message routes). */
    apiChannel: ApiChannel | null;
  }
}

// Both guards read their credential from the database: 503 while it cannot be reached.
const ACCOUNT_KEY_DOC: GuardDoc = { security: [{ accountApiKey: [] }], errors: [401, 404, 429, 503] };
// A missing key is a 400 and a wrong one a 404 (the contract's answers), never a 401.
const CHANNEL_KEY_DOC: GuardDoc = { security: [{ channelApiKey: [] }], errors: [400, 404, 429, 503] };

export interface AccountKeyGuardDeps {
  apiKeys: ApiKeysService;
  rateLimiter: RequestRateLimiter;
}

export interface ChannelKeyGuardDeps {
  channelKeys: ChannelKeys;
  channelKeyRateLimiter: RequestRateLimiter;
}

/**
 * onRequest guard of the Channel API's account-key routes. It runs before the body is parsed and
 * validated, giving the contract's order: credential (401) → rate limit (429) → scope (404) →
 * validation (400).
 */
export function accountKeyGuard(deps: AccountKeyGuardDeps, scope: ApiKeyScope) {
  return documented(async (request: FastifyRequest, reply: FastifyReply) => {
    const actor = await deps.apiKeys.authenticate(request.headers.authorization);
    const { headers } = await deps.rateLimiter.consume(actor.keyId);
    reply.headers(headers);
    requireScope(actor, scope);
    request.apiKey = actor;
  }, ACCOUNT_KEY_DOC);
}

/**
 * onSend hook of the account-key routes: nothing is answered for a key not known active as of the
 * request. The guard may take a key from this node's memory; the statement that did the work usually
 * confirmed it (`keyChecked`), else it is looked up now, and a revoked key's answer, whatever it was
 * (a page, a 404, a 429), becomes the contract's 401. A 401 also drops the key from memory.
 */
export function keyConfirmation(deps: { apiKeys: ApiKeysService }) {
  return async (request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> => {
    const actor = request.apiKey;
    if (!actor) return payload;
    if (reply.statusCode === 401) {
      deps.apiKeys.forget(actor.keyId);
      return payload;
    }
    try {
      await deps.apiKeys.confirm(actor);
      return payload;
    } catch (err) {
      if (!(err instanceof AppError) || err.statusCode !== 401) throw err;
      const body = JSON.stringify(renderError(reply, err));
      reply.removeHeader('content-length');
      reply.header('content-type', 'application/json; charset=utf-8');
      return body;
    }
  };
}

/**
 * onRequest guard of the send-message routes: the channel key in `x-channel-api-key`, checked against
 * the database on every request (rotation and disabling apply at once, on every node) and before the
 * body is read. Missing → 400; unknown, rotated away or API disabled → 404 `Invalid API token`.
 */
export function channelKeyGuard(deps: ChannelKeyGuardDeps) {
  return documented(async (request: FastifyRequest, reply: FastifyReply) => {
    const channel = await deps.channelKeys.authenticate(request.headers['x-channel-api-key']);
    // One budget per channel: rotating its key does not refill it.
    reply.headers((await deps.channelKeyRateLimiter.consume(channel.id)).headers);
    request.apiChannel = channel;
  }, CHANNEL_KEY_DOC);
}

export function apiChannelOf(request: FastifyRequest): ApiChannel {
  if (!request.apiChannel) throw unauthorized();
  return request.apiChannel;
}

/**
 * preValidation hook of the routes that name a chat: a chat the key cannot reach answers 404 before
 * its body's 400 (docs/channel-api.md "Errors"). A body that will pass needs no lookup here: the
 * operation itself answers 404 for such a chat, one round trip fewer per request.
 */
export const chatReach =
  (services: { chats: Pick<ChatsService, 'assertChatReachable'> }) => async (request: FastifyRequest) => {
    const { id } = request.params as Record<string, unknown>;
    if (typeof id === 'string' && isObjectId(id) && !partPasses(request, 'body')) {
      await services.chats.assertChatReachable(apiKeyOf(request), id);
    }
  };

/**
 * Whether the route's validation of that part of the request and the input guard will let it through
 * (a reach check answers 404 before the 400 only for a request that will be refused).
 */
export function partPasses(request: FastifyRequest, part: 'querystring' | 'body'): boolean {
  const validate = request.getValidationFunction(part);
  const value = part === 'body' ? request.body : request.query;
  if (validate === undefined || value === null || typeof value !== 'object') return false;
  // The validator coerces and fills defaults in place: it checks a copy.
  const copy = { ...(value as Record<string, unknown>) };
  return validate(copy) === true && inputProblems(copy).length === 0;
}
