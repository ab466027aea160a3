import { SpanKind, type Span } from '@opentelemetry/api';
import type { FastifyRequest } from 'fastify';
import { contextOf, failed, traceparentOf, type Tracing } from '../lib/tracing.js';
import type { App } from './app-type.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** This request's server span, when traced (src/lib/tracing.ts); null otherwise. */
    traceSpan: Span | null;
  }
}

/** The route pattern when one matched: never the raw URL, whose path and query may carry ids or tokens. */
const routeOf = (request: FastifyRequest): string => request.routeOptions.url ?? 'unmatched';

/**
 * A server span per request, when traced: `METHOD /route`, in the trace of an incoming `traceparent`
 * (a new one otherwise), with the method, route and status; a 5xx marks it failed with the error's
 * message. Without tracing no hook is added at all.
 */
export function installHttpTracing(app: App, tracing: Tracing): void {
  app.decorateRequest('traceSpan', null);
  if (!tracing.enabled) return;
  const errors = new WeakMap<FastifyRequest, string>();
  app.addHook('onRequest', (request, _reply, done) => {
    const route = routeOf(request);
    const incoming = request.headers.traceparent;
    request.traceSpan =
      tracing.span(
        `${request.method} ${route}`,
        {
          kind: SpanKind.SERVER,
          attributes: {
            'http.request.method': request.method,
            'http.route': route,
            'atende.http_request_id': request.id,
          },
        },
        contextOf(typeof incoming === 'string' ? incoming : undefined),
      ) ?? null;
    done();
  });
  app.addHook('onError', (request, _reply, error, done) => {
    errors.set(request, error.message);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const span = request.traceSpan;
    if (span) {
      span.setAttribute('http.response.status_code', reply.statusCode);
      // A 4xx is the client's: the span of a server fails on its own errors only.
      if (reply.statusCode >= 500) failed(span, errors.get(request) ?? `HTTP ${reply.statusCode}`);
      span.end();
      request.traceSpan = null;
    }
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    const span = request.traceSpan;
    if (span) {
      failed(span, 'the client closed the connection before the answer');
      span.end();
      request.traceSpan = null;
    }
    done();
  });
}

/** The request's `traceparent`, for work it queues (null when not traced). */
export function traceparentOfRequest(request: FastifyRequest): string | null {
  return traceparentOf(request.traceSpan ?? undefined);
}
