import type { IncomingMessage } from 'node:http';
import helmet from 'helmet';
import type { FastifyRequest } from 'fastify';
import type { App } from './app-type.js';
import { forbidden } from './errors.js';
import { en } from './language.js';

/** Where the web console finds the gateway, as `/console.json` tells it. */
export interface ConsoleGateway {
  /** The configured public address (ATENDE_PUBLIC_GATEWAY_URL), else null. */
  url: string | null;
  /** Otherwise the gateway's port on the host the console was loaded from (null: no gateway known). */
  port: number | null;
}

/**
 * Headers that tell browsers how to treat every answer of this server (console, API, /docs), and
 * `Cache-Control: no-store` on answers to authenticated requests. See docs/security.md, "Browser
 * protections", and docs/adr/0023-browser-protections.md.
 */
export async function installBrowserProtections(app: App, gateway: ConsoleGateway): Promise<void> {
  // The console connects to the gateway on another origin; the policy must name it. It depends on
  // the host the browser used, known from the Fastify request (which honours trusted proxies), while
  // helmet hands its directive functions only the raw request: computed here, looked up there.
  const connectSources = new WeakMap<IncomingMessage, string>();
  const fixed = gateway.url === null ? null : sourcesOf(new URL(gateway.url));
  app.addHook('onRequest', async (request) => {
    const sources = fixed ?? gatewayOnPageHost(request, gateway.port);
    connectSources.set(request.raw, sources === null ? "'self'" : `'self' ${sources}`);
  });

  // Built once: @fastify/helmet built helmet's middleware again on every request (parsing and checking
  // every directive), a few percent of a bare request's CPU (bench/README.md).
  const protect = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        'default-src': ["'self'"],
        'base-uri': ["'self'"],
        'connect-src': [(req: IncomingMessage) => connectSources.get(req) ?? "'self'"],
        'font-src': ["'self'", 'data:'],
        'form-action': ["'self'"],
        'frame-ancestors': ["'none'"],
        'img-src': ["'self'", 'data:'],
        'object-src': ["'none'"],
        'script-src': ["'self'"],
        'script-src-attr': ["'none'"],
        'style-src': ["'self'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    // Sent below, over HTTPS only.
    strictTransportSecurity: false,
  });
  app.addHook('onRequest', (request, reply, done) => {
    // Browsers ignore HSTS over plain HTTP (RFC 6797, section 8.1), and a scanner reads it there as
    // a mistake: only over HTTPS — our own TLS, or `X-Forwarded-Proto: https` from a proxy
    // ATENDE_TRUST_PROXY trusts (Fastify reads the header only from those). Not for subdomains: they
    // may be other services of the operator.
    if (request.protocol === 'https') reply.raw.setHeader('strict-transport-security', HSTS);
    protect(request.raw, reply.raw, (err?: unknown) => done(err instanceof Error ? err : undefined));
  });

  // An answer meant for one user or key is never kept by a browser or a shared cache (logging out on
  // a shared computer must not leave the inbox in the back button, nor a proxy serve it to another).
  app.addHook('onSend', async (request, reply, payload) => {
    if (isAuthenticated(request)) reply.header('cache-control', 'no-store');
    return payload;
  });
}

const HSTS = `max-age=${180 * 24 * 3600}`;

/**
 * The policy of the API reference at /docs (`transformStaticCSP` of @fastify/swagger-ui, which applies
 * it to its own routes only): Swagger UI renders a `<style>` element of its own, so inline styles are
 * allowed there. Scripts stay `'self'`; the page shows only this server's own OpenAPI document.
 */
export function docsPolicy(policy: string): string {
  return policy.replace(/style-src 'self'(?=;|$)/, "style-src 'self' 'unsafe-inline'");
}

/** Authenticated by a guard, presenting a header credential, or the login/logout answers themselves. */
function isAuthenticated(request: FastifyRequest): boolean {
  return (
    request.user !== null ||
    request.apiKey !== null ||
    request.apiChannel !== null ||
    request.headers.authorization !== undefined ||
    request.headers['x-channel-api-key'] !== undefined ||
    (request.routeOptions.url?.startsWith('/auth/') ?? false)
  );
}

/** `http://h:p ws://h:p` (or the secure pair): http/ws also match their secure forms in CSP. */
function sourcesOf(url: URL): string {
  const secure = url.protocol === 'https:';
  return `${url.protocol}//${url.host} ${secure ? 'wss' : 'ws'}://${url.host}`;
}

/** Host names and IP literals only: the Host header is the client's, and lands in a header here. */
const HOSTNAME = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])$/;

function gatewayOnPageHost(request: FastifyRequest, port: number | null): string | null {
  const host = request.hostname;
  if (port === null || !HOSTNAME.test(host)) return null;
  return sourcesOf(new URL(`${request.protocol === 'https' ? 'https' : 'http'}://${host}:${port}`));
}

export const CROSS_SITE_REFUSED = en(
  'Cross-site request refused: a request authenticated by the session cookie must come from the console',
  'Requisição de outro site recusada: uma requisição autenticada pelo cookie de sessão deve vir do console',
);

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Refuses (403) a state-changing request authenticated by the `access_token` cookie unless the
 * browser says it comes from this origin. `Sec-Fetch-Site` decides when present (every current
 * browser sends it, and no page can forge it); else `Origin` must be this server's origin as the
 * browser sees it (scheme and host, from a trusted proxy's `X-Forwarded-*` when there is one). With
 * neither, refused: a browser always sends one of them on a POST, and a client that is not a
 * browser authenticates with `Authorization: Bearer` instead.
 */
export function refuseCrossSiteCookieWrite(request: FastifyRequest): void {
  if (SAFE_METHODS.has(request.method)) return;
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) {
    // `none`: the user's own action (typed address, bookmark), never another site's.
    if (site === 'same-origin' || site === 'none') return;
    throw forbidden(CROSS_SITE_REFUSED);
  }
  const origin = request.headers.origin;
  if (origin !== undefined && origin === ownOrigin(request)) return;
  throw forbidden(CROSS_SITE_REFUSED);
}

export const CROSS_SITE_LOGIN_REFUSED = en(
  'Cross-site login refused: log in from the console, or from a client outside a browser',
  'Login de outro site recusado: entre pelo console, ou por um cliente fora do navegador',
);

/** Whether a browser page of `origin` may use this server's session (the gateway's origin policy). */
export type OriginCheck = (headers: { origin: string; host: string }) => boolean;

/**
 * Refuses (403) a login that a page of another site makes the browser send. A login sets the session
 * cookie, so such a page would sign the visitor in to an account of its choosing (login CSRF), and
 * whatever the visitor then writes or uploads would land in that account. Refused:
 * - an `Origin` that is neither this server's own (as the browser sees it, behind a trusted proxy
 *   too) nor one the gateway accepts (`allowed`: ATENDE_GATEWAY_ORIGINS, else the console's
 *   origins), `Origin: null` (a sandboxed frame, a redirect) included;
 * - no `Origin` but `Sec-Fetch-Site: cross-site`.
 * A request with neither is a client outside a browser (curl, an integration that logs in), which
 * gets only the token it asked for: let through.
 */
export function refuseCrossSiteLogin(request: FastifyRequest, allowed: OriginCheck): void {
  const origin = request.headers.origin;
  if (origin !== undefined) {
    if (origin === ownOrigin(request) || allowed({ origin, host: request.host })) return;
    throw forbidden(CROSS_SITE_LOGIN_REFUSED);
  }
  if (request.headers['sec-fetch-site'] === 'cross-site') throw forbidden(CROSS_SITE_LOGIN_REFUSED);
}

/** This server's origin as the browser sees it, serialised as browsers send `Origin`; null if unknown. */
function ownOrigin(request: FastifyRequest): string | null {
  try {
    return new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    return null;
  }
}
