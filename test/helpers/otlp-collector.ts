import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local OTLP/HTTP trace collector on 127.0.0.1: takes the exports of `@opentelemetry/exporter-trace-otlp-http`
 * (JSON, POST /v1/traces — that exporter's default; protobuf is answered 415, so a change of format
 * fails loudly rather than being read as no spans) and keeps their spans, flattened, for assertions.
 */

/** OTLP's span kinds (opentelemetry-proto `Span.SpanKind`). */
export const KIND = { internal: 1, server: 2, client: 3, producer: 4, consumer: 5 } as const;
/** OTLP's status codes (`Status.StatusCode`). */
export const STATUS = { unset: 0, ok: 1, error: 2 } as const;

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean>;
  links: { traceId: string; spanId: string }[];
  status: { code: number; message?: string };
  /** `service.name` of the resource that sent it. */
  service: string | null;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpKeyValue {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpKeyValue[];
  links?: { traceId: string; spanId: string }[];
  status?: { code?: number; message?: string };
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpKeyValue[] };
    scopeSpans?: { spans?: OtlpSpan[] }[];
  }[];
}

const valueOf = (v: OtlpValue): string | number | boolean =>
  v.stringValue ??
  (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
  v.doubleValue ??
  v.boolValue ??
  '';

const attributesOf = (list: OtlpKeyValue[] | undefined) =>
  Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));

export interface OtlpCollector {
  /** The base URL to give as `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  spans: ReceivedSpan[];
  /** Export requests received (any path, any format). */
  exports: number;
  /** Resolves with the first span, past or future, for which `pred` holds. */
  span(pred: (s: ReceivedSpan) => boolean): Promise<ReceivedSpan>;
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: ReceivedSpan[] = [];
  const waiters = new Set<() => void>();
  const collector: OtlpCollector = {
    url: '',
    spans,
    exports: 0,
    span: (pred) =>
      new Promise((resolve) => {
        const look = () => {
          const found = spans.find(pred);
          if (!found) return;
          waiters.delete(look);
          resolve(found);
        };
        waiters.add(look);
        look();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = createServer((req, res) => {
    collector.exports++;
    void body(req).then((raw) => {
      const json = req.method === 'POST' && req.url === '/v1/traces';
      if (!json || !String(req.headers['content-type']).startsWith('application/json')) {
        res.writeHead(415).end();
        return;
      }
      const parsed = JSON.parse(raw.toString('utf8')) as OtlpExport;
      for (const rs of parsed.resourceSpans ?? []) {
        const service = attributesOf(rs.resource?.attributes)['service.name'];
        for (const ss of rs.scopeSpans ?? [])
          for (const s of ss.spans ?? [])
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId || null,
              name: s.name,
              kind: s.kind,
              attributes: attributesOf(s.attributes),
              links: (s.links ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
              status: {
                code: s.status?.code ?? 0,
                ...(s.status?.message ? { message: s.status.message } : {}),
              },
              service: typeof service === 'string' ? service : null,
            });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const w of [...waiters]) w();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  collector.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return collector;
}
