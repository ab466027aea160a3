import type { FastifyRequest } from 'fastify';
import { refuseCrossSiteCookieWrite, refuseCrossSiteLogin, type OriginCheck } from './browser-protections.js';

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

export function documented<T extends object>(guard: T, doc: GuardDoc): T {
  return Object.assign(guard, { [GUARD_DOC]: doc });
}

/** The guard's documentation, when `value` is a documented guard. */
export function guardDoc(value: unknown): GuardDoc | undefined {
  return typeof value === 'function' && GUARD_DOC in value ? (value[GUARD_DOC] as GuardDoc) : undefined;
}

/** onRequest guard of `POST /auth/login`: no login from another site's page (refuseCrossSiteLogin). */
export function crossSiteLoginGuard(allowed: OriginCheck) {
  return documented(async (request: FastifyRequest) => refuseCrossSiteLogin(request, allowed), {
    security: [],
    errors: [403],
  });
}

/**
 * The request's JWT: `Authorization: Bearer`, else the `access_token` cookie. The cookie rides on any
 * request the browser makes, so a write it authenticates must come from the console's own origin
 * (403 otherwise); reads pass.
 */
export function sessionToken(request: FastifyRequest): string | undefined {
  const bearer = bearerFrom(request.headers.authorization);
  if (bearer) return bearer;
  const cookie = request.cookies?.access_token;
  if (cookie) refuseCrossSiteCookieWrite(request);
  return cookie;
}

/** The token of an `Authorization: Bearer` header, if any (the API, the gateway's handshake, metrics). */
export function bearerFrom(header: string | string[] | undefined): string | undefined {
  return typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}
