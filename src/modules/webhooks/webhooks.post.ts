import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { toEnvelope } from '../../events/events.service.js';
import { RefusedDestinationError, type WebhookEgress } from './webhooks.egress.js';
import type { ClaimedDelivery } from './webhook-queue.repo.js';

/**
 * A webhook delivery over HTTP: the signed POST of an event's envelope to its endpoint, what the
 * answer (or its absence) means, and when to try again. The claim loop, the lease and the recording of
 * outcomes are `WebhookDeliverer`'s (webhooks.worker.ts).
 */

export const USER_AGENT = 'Atende-Webhooks/1.0';

/** Longest wait between two attempts, whatever the backoff or a Retry-After asks. */
export const MAX_RETRY_DELAY_MS = 3600_000;

/**
 * How much of a receiver's answer is read past its headers: a short body is drained so the connection
 * is reused; a longer one closes the connection instead. The body itself is never kept.
 */
const DRAINED_BODY_BYTES = 64 * 1024;

/**
 * Connections to receivers are reused between attempts (one TLS handshake per endpoint, not per
 * event); idle ones do not keep the process alive (node unrefs them).
 */
const AGENT_OPTIONS = { keepAlive: true, keepAliveMsecs: 1_000, timeout: 30_000 };

/** `Atende-Signature` of a body sent at `t` (unix seconds): `t=<t>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. */
export function signature(secret: string, t: number, body: string): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${body}`).digest('hex')}`;
}

/**
 * Delay before attempt `attempt + 1`: the base doubled per attempt made, up to an hour, with equal
 * jitter (half fixed, half random) so the retries of many deliveries spread out. A Retry-After is
 * honoured: never earlier than it asks, never beyond the cap.
 */
export function retryDelayMs(baseMs: number, attempt: number, retryAfterMs: number | null): number {
  const exp = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.min(attempt - 1, 30));
  const jittered = exp / 2 + Math.random() * (exp / 2);
  return Math.min(MAX_RETRY_DELAY_MS, Math.max(jittered, retryAfterMs ?? 0));
}

/** Retry-After as seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export type Outcome =
  | { kind: 'answered'; status: number; retryAfterMs: number | null }
  | { kind: 'unreachable'; error: string }
  | { kind: 'refused'; error: string };

/** 2xx delivered; 408, 429 and 5xx (and no answer) retried; any other status is final. */
export const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

/** Short reasons for the usual network errors (our words, never anything the receiver sent). */
const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'Connection refused',
  ECONNRESET: 'Connection reset',
  EPIPE: 'Connection closed',
  ETIMEDOUT: 'Connection timed out',
  EHOSTUNREACH: 'Host unreachable',
  ENETUNREACH: 'Network unreachable',
  ENOTFOUND: 'Host not found',
  EAI_AGAIN: 'Name resolution failed',
  ECONNABORTED: 'Connection aborted',
};

/**
 * The delivery log's reason for an attempt without an answer: a fixed phrase and the error code. The
 * message of a parser or TLS error could quote bytes the receiver sent, so only codes are kept.
 */
function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return `Timed out after ${timeoutMs} ms`;
  }
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[A-Z0-9_]{1,40}$/.test(code)) return 'Network error';
  if (NETWORK_ERRORS[code]) return `${NETWORK_ERRORS[code]} (${code})`;
  if (code.startsWith('HPE_')) return `Invalid HTTP answer (${code})`;
  if (/CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_/.test(code)) return `TLS error (${code})`;
  return `Network error (${code})`;
}

/** POSTs deliveries over connections kept alive per scheme; destinations checked by the egress policy. */
export class WebhookPoster {
  private readonly agents = {
    http: new http.Agent(AGENT_OPTIONS),
    https: new https.Agent(AGENT_OPTIONS),
  };

  constructor(
    private readonly egress: WebhookEgress,
    private readonly timeoutMs: number,
  ) {}

  /** Drops the kept-alive connections (a stopping node). */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** `traceparent`: the delivery's span, sent on so that the receiver may continue its trace. */
  async post(delivery: ClaimedDelivery, traceparent: string | null = null): Promise<Outcome> {
    const envelope = toEnvelope(delivery.event);
    const body = JSON.stringify(envelope);
    const t = Math.floor(Date.now() / 1000);
    try {
      const url = new URL(delivery.url);
      // Names are checked by the egress `lookup` as the connection is made; literals here.
      this.egress.checkLiteral(url);
      const res = await this.request(url, body, {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'atende-signature': signature(delivery.secret, t, body),
        'atende-delivery': delivery.id,
        'atende-event': envelope.event,
        ...(traceparent ? { traceparent } : {}),
      });
      return { kind: 'answered', ...res };
    } catch (err) {
      if (err instanceof RefusedDestinationError) return { kind: 'refused', error: err.message };
      return { kind: 'unreachable', error: describe(err, this.timeoutMs) };
    }
  }

  /**
   * One POST; resolves with the answer's status once its headers arrive. Redirects are answers like
   * any other (final unless 408/429/5xx): following one would send the signed event somewhere the
   * subscription does not name. The body is drained (or the connection dropped), never read.
   */
  private request(
    url: URL,
    body: string,
    headers: Record<string, string>,
  ): Promise<{ status: number; retryAfterMs: number | null }> {
    const secure = url.protocol === 'https:';
    return new Promise((resolve, reject) => {
      const req = (secure ? https : http).request(
        url,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          agent: secure ? this.agents.https : this.agents.http,
          lookup: this.egress.lookup,
          signal: AbortSignal.timeout(this.timeoutMs),
        },
        (res) => {
          const retryAfter = res.headers['retry-after'];
          resolve({
            status: res.statusCode ?? 0,
            retryAfterMs: parseRetryAfter(typeof retryAfter === 'string' ? retryAfter : null, Date.now()),
          });
          let drained = 0;
          res.on('data', (chunk: Buffer) => {
            drained += chunk.length;
            if (drained > DRAINED_BODY_BYTES) res.destroy();
          });
          res.on('error', () => undefined);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }
}
