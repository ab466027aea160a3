import type { FastifyReply, FastifyRequest } from 'fastify';
import { documented, sessionToken, type GuardDoc } from '../http/auth.js';
import { unauthorized } from '../http/errors.js';
import type { RequestRateLimiter } from '../http/rate-limit.js';
import type { ApiKeyActor, UserActor } from './actors.js';

/**
 * Who is acting on a request: the agent API's user guard sets `request.user`, the Channel API's key
 * guard (modules/channel-api/guards.ts) `request.apiKey`; routes read them with `userOf`/`apiKeyOf`.
 */
declare module 'fastify' {
  interface FastifyRequest {
    apiKey: ApiKeyActor | null;
    user: UserActor | null;
  }
}

// Every guard reads its credential from the database: 503 while it cannot be reached.
const USER_DOC: GuardDoc = {
  security: [{ bearer: [] }, { sessionCookie: [] }],
  errors: [401, 429, 503],
  // A write authenticated by the cookie from another site (refuseCrossSiteCookieWrite).
  writeErrors: [403],
};

/** What the agent API's guard uses: the session check and each user's request budget. */
export interface UserGuardDeps {
  auth: { authenticate(token: string | undefined): Promise<UserActor> };
  userRateLimiter: RequestRateLimiter;
}

/**
 * onRequest guard of the agent API: JWT from `Authorization: Bearer` or the `access_token` cookie,
 * then the user's request budget (401 before 429, both before the body is read).
 * The cookie rides along on any request the browser makes, so a write it authenticates must come
 * from the console's own origin (403 otherwise); a header no other site can make a browser send.
 */
export function userGuard(deps: UserGuardDeps) {
  return documented(async (request: FastifyRequest, reply: FastifyReply) => {
    const user = await deps.auth.authenticate(sessionToken(request));
    reply.headers((await deps.userRateLimiter.consume(user.userId)).headers);
    // A copy: the authenticated actor may be shared by this node's cache of sessions.
    request.user = {
      ...user,
      origin: { ip: request.ip, userAgent: request.headers['user-agent']?.slice(0, 500) ?? null },
    };
  }, USER_DOC);
}

export function apiKeyOf(request: FastifyRequest): ApiKeyActor {
  if (!request.apiKey) throw unauthorized();
  return request.apiKey;
}

export function userOf(request: FastifyRequest): UserActor {
  if (!request.user) throw unauthorized();
  return request.user;
}
