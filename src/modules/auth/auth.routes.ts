import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { FastifyRequest } from 'fastify';
import { crossSiteLoginGuard, sessionToken } from '../../http/auth.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import type { OriginCheck } from '../../http/browser-protections.js';
import { clientIp } from '../../http/client-ip.js';
import { errorResponses } from '../../http/schemas.js';
import { UserSchema, type UsersService } from '../users/index.js';
import type { AuthService } from './auth.service.js';

const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: 200 }),
  },
  { additionalProperties: false },
);
/**
 * Largest login body: the longest email and password allowed, even in a three-byte script, with room
 * to spare. Anything bigger is not a login, and is refused before it is parsed.
 */
export const LOGIN_BODY_LIMIT_BYTES = 2048;

const LoginResponse = Type.Object({
  accessToken: Type.String(),
  tokenType: Type.Literal('Bearer'),
  expiresIn: Type.Integer({ description: 'Seconds until the token expires' }),
  user: UserSchema,
});

/**
 * The session cookie's `Secure` flag: as configured, or with 'auto' when the request came over HTTPS
 * — its own TLS, or `X-Forwarded-Proto: https` from a proxy ATENDE_TRUST_PROXY trusts (Fastify reads
 * the header only from those).
 */
function secure(request: FastifyRequest, setting: boolean | 'auto'): boolean {
  return setting === 'auto' ? request.protocol === 'https' : setting;
}

/** What these routes use of the services. */
export type AuthRoutesDeps = UserGuardDeps & {
  auth: AuthService;
  users: UsersService;
};

export function authRoutes(
  app: App,
  services: AuthRoutesDeps,
  opts: {
    cookieSecure: boolean | 'auto';
    /** Which browser origins may log in besides this server's own: the gateway's origin policy. */
    loginOrigins: OriginCheck;
  },
): void {
  app.post(
    '/auth/login',
    {
      bodyLimit: LOGIN_BODY_LIMIT_BYTES,
      // Before the body is read, and before the attempt counts against the email's budget.
      onRequest: crossSiteLoginGuard(opts.loginOrigins),
      schema: {
        operationId: 'loginUser',
        tags: ['Auth'],
        summary: 'Log in',
        description:
          "Returns a JWT for the agent API and the gateway, and sets it as the HttpOnly `access_token` cookie. Failed attempts are limited per email and per client IP (429 with `Retry-After`); a success resets the email's count. A login from another site's page (an `Origin` that is not the console's, or `Sec-Fetch-Site: cross-site`) is refused with 403; clients outside a browser send neither header.",
        body: LoginBody,
        response: { 200: LoginResponse, ...errorResponses(400, 401, 429, 503) },
      },
    },
    async (request, reply) => {
      const result = await services.auth.login(request.body.email, request.body.password, {
        ip: clientIp(request),
      });
      reply.setCookie('access_token', result.accessToken, {
        httpOnly: true,
        sameSite: 'lax',
        secure: secure(request, opts.cookieSecure),
        path: '/',
        maxAge: result.expiresIn,
      });
      return result;
    },
  );

  app.post(
    '/auth/logout',
    {
      schema: {
        operationId: 'logoutUser',
        tags: ['Auth'],
        summary: 'Log out everywhere',
        description:
          "Ends every session of the token's user — the token presented (`Authorization: Bearer` or the `access_token` cookie) and any other token issued to them stop working at once, on the API and the gateway — and clears the cookie. Answers 204 with or without a valid token.",
        // Optional: without a (valid) token there is nothing to end, and the answer is the same.
        security: [{ bearer: [] }, { sessionCookie: [] }, {}],
        response: { 204: Type.Null(), ...errorResponses(403, 503) },
      },
    },
    async (request, reply) => {
      // Logging out ends every session of the user: another site must not do it with the cookie.
      await services.auth.logout(sessionToken(request));
      reply.clearCookie('access_token', {
        path: '/',
        httpOnly: true,
        sameSite: 'lax',
        secure: secure(request, opts.cookieSecure),
      });
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/me',
    {
      onRequest: userGuard(services),
      schema: {
        operationId: 'getCurrentUser',
        tags: ['Auth'],
        summary: 'The logged-in user',
        response: {
          200: Type.Object({ user: UserSchema, permissions: Type.Array(Type.String()) }),
          ...errorResponses(401),
        },
      },
    },
    async (request) => {
      const actor = userOf(request);
      return { user: await services.users.get(actor, actor.userId), permissions: [...actor.permissions] };
    },
  );
}
