import type { ServerOptions } from 'node:http';
import type { Config } from '../config.js';

/**
 * Node's own timeouts of an HTTP server (API and gateway alike): a client that sends its headers or
 * body a byte at a time is answered 408 and closed once the request timeout passes, instead of
 * holding a connection, and its memory, for as long as it likes.
 */
export function httpServerOptions(http: Config['http']): ServerOptions {
  return {
    requestTimeout: http.requestTimeoutMs,
    headersTimeout: http.headersTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    // Node looks for expired requests on this interval (30 s by default, so a timeout shorter than
    // that would only be enforced up to 30 s late).
    connectionsCheckingInterval: Math.max(250, Math.min(30_000, Math.floor(http.headersTimeoutMs / 4))),
  };
}
