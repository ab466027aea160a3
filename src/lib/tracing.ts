import {
  ROOT_CONTEXT,
  SpanStatusCode,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
  type Context,
  type Link,
  type Span,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * Optional OpenTelemetry traces (docs/adr/0098-traces.md). Built only when `OTEL_EXPORTER_OTLP_ENDPOINT`
 * is set; otherwise `Tracing.off`, whose `span` answers undefined, so a hot path pays one test.
 * Parents are passed explicitly (a `Context` or a stored `traceparent`), never through a global
 * context manager: the send path crosses batchers, a durable queue and other nodes, where no
 * async-local context would follow it anyway. Nothing is registered globally.
 */

export interface TracingConfig {
  /** OTLP/HTTP base URL, e.g. `http://collector:4318`; spans go to `<endpoint>/v1/traces`. Null: off. */
  endpoint: string | null;
  /** `service.name` of the spans (`OTEL_SERVICE_NAME`, default `atende`). */
  serviceName: string;
}

/** How a queued send carries its caller's trace: the W3C header, in and out of text. */
const propagator = new W3CTraceContextPropagator();

export class Tracing {
  /** Tracing not configured: no spans, no exporter, nothing to flush. */
  static readonly off = new Tracing(null, null);

  private constructor(
    private readonly tracer: Tracer | null,
    private readonly provider: NodeTracerProvider | null,
  ) {}

  /** Spans exported in batches over OTLP/HTTP (JSON) when `config.endpoint` is set; else `off`. */
  static start(config: TracingConfig): Tracing {
    if (config.endpoint === null) return Tracing.off;
    const exporter = new OTLPTraceExporter({ url: `${config.endpoint.replace(/\/+$/, '')}/v1/traces` });
    const provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ 'service.name': config.serviceName }),
      spanProcessors: [new BatchSpanProcessor(exporter)],
    });
    return new Tracing(provider.getTracer('atende'), provider);
  }

  get enabled(): boolean {
    return this.tracer !== null;
  }

  /** A started span (child of `parent` when given, else a new trace); undefined when tracing is off. */
  span(name: string, options: SpanOptions, parent?: Context): Span | undefined {
    return this.tracer?.startSpan(name, options, parent ?? ROOT_CONTEXT);
  }

  /** Exports what is buffered and stops: the node's clean stop, after the roles have stopped. */
  async shutdown(): Promise<void> {
    await this.provider?.shutdown();
  }
}

/** The context whose current span is `span`, to pass as a parent; undefined without a span. */
export function contextWith(span: Span | undefined): Context | undefined {
  return span ? trace.setSpan(ROOT_CONTEXT, span) : undefined;
}

/** `span`'s W3C `traceparent`, to store with queued work or send on; null without a span. */
export function traceparentOf(span: Span | undefined): string | null {
  if (!span) return null;
  const carrier: Record<string, string> = {};
  propagator.inject(trace.setSpan(ROOT_CONTEXT, span), carrier, defaultTextMapSetter);
  return carrier.traceparent ?? null;
}

/** The remote parent a `traceparent` names; undefined when absent or malformed (a new trace then). */
export function contextOf(traceparent: string | null | undefined): Context | undefined {
  if (!traceparent) return undefined;
  const ctx = propagator.extract(ROOT_CONTEXT, { traceparent }, defaultTextMapGetter);
  return trace.getSpanContext(ctx) ? ctx : undefined;
}

/** A link to the span a `traceparent` names, for work it caused later and elsewhere; none if malformed. */
export function linksTo(traceparent: string | null | undefined): Link[] {
  const ctx = contextOf(traceparent);
  const spanContext = ctx && trace.getSpanContext(ctx);
  return spanContext ? [{ context: spanContext }] : [];
}

/** Marks `span` failed with a message that names the failure: never a secret, body or phone number. */
export function failed(span: Span | undefined, message: string): void {
  span?.setStatus({ code: SpanStatusCode.ERROR, message });
}
