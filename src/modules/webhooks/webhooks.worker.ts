import { SpanKind, type Span } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { Doorbell } from '../../db/doorbell.js';
import { WEBHOOKS_CHANNEL } from '../../events/events.repo.js';
import type { EventsService } from '../../events/events.service.js';
import { Batcher } from '../../db/batcher.js';
import { persist } from '../../lib/persist.js';
import { failed, linksTo, traceparentOf, type Tracing } from '../../lib/tracing.js';
import { ClaimLoop, doorbellRings, listenFor, type Claimed } from '../../jobs/claim-loop.js';
import { webhookFailureReason, type Metrics } from '../../metrics/metrics.js';
import type { NotificationsService } from '../notifications/index.js';
import type { WebhookEgress } from './webhooks.egress.js';
import { retryable, retryDelayMs, WebhookPoster, type Outcome } from './webhooks.post.js';
import type { WebhooksRepo } from './webhooks.repo.js';
import type { AttemptResult, ClaimedDelivery, WebhookQueueRepo } from './webhook-queue.repo.js';

/**
 * Attempts in flight per node at most; they are I/O (a POST each), so many run at once. A dead endpoint
 * holds at most its per-endpoint share of them (`endpointConcurrency`), never all.
 */
const NODE_CONCURRENCY = 256;

/** Deliveries claimed per statement at most. */
const CLAIM_BATCH = 128;

/** How often due deliveries are looked for without a notification (retries coming due, lost NOTIFY). */
const POLL_MS = 1_000;

/**
 * How long a claim outlives the attempt's own time limit: a node that dies mid-attempt (or cannot
 * record the outcome) leaves the delivery due again then, for any node to attempt again.
 */
const LEASE_MARGIN_MS = 30_000;

/** How long a stopping node waits for its attempts in flight (the rest come back after their lease). */
const STOP_WAIT_MS = 10_000;

/** How long an outcome is retried while the database is out of reach (then the lease sends it again). */
const SETTLE_FOR_MS = 3_600_000;

export interface WebhookDeliveryOptions {
  timeoutMs: number;
  retryBaseMs: number;
  retryWindowSeconds: number;
  /** Attempts in flight to one endpoint at most (across the nodes). */
  endpointConcurrency: number;
}

/** What a traced deliverer needs: the tracer, and the stored trace of a Channel API send. */
export interface WebhookTracing {
  tracing: Tracing;
  /** The `traceparent` a send request was accepted with (`RequestLogsRepo.traceparentOf`). */
  sendTraceparent(requestId: string): Promise<string | null>;
}

export interface WebhookDispatchOptions {
  /** For the NOTIFY listener (a connection of its own). */
  databaseUrl: string;
  /** How long a claim lasts; default the attempt's time limit plus LEASE_MARGIN_MS. */
  leaseMs?: number;
  pollMs?: number;
}

/** What a claim's attempt needs to be settled: the delivery, its generation and attempt count. */
interface Current {
  id: string;
  generation: number;
  attempt: number;
}

/**
 * Sends deliveries. The `webhook_deliveries` rows are the queue (migration 017): a pending row is due
 * at its `next_attempt_at`; a node claims due rows several at a time (each endpoint within its cap) for
 * a lease, POSTs each (the envelope from the event log, signed with the endpoint's current secret) over
 * kept-alive connections, and settles the outcomes — 2xx answers several per statement; a failure in a
 * transaction with the endpoint's health and the next attempt (backoff with jitter, Retry-After) as
 * the row's new due time. An endpoint failing for the whole retry window is disabled and the account's
 * webhook admins are notified. Claims run on a claim loop (`jobs/claim-loop.ts`), woken by the NOTIFY
 * of the commits that create deliveries, the doorbell of this process's writers, and a short poll; a
 * killed node's claims are due again when their lease ends (at least once).
 */
export class WebhookDeliverer {
  private readonly poster: WebhookPoster;
  private readonly delivered: Batcher<DeliveredOutcome, void>;
  private leaseMs = 0;
  private loop: ClaimLoop<ClaimedAttempt> | null = null;

  constructor(
    private readonly repo: WebhooksRepo,
    /** The delivery queue: claims and outcomes. */
    private readonly queue: WebhookQueueRepo,
    private readonly egress: WebhookEgress,
    /** Rung after commit by event writers of this process that created deliveries. */
    private readonly doorbell: Doorbell,
    private readonly events: EventsService,
    private readonly notifications: NotificationsService,
    private readonly options: WebhookDeliveryOptions,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
    /** A span per attempt, when traced. */
    private readonly tracing: WebhookTracing | null = null,
  ) {
    this.poster = new WebhookPoster(egress, options.timeoutMs);
    // 2xx outcomes finishing while a settle runs go together in the next one (one statement at a
    // time, so two never lock the same endpoints in turn).
    this.delivered = new Batcher<DeliveredOutcome, void>({
      run: async (items) => {
        await this.queue.settleDelivered(items);
        return items.map(() => undefined);
      },
      concurrency: 1,
      maxItems: 500,
      maxWeight: Number.POSITIVE_INFINITY,
      weight: () => 0,
    });
  }

  async start(opts: WebhookDispatchOptions): Promise<void> {
    this.leaseMs = opts.leaseMs ?? this.options.timeoutMs + LEASE_MARGIN_MS;
    const pollMs = opts.pollMs ?? POLL_MS;
    this.loop = new ClaimLoop<ClaimedAttempt>({
      name: 'webhook deliveries',
      concurrency: NODE_CONCURRENCY,
      pollMs,
      wakeUps: [
        listenFor({
          databaseUrl: opts.databaseUrl,
          channel: WEBHOOKS_CHANNEL,
          retryDelayMs: pollMs,
          logger: this.logger,
          name: 'webhook deliveries',
          waitsFor: 'new deliveries',
        }),
        // Writers of this process wake it at once; other processes' through the listener.
        doorbellRings(this.doorbell, WEBHOOKS_CHANNEL),
      ],
      claim: (room) => this.claim(room),
      run: (claimed) => claimed.map((c) => this.attemptLogged(c)),
      stopWaitMs: STOP_WAIT_MS,
      stopped: async () => this.poster.close(),
      claimFailed: 'claiming failed',
      claimWorksAgain: 'claiming works again',
      logger: this.logger,
    });
    await this.loop.start();
  }

  /**
   * Stops claiming and waits (bounded) for the attempts in flight — those of a claim still running
   * when the stop began too (`ClaimLoop.stop`). The others come back after their lease.
   */
  async stop(): Promise<void> {
    if (this.loop) await this.loop.stop();
    else this.poster.close();
  }

  /** Claims due deliveries for up to `room` attempts (at most CLAIM_BATCH per statement). */
  private async claim(room: number): Promise<Claimed<ClaimedAttempt>> {
    const max = Math.min(CLAIM_BATCH, room);
    const claimedAt = new Date();
    const claimed = await this.queue.claimDue(max, this.options.endpointConcurrency, this.leaseMs, claimedAt);
    // A full batch: more may be due.
    return { items: claimed.map((delivery) => ({ delivery, claimedAt })), more: claimed.length === max };
  }

  private attemptLogged({ delivery, claimedAt }: ClaimedAttempt): Promise<void> {
    return this.attempt(delivery, claimedAt).catch((err: unknown) => {
      this.logger.error({ err, deliveryId: delivery.id }, 'webhook delivery: attempt failed');
    });
  }

  /**
   * One claimed attempt: POST, then its outcome recorded (retried while the database is away).
   * `startedAt`: the claim's time, which started the delivery's retry window (the failure streak
   * starts at it too, so both end together).
   */
  async attempt(delivery: ClaimedDelivery, startedAt: Date): Promise<void> {
    const span = this.tracing?.tracing.enabled ? await this.attemptSpan(delivery) : undefined;
    const outcome = await this.poster.post(delivery, traceparentOf(span));
    if (span) {
      if (outcome.kind === 'answered') span.setAttribute('http.response.status_code', outcome.status);
      const ok = outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300;
      // Our own short reasons only (webhookFailureReason, the delivery log's): never the answer's body.
      if (!ok) failed(span, outcome.kind === 'answered' ? `HTTP ${outcome.status}` : outcome.error);
      span.end();
    }
    const failure = webhookFailureReason(outcome);
    if (failure) this.metrics.webhookAttemptFailed(failure);
    let warned = false;
    const result = await persist(() => this.settle(delivery, startedAt, outcome), {
      unavailableForMs: SETTLE_FOR_MS,
      refusedAttempts: 3,
      baseDelayMs: 100,
      maxDelayMs: 5_000,
      onFailure: (err) => {
        if (warned) return;
        warned = true;
        this.logger.warn(
          { err, deliveryId: delivery.id },
          'webhook delivery: recording the outcome failed; retrying',
        );
      },
    });
    // Not recorded: the claim's lease ends and the delivery is attempted again.
    if (!result.ok)
      this.logger.error(
        { err: result.err, deliveryId: delivery.id },
        'webhook delivery: outcome not recorded',
      );
  }

  /**
   * The span of one attempt: a trace of its own (the event was written in another transaction, maybe
   * on another node), linked to the Channel API send its message came from when that send was traced.
   */
  private async attemptSpan(delivery: ClaimedDelivery): Promise<Span | undefined> {
    if (!this.tracing) return undefined;
    const requestId = requestIdOf(delivery.event.data);
    const traceparent = requestId ? await this.tracing.sendTraceparent(requestId).catch(() => null) : null;
    return this.tracing.tracing.span('webhook delivery', {
      kind: SpanKind.CLIENT,
      attributes: {
        'http.request.method': 'POST',
        'atende.webhook_id': delivery.webhook_id,
        'atende.delivery_id': delivery.id,
        'atende.event': delivery.event.event,
        'atende.attempt': delivery.attempts,
      },
      links: linksTo(traceparent),
    });
  }

  private async settle(delivery: ClaimedDelivery, startedAt: Date, outcome: Outcome): Promise<void> {
    const at = new Date();
    const current: Current = { id: delivery.id, generation: delivery.generation, attempt: delivery.attempts };
    if (outcome.kind === 'answered' && outcome.status >= 200 && outcome.status < 300) {
      await this.delivered.submit({
        ...current,
        webhookId: delivery.webhook_id,
        at,
        responseStatus: outcome.status,
      });
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
      const disabled = await this.queue.recordFailure(
        tx,
        delivery.webhook_id,
        startedAt,
        new Date(at.getTime() - windowMs),
        at,
      );
      if (disabled) {
        // This attempt's own answer first; then the endpoint's other pending deliveries.
        await this.queue.settle(tx, current, at, result, { status: 'failed' });
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
        this.logger.info({ ...log, error: result.error }, 'webhook delivery failed');
        return;
      }
      const deadline = delivery.window_started_at.getTime() + windowMs;
      // A refused destination is final, like a 4xx: the address policy will not change by waiting.
      const again =
        at.getTime() < deadline &&
        (outcome.kind === 'unreachable' || (outcome.kind === 'answered' && retryable(outcome.status)));
      if (!again) {
        await this.queue.settle(tx, current, at, result, { status: 'failed' });
        this.logger.info({ ...log, error: result.error }, 'webhook delivery failed');
        return;
      }
      const retryAfterMs = outcome.kind === 'answered' ? outcome.retryAfterMs : null;
      const delay = retryDelayMs(this.options.retryBaseMs, delivery.attempts, retryAfterMs);
      // The last attempt is made when the window closes, so a receiver back by then still gets it.
      const next = new Date(Math.min(at.getTime() + delay, deadline));
      await this.queue.settle(tx, current, at, result, { status: 'pending', nextAttemptAt: next });
      this.logger.debug({ ...log, error: result.error, next }, 'webhook delivery will be retried');
    });
  }
}

type DeliveredOutcome = Current & { webhookId: string; at: Date; responseStatus: number };

/** A claimed delivery and the claim's time, which started its retry window. */
interface ClaimedAttempt {
  delivery: ClaimedDelivery;
  claimedAt: Date;
}

/** The send request a message event is about (`data.message.requestId`), if any. */
function requestIdOf(data: unknown): string | null {
  const message = typeof data === 'object' && data !== null ? (data as { message?: unknown }).message : null;
  const id =
    typeof message === 'object' && message !== null ? (message as { requestId?: unknown }).requestId : null;
  return typeof id === 'string' ? id : null;
}
