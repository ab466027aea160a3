import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import type { Tx } from '../../db/index.js';
import type { DeliveryQueue, EventsService } from '../../events/events.service.js';
import { toEnvelope } from '../../events/events.service.js';
import type { WebhookDeliveryJob } from '../../jobs/payloads.js';
import { QUEUES, type JobQueue } from '../../jobs/queue.js';
import type { NotificationsService } from '../notifications/notifications.service.js';
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

/** How much of a receiver's answer is read and kept (`lastError`), so a large body costs nothing. */
const KEPT_BODY_CHARS = 300;

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
  | { kind: 'answered'; status: number; body: string; retryAfterMs: number | null }
  | { kind: 'unreachable'; error: string };

/** 2xx delivered; 408, 429 and 5xx (and no answer) retried; any other status is final. */
const retryable = (status: number) => status === 408 || status === 429 || status >= 500;

/** Printable start of a receiver's answer, for the delivery log. */
function excerpt(text: string): string {
  return text
    .replace(/\p{Cc}+/gu, ' ')
    .trim()
    .slice(0, KEPT_BODY_CHARS);
}

async function readStart(res: Response): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    while (text.length < KEPT_BODY_CHARS) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    // The rest is not wanted: cancelling frees the connection.
    await reader.cancel().catch(() => undefined);
  }
  return text;
}

function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) {
    return `Timed out after ${timeoutMs} ms`;
  }
  const cause =
    err instanceof Error ? (err.cause as { message?: string; code?: string } | undefined) : undefined;
  const message = cause?.message ?? (err instanceof Error ? err.message : String(err));
  return excerpt(message) || 'Network error';
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
  constructor(
    private readonly repo: WebhooksRepo,
    private readonly jobs: WebhookJobs,
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
      const res = await fetch(delivery.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
          'atende-signature': signature(delivery.secret, t, body),
          'atende-delivery': delivery.id,
          'atende-event': envelope.event,
        },
        body,
        // A redirect is an answer like any other (final unless 408/429/5xx): following it would
        // send the signed event somewhere the subscription does not name.
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      const text = await readStart(res);
      return {
        kind: 'answered',
        status: res.status,
        body: excerpt(text),
        retryAfterMs: parseRetryAfter(res.headers.get('retry-after'), Date.now()),
      };
    } catch (err) {
      return { kind: 'unreachable', error: describe(err, this.options.timeoutMs) };
    }
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
    const result: AttemptResult =
      outcome.kind === 'answered'
        ? {
            responseStatus: outcome.status,
            error: `HTTP ${outcome.status}${outcome.body ? `: ${outcome.body}` : ''}`,
          }
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
      const again =
        !disabled && at.getTime() < deadline && (outcome.kind === 'unreachable' || retryable(outcome.status));
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
