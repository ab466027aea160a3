import { collectDefaultMetrics, Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { ProviderError } from '../providers/types.js';
import { providerErrorKind } from '../providers/registry.js';

/**
 * The platform's Prometheus metrics (README "Metrics"), on a registry the wiring creates and passes
 * in: one per server, so that several servers in one process (the tests) never share counters.
 * Labels are bounded sets only — route patterns, methods, status codes, providers, error classes —
 * never ids or raw URLs: every node exposes its own series and Prometheus scrapes each node.
 */

/** Why a provider call of an outbound message failed, in a few classes a dashboard can split on. */
export type SendErrorClass =
  'credentials' | 'rate_limited' | 'timeout' | 'network' | 'provider_unavailable' | 'rejected' | 'internal';

/** The class of a send failure: the provider's own code decides, then whether it was temporary. */
export function sendErrorClass(err: unknown): SendErrorClass {
  if (!(err instanceof ProviderError)) return 'internal';
  const kind = providerErrorKind(err);
  if (kind === 'credentials') return 'credentials';
  if (err.code === 'timeout') return 'timeout';
  if (err.code === 'network_error') return 'network';
  if (err.code === 'http_429' || kind === 'rate_limited') return 'rate_limited';
  return err.temporary ? 'provider_unavailable' : 'rejected';
}

/** Why a webhook attempt failed: the receiver's answer by status class, or no answer at all. */
export type WebhookFailureReason =
  'http_3xx' | 'http_4xx' | 'http_5xx' | 'http_other' | 'unreachable' | 'refused';

export function webhookFailureReason(
  outcome: { kind: 'answered'; status: number } | { kind: 'unreachable' | 'refused' },
): WebhookFailureReason | null {
  if (outcome.kind !== 'answered') return outcome.kind;
  const s = outcome.status;
  if (s >= 200 && s < 300) return null;
  if (s >= 300 && s < 400) return 'http_3xx';
  if (s >= 400 && s < 500) return 'http_4xx';
  if (s >= 500 && s < 600) return 'http_5xx';
  return 'http_other';
}

/** Seconds; from a cached answer (~1 ms) to a slow list or upload. */
const HTTP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** A label for requests no route matched (404s): one series, whatever URLs are tried. */
export const UNMATCHED_ROUTE = 'unmatched';

type HttpLabels = 'route' | 'method' | 'status_code';

export class Metrics {
  private readonly http: Histogram<HttpLabels>;
  /** One child per route, method and status: a request costs a map lookup and an observe. */
  private readonly httpChildren = new Map<string, Histogram.Internal<HttpLabels>>();
  private readonly sendDelivered: Counter<'provider'>;
  private readonly sendFailed: Counter<'provider' | 'error_class'>;
  private readonly webhookFailures: Counter<'reason'>;

  constructor(
    readonly registry: Registry,
    options: { processMetrics?: boolean } = {},
  ) {
    // Node's own (CPU, memory, GC, handles, event-loop lag as nodejs_eventloop_lag_*), under their
    // usual names so that the common Node.js dashboards work as they are.
    if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
    const registers = [registry];
    this.http = new Histogram({
      name: 'atende_http_request_duration_seconds',
      help: 'HTTP API requests by route pattern, method and status code: time to the answer',
      labelNames: ['route', 'method', 'status_code'],
      buckets: HTTP_BUCKETS,
      registers,
    });
    this.sendDelivered = new Counter({
      name: 'atende_send_delivered_total',
      help: 'Outbound messages (Channel API requests, agent replies) the provider accepted',
      labelNames: ['provider'],
      registers,
    });
    this.sendFailed = new Counter({
      name: 'atende_send_failures_total',
      help: 'Provider calls of outbound messages that failed, by error class (retried ones included)',
      labelNames: ['provider', 'error_class'],
      registers,
    });
    this.webhookFailures = new Counter({
      name: 'atende_webhook_delivery_failures_total',
      help: 'Webhook delivery attempts that failed, by reason (retried ones included)',
      labelNames: ['reason'],
      registers,
    });
  }

  /** One answered HTTP request. `route` is the route's pattern (`/api/chats/:id`), never the URL. */
  observeHttp(route: string, method: string, statusCode: number, seconds: number): void {
    const key = `${method} ${statusCode} ${route}`;
    let child = this.httpChildren.get(key);
    if (child === undefined) {
      child = this.http.labels(route, method, String(statusCode));
      this.httpChildren.set(key, child);
    }
    child.observe(seconds);
  }

  sendSucceeded(provider: string): void {
    this.sendDelivered.inc({ provider });
  }

  sendFailedWith(provider: string, err: unknown): void {
    this.sendFailed.inc({ provider, error_class: sendErrorClass(err) });
  }

  webhookAttemptFailed(reason: WebhookFailureReason): void {
    this.webhookFailures.inc({ reason });
  }

  /**
   * A gauge whose value is read when Prometheus scrapes: `read` answers the value per label set;
   * when it throws (the database out of reach) the gauge is left out of that scrape rather than
   * failing the whole answer or repeating a stale value.
   */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    read: () =>
      Promise<Array<[Partial<Record<L, string>>, number]>> | Array<[Partial<Record<L, string>>, number]>,
    onError: (err: unknown) => void = () => undefined,
  ): void {
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        try {
          for (const [labels, value] of await read()) this.set(labels, value);
        } catch (err) {
          onError(err);
        }
      },
    });
  }
}
