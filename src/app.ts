import { randomUUID } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  LogController,
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import type { Gateway } from './gateway/gateway.js';
import { originAllowed, type OriginPolicy } from './gateway/origins.js';
import type { App } from './http/app-type.js';
import { eventsRoutes } from './events/events.routes.js';
import { EVENT_CATALOGUE } from './event-catalogue.js';
import { docsPolicy, installBrowserProtections } from './http/browser-protections.js';
import { installErrorHandling } from './http/errors.js';
import { swaggerOptions } from './http/openapi.js';
import { responseSerializers } from './http/serialization.js';
import { requestValidators } from './http/validation.js';
import { installInputGuard } from './http/input-guard.js';
import { installJsonParser } from './http/json-body.js';
import { httpServerOptions } from './http/timeouts.js';
import { installHttpTracing } from './http/tracing.js';
import { ErrorBodySchema } from './http/schemas.js';
import { apiKeysRoutes } from './modules/api-keys/index.js';
import { auditRoutes } from './modules/audit/index.js';
import { authRoutes } from './modules/auth/index.js';
import { benchRoutes } from './modules/bench/index.js';
import { channelApiRoutes, keyConfirmation, sendRoutes } from './modules/channel-api/index.js';
import { cannedRoutes } from './modules/canned/index.js';
import { channelsRoutes } from './modules/channels/index.js';
import { draftsRoutes } from './modules/drafts/index.js';
import { notificationsRoutes } from './modules/notifications/index.js';
import { notesRoutes } from './modules/notes/index.js';
import { activityRoutes } from './modules/activity/index.js';
import { chatsRoutes } from './modules/chats/index.js';
import { customerCsvRoutes, customersRoutes } from './modules/contacts/index.js';
import { consoleRoutes, testRoutes } from './modules/console/index.js';
import { healthRoutes } from './modules/health/index.js';
import { sandboxRoutes } from './modules/sandbox/index.js';
import { messagesRoutes } from './modules/messages/index.js';
import { historyRoutes } from './modules/history/index.js';
import { searchRoutes } from './modules/search/index.js';
import { mediaRoutes } from './modules/media/index.js';
import { privacyRoutes } from './modules/privacy/index.js';
import { businessHoursRoutes, teamSlaRoutes, teamsRoutes } from './modules/teams/index.js';
import { assignmentRoutes } from './modules/assignment/index.js';
import { boardRoutes } from './modules/board/index.js';
import { flowsRoutes } from './modules/flows/index.js';
import { labelsRoutes } from './modules/labels/index.js';
import { bulkRoutes } from './modules/bulk/index.js';
import { chatViewsRoutes } from './modules/chat-views/index.js';
import { usersRoutes } from './modules/users/index.js';
import { webhooksRoutes } from './modules/webhooks/index.js';
import { botsRoutes } from './modules/bots/index.js';
import { reportsRoutes } from './modules/reports/index.js';
import { installHttpMetrics, metricsRoute } from './metrics/endpoint.js';
import { whatsappWebhookRoutes } from './modules/inbound/index.js';
import type { Services } from './services.js';

export interface AppOptions {
  config: Config;
  services: Services;
  logger: Logger;
  /** The gateway of this process, if it runs one: its port for the web console (`/console.json`). */
  gateway?: Gateway | null;
}

/**
 * Fastify logs two lines per request at info (received, completed), and a third for an unknown route:
 * one line, once the answer is sent, says it all. Its other lines (errors, broken streams) stay.
 */
class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}
  override routeNotFound(): void {}
  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    // Plain fields: pino's req/res serializers would take the whole request (headers, raw URL).
    const line = {
      method: request.method,
      url: loggableUrl(request.url),
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
      remoteAddress: request.ip,
    };
    if (error) request.log.error({ ...line, err: error }, 'request errored');
    else request.log.info(line, 'request completed');
  }
}

/**
 * The URL as logged: values of query parameters that may carry a secret (Meta's `hub.verify_token`, a
 * token or key someone put in a query) are replaced, so a log never holds a credential.
 */
export function loggableUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return eq >= 0 && SECRET_PARAM.test(decodeQueryName(name)) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}
const SECRET_PARAM = /token|key|secret|password|signature|auth/i;
function decodeQueryName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/** The HTTP API: Channel API, agent/admin API, docs and health, with the contract's error body. */
export async function buildApp({ config, services, logger, gateway }: AppOptions): Promise<App> {
  const trust = config.trustProxy;
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // Routes that need more (media) or less (login) say so
    // (docs/adr/0022-input-limits-and-request-budgets.md).
    bodyLimit: config.bodyLimitBytes,
    http: httpServerOptions(config.http),
    requestTimeout: config.http.requestTimeoutMs,
    connectionTimeout: config.http.connectionTimeoutMs,
    keepAliveTimeout: config.http.keepAliveTimeoutMs,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,128}$/.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    logController: new OneLinePerRequest(),
    // A hop count trusts that many proxies in front, whatever their address (as Fastify does for a number).
    trustProxy: typeof trust === 'number' ? (_address: string, hop: number) => hop < trust : trust,
    schemaController: { compilersFactory: { buildSerializer: responseSerializers } },
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.setValidatorCompiler(requestValidators());

  app.decorateRequest('apiKey', null);
  app.decorateRequest('user', null);
  app.decorateRequest('apiChannel', null);
  // Before every other hook, so that the span covers the whole request (guards and refusals included).
  installHttpTracing(app, services.tracing);
  // First, so that every answer carries the headers, even one refused by an earlier hook.
  const gatewayPort = gateway ? Number(new URL(gateway.url).port) : config.gatewayPort;
  await installBrowserProtections(app, { url: config.publicGatewayUrl, port: gatewayPort });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // An account API key taken from a node's memory is confirmed before anything is answered for it.
  app.addHook('onSend', keyConfirmation(services));
  installErrorHandling(app);
  installHttpMetrics(app, services.metrics);
  // Every body route takes JSON; Fastify's built-in text/plain parser would hand a string to a route
  // expecting an object (a confusing 400) instead of answering 415.
  app.removeContentTypeParser('text/plain');
  installJsonParser(app);
  installInputGuard(app);
  app.addSchema(ErrorBodySchema);

  await app.register(fastifyCookie);
  await app.register(fastifySwagger, swaggerOptions());
  await app.register(fastifySwaggerUi, { routePrefix: '/docs', transformStaticCSP: docsPolicy });

  healthRoutes(app, services.db, services.redisHealth);
  // Prometheus scrapes here unless the metrics have a port of their own (src/metrics/endpoint.ts).
  if (config.metrics.port === null)
    metricsRoute(app, services.metrics, { token: config.metrics.token, trustProxy: config.trustProxy });
  // The origins a browser may log in from are the ones it may open the gateway from.
  const loginOrigins: OriginPolicy = {
    configured: config.gatewayOrigins,
    apiPort: () => {
      const address = app.server.address();
      return typeof address === 'object' && address ? address.port : config.port;
    },
    publicGatewayUrl: config.publicGatewayUrl,
  };
  authRoutes(app, services, {
    cookieSecure: config.cookieSecure,
    loginOrigins: (headers) => originAllowed(loginOrigins, headers),
  });
  channelApiRoutes(app, services);
  usersRoutes(app, services);
  teamsRoutes(app, services);
  businessHoursRoutes(app, services);
  teamSlaRoutes(app, services);
  assignmentRoutes(app, services);
  boardRoutes(app, services);
  flowsRoutes(app, services);
  channelsRoutes(app, services);
  apiKeysRoutes(app, services);
  auditRoutes(app, services);
  chatsRoutes(app, services);
  labelsRoutes(app, services);
  bulkRoutes(app, services);
  chatViewsRoutes(app, services);
  customersRoutes(app, services);
  customerCsvRoutes(app, services);
  messagesRoutes(app, services);
  historyRoutes(app, services);
  searchRoutes(app, services);
  mediaRoutes(app, services);
  privacyRoutes(app, services);
  sandboxRoutes(app, services);
  sendRoutes(app, services);
  whatsappWebhookRoutes(app, services);
  eventsRoutes(app, { ...services, eventCatalogue: EVENT_CATALOGUE });
  draftsRoutes(app, services);
  cannedRoutes(app, services);
  notificationsRoutes(app, services);
  notesRoutes(app, services);
  activityRoutes(app, services);
  webhooksRoutes(app, services);
  botsRoutes(app, services);
  reportsRoutes(app, services);
  // Reference routes of `npm run bench` (bench/README.md); off unless the benchmark starts the server.
  if (process.env.ATENDE_BENCH_ROUTES === '1') benchRoutes(app, services);
  // The web console at `/` (every GET outside the API paths above).
  await consoleRoutes(app, config, { port: gatewayPort }, () => services.repos.users.anyUser());
  // Test-only routes of the browser tests (test/e2e); off unless their server starts with the flag.
  if (process.env.ATENDE_TEST_ROUTES === '1') testRoutes(app, services, gateway?.io ?? null);

  return app;
}
