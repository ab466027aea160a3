import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Logger } from 'pino';
import type { App } from '../http/app-type.js';
import { bearerFrom } from '../http/auth.js';
import { namePortError } from '../http/ports.js';
import { forbidden, unauthorized } from '../http/errors.js';
import { safeEqual, sha256 } from '../lib/secrets.js';
import { UNMATCHED_ROUTE, type Metrics } from './metrics.js';

/**
 * Who may read `/metrics` (docs/adr/0041-metrics.md). The numbers are operational data (traffic
 * per route, queue depths, error rates), not for customers.
 * - With `ATENDE_METRICS_TOKEN` set: whoever sends `Authorization: Bearer <token>`, on either port.
 * - Without it, on the API port: clients on loopback or private addresses only (Prometheus inside
 *   the cluster). The address is the one Fastify resolves through `ATENDE_TRUST_PROXY`; a request
 *   carrying forwarding headers that no trusted proxy accounted for came through a proxy we were not
 *   told of — whose own address would look private — and is refused.
 * - Without it, on its own port (`ATENDE_METRICS_PORT`): whoever reaches the port; the operator keeps
 *   that port inside the network.
 */
export type MetricsAccess = 'allowed' | 'missing_token' | 'not_private';

/** Ranges of ipaddr.js counted as inside the network. */
const PRIVATE_RANGES = new Set(['loopback', 'private', 'uniqueLocal', 'linkLocal']);

export function isPrivateAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return PRIVATE_RANGES.has(parsed.range());
}

/** Whether the request's `Authorization: Bearer` is `token`, compared in constant time. */
export function hasToken(headers: IncomingHttpHeaders, token: string): boolean {
  const given = bearerFrom(headers.authorization);
  return given !== undefined && safeEqual(sha256(given), sha256(token));
}

export function metricsAccess(
  request: { ip: string; headers: IncomingHttpHeaders },
  opts: { token: string | null; trustsProxy: boolean },
): MetricsAccess {
  if (opts.token !== null) return hasToken(request.headers, opts.token) ? 'allowed' : 'missing_token';
  const forwarded =
    request.headers['x-forwarded-for'] !== undefined || request.headers.forwarded !== undefined;
  if (forwarded && !opts.trustsProxy) return 'not_private';
  return isPrivateAddress(request.ip) ? 'allowed' : 'not_private';
}

/**
 * Times every answered request under its route's pattern (Fastify's `routeOptions.url`): bounded
 * cardinality whatever URLs clients send; a request no route matched counts as `unmatched`.
 */
export function installHttpMetrics(app: App, metrics: Metrics): void {
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeHttp(
      request.routeOptions.url ?? UNMATCHED_ROUTE,
      request.method,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });
}

/** `GET /metrics` on the API port; left out of the OpenAPI document (it is not part of the API). */
export function metricsRoute(
  app: App,
  metrics: Metrics,
  opts: { token: string | null; trustProxy: boolean | number | string },
): void {
  const trustsProxy = opts.trustProxy !== false;
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const access = metricsAccess(request, { token: opts.token, trustsProxy });
    if (access === 'missing_token') throw unauthorized();
    if (access === 'not_private') throw forbidden();
    const body = await metrics.registry.metrics();
    reply.header('cache-control', 'no-store');
    return reply.type(metrics.registry.contentType).send(body);
  });
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * `GET /metrics` alone on its own port: a plain HTTP server, so that it answers even on a node
 * without the API role (a gateway or worker node) and whatever the API's own hooks do.
 */
export async function startMetricsServer(
  metrics: Metrics,
  opts: { host: string; port: number; token: string | null },
  logger: Logger,
): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const answer = (status: number, message: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: message }));
    };
    if (path !== '/metrics') return answer(404, 'Not Found');
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(405, 'Method Not Allowed');
    if (opts.token !== null && !hasToken(req.headers, opts.token))
      return answer(401, 'Missing or invalid credentials');
    metrics.registry.metrics().then(
      (body) => {
        res.writeHead(200, { 'content-type': metrics.registry.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (err: unknown) => {
        logger.error({ err }, 'metrics: scrape failed');
        answer(500, 'Internal Server Error');
      },
    );
  });
  server.headersTimeout = 15_000;
  server.requestTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => reject(namePortError(err, 'ATENDE_METRICS_PORT', opts.port, opts.host)));
    server.listen(opts.port, opts.host, () => {
      server.removeAllListeners('error');
      resolve();
    });
  });
  server.on('error', (err) => logger.error({ err }, 'metrics server error'));
  const { port } = server.address() as AddressInfo;
  const host = opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
