import type { IncomingHttpHeaders } from 'node:http';

/** Where a browser may open a gateway connection from (a request's `Origin`). */
export interface OriginPolicy {
  /** `ATENDE_GATEWAY_ORIGINS`: a list, `*`, or null for the console's own origin. */
  configured: string[] | '*' | null;
  /** The port the API (and so the console) listens on; known once it listens. */
  apiPort: () => number;
  /** `ATENDE_PUBLIC_GATEWAY_URL`, on the console's host name: its origin is the console's. */
  publicGatewayUrl: string | null;
}

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

function parse(origin: string): URL | null {
  try {
    const u = new URL(origin);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
}

/**
 * Whether a request may open (or, for CORS, read) a gateway connection. A browser sends cookies to
 * the gateway whatever page opened the connection, and a WebSocket is not held back by CORS, so a
 * foreign page could otherwise act with a signed-in user's cookie: the `Origin` decides, for every
 * transport. No `Origin` at all is a client outside a browser (an integration's socket.io-client),
 * which carries only the credentials it was given, and is accepted.
 * By default the origin must be the console's: the gateway's own origin (one address in front of
 * both, e.g. a proxy), the origin of `ATENDE_PUBLIC_GATEWAY_URL` (on the console's host name), or the
 * same host on the API's port (the console served by the API, the gateway on its own port). Host
 * names are compared as the browser wrote them, in `Host`.
 */
export function originAllowed(
  policy: OriginPolicy,
  headers: Pick<IncomingHttpHeaders, 'origin' | 'host'>,
): boolean {
  const origin = headers.origin;
  if (origin === undefined) return true;
  if (policy.configured === '*') return true;
  if (policy.configured !== null) return policy.configured.includes(origin.replace(/\/$/, ''));
  if (policy.publicGatewayUrl !== null && parse(policy.publicGatewayUrl)?.origin === origin) return true;
  const from = parse(origin);
  const host = headers.host ? parse(`http://${headers.host}`) : null;
  if (!from || !host || from.hostname !== host.hostname) return false;
  const port = from.port || DEFAULT_PORTS[from.protocol]!;
  // A Host without a port was reached on its scheme's default port: so must the page have been.
  const sameOrigin = host.port ? port === host.port : from.port === '';
  return sameOrigin || port === String(policy.apiPort());
}
