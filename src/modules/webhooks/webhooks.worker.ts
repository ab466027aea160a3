import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Logger } from 'pino';
import type { Tx } from '../../db/index.js';
import type { DeliveryQueue, EventsService } from '../../events/events.service.js';
import { toEnvelope } from '../../events/events.service.js';
import type { WebhookDeliveryJob } from '../../jobs/payloads.js';
import { QUEUES, type JobQueue } from '../../jobs/queue.js';
import type { NotificationsService } from '../notifications/notifications.service.js';
import { RefusedDestinationError, type WebhookEgress } from './webhooks.egress.js';
import type { AttemptResult, ClaimedDelivery, WebhooksRepo } from './webhooks.repo.js';

export const USER_AGENT = 'Atende-Webhooks/1.0';

/** Longest wait between two attempts, whatever the backoff or a Retry-After asks. */
export const MAX_RETRY_DELAY_MS = 3600_000;

/**
 * Workers per node; each fetches up to ATTEMPTS_PER_FETCH attempts and runs them at once, so a fetch
 * and a completion (two of pg-boss's statements) are shared by two attempts. Each attempt waits at
 * most the timeout on its receiver.
 */
const WORKERS = 8;
const ATTEMPTS_PER_FETCH = 2;

/**
 * Attempts to one endpoint running at once per node (pg-boss groups, by webhook id): a slow or dead
 * endpoint holds at most this many attempts, so at most this many of the node's workers, never every
 * account's deliveries.
 */
const PER_ENDPOINT = 2;

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

type Outcome =
  | { kind: 'answered'; status: number; retryAfterMs: number | null }
  | { kind: 'unreachable'; error: string }
  | { kind: 'refused'; error: string };

/** 2xx delivered; 408, 429 and 5xx (and no answer) retried; any other status is final. */
const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

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

/** An attempt to queue: the job's payload and the endpoint it goes to (its pg-boss group). */
export interface ScheduledAttempt extends WebhookDeliveryJob {
  webhookId: string;
}

/** Queues delivery attempts as pg-boss jobs inside the caller's transaction. */
export class WebhookJobs implements DeliveryQueue {
  constructor(private readonly jobs: JobQueue) {}

  /** The first attempt of deliveries an event write just created. */
  async enqueue(tx: Tx, deliveries: readonly { id: string; webhookId: string }[]): Promise<void> {
    await this.schedule(
      tx,
      deliveries.map((d) => ({ deliveryId: d.id, generation: 0, webhookId: d.webhookId })),
      null,
    );
  }

  async schedule(tx: Tx, attempts: readonly ScheduledAttempt[], startAfter: Date | null): Promise<void> {
    await this.jobs.insertInTransaction<WebhookDeliveryJob>(
      tx,
      QUEUES.webhookDelivery,
      attempts.map(({ deliveryId, generation, webhookId }) => ({
        data: { deliveryId, generation },
        group: { id: webhookId },
        ...(startAfter ? { startAfter } : {}),
      })),
    );
  }
}

export interface WebhookDeliveryOptions {
  timeoutMs: number;
  retryBaseMs: number;
  retryWindowSeconds: number;
}

/**
 * Sends deliveries: one job = one attempt. The envelope is read from the event log, signed with the
 * endpoint's current secret and POSTed; the outcome, the next attempt (a new job with `startAfter`)
 * and the endpoint's health are written in one transaction. An endpoint failing for the whole retry
 * window is disabled and the account's webhook admins are notified.
 */
export class WebhookDeliverer {
  private readonly agents = {
    http: new http.Agent(AGENT_OPTIONS),
    https: new https.Agent(AGENT_OPTIONS),
  };

  constructor(
    private readonly repo: WebhooksRepo,
    private readonly jobs: WebhookJobs,
    private readonly egress: WebhookEgress,
    private readonly events: EventsService,
    private readonly notifications: NotificationsService,
    private readonly options: WebhookDeliveryOptions,
    private readonly logger: Logger,
  ) {}

  async register(queue: JobQueue): Promise<void> {
    await queue.boss.work<WebhookDeliveryJob>(
      QUEUES.webhookDelivery,
      {
        batchSize: ATTEMPTS_PER_FETCH,
        localConcurrency: WORKERS,
        localGroupConcurrency: PER_ENDPOINT,
        // Retries come due without a NOTIFY: a short poll finds them.
        pollingIntervalSeconds: 1,
        notifyPollingIntervalSeconds: 1,
        burstWhenReadyExceeds: 1,
      },
      async (jobs) => {
        // Each attempt settles on its own; a database failure of one makes pg-boss run the fetch's
        // jobs again, and an attempt already settled then finds nothing to claim.
        const done = await Promise.allSettled(jobs.map((job) => this.attempt(job.data)));
        const failed = done.find((r): r is PromiseRejectedResult => r.status === 'rejected');
        if (failed) throw failed.reason instanceof Error ? failed.reason : new Error(String(failed.reason));
      },
    );
  }

  /** One attempt; throws only when the database fails (pg-boss then runs the job again). */
  async attempt(job: WebhookDeliveryJob): Promise<void> {
    const startedAt = new Date();
    const delivery = await this.repo.claim(job.deliveryId, job.generation, startedAt);
    if (!delivery) {
      // Settled, replayed, deleted — or its endpoint was disabled before this attempt.
      await this.repo.failIfDisabled(job.deliveryId, job.generation, startedAt);
      return;
    }
    const outcome = await this.post(delivery);
    await this.settle(delivery, startedAt, outcome);
  }

  private async post(delivery: ClaimedDelivery): Promise<Outcome> {
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
      });
      return { kind: 'answered', ...res };
    } catch (err) {
      if (err instanceof RefusedDestinationError) return { kind: 'refused', error: err.message };
      return { kind: 'unreachable', error: describe(err, this.options.timeoutMs) };
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
          signal: AbortSignal.timeout(this.options.timeoutMs),
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

  private async settle(delivery: ClaimedDelivery, startedAt: Date, outcome: Outcome): Promise<void> {
    const at = new Date();
    if (outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300) {
      await this.repo.settleDelivered(
        delivery.id,
        delivery.generation,
        delivery.webhook_id,
        at,
        outcome.status,
      );
      return;
    }
    // Status and our own short reason only: what a receiver answers never reaches the log, so an
    // endpoint cannot be used to read anything back.
    const result: AttemptResult =
      outcome.kind === 'answered'
        ? { responseStatus: outcome.status, error: `HTTP ${outcome.status}` }
        : { responseStatus: null, error: outcome.error };
    const windowMs = this.options.retryWindowSeconds * 1000;
    const log = { deliveryId: delivery.id, webhookId: delivery.webhook_id, attempt: delivery.attempts };

    await this.events.transaction(async (tx, events) => {
      const disabled = await this.repo.recordFailure(
        tx,
        delivery.webhook_id,
        startedAt,
        new Date(at.getTime() - windowMs),
        at,
      );
      if (disabled) {
        await this.repo.failPending(tx, disabled.id, at);
        await this.notifications.notifyPermission(
          tx,
          events,
          disabled.account_id,
          'webhooks:manage',
          'webhook.disabled',
          { webhookId: disabled.id, url: disabled.url },
        );
        this.logger.warn(
          { webhookId: disabled.id },
          'webhook endpoint disabled after failing for the retry window',
        );
      }
      const deadline = delivery.window_started_at.getTime() + windowMs;
      // A refused destination is final, like a 4xx: the address policy will not change by waiting.
      const again =
        !disabled &&
        at.getTime() < deadline &&
        (outcome.kind === 'unreachable' || (outcome.kind === 'answered' && retryable(outcome.status)));
      if (!again) {
        await this.repo.settle(tx, delivery.id, delivery.generation, at, result, { status: 'failed' });
        this.logger.info({ ...log, error: result.error }, 'webhook delivery failed');
        return;
      }
      const retryAfterMs = outcome.kind === 'answered' ? outcome.retryAfterMs : null;
      const delay = retryDelayMs(this.options.retryBaseMs, delivery.attempts, retryAfterMs);
      // The last attempt is made when the window closes, so a receiver back by then still gets it.
      const next = new Date(Math.min(at.getTime() + delay, deadline));
      const owned = await this.repo.settle(tx, delivery.id, delivery.generation, at, result, {
        status: 'pending',
        nextAttemptAt: next,
      });
      if (owned) {
        await this.jobs.schedule(
          tx,
          [{ deliveryId: delivery.id, generation: delivery.generation, webhookId: delivery.webhook_id }],
          next,
        );
      }
      this.logger.debug({ ...log, error: result.error, next }, 'webhook delivery will be retried');
    });
  }
}
