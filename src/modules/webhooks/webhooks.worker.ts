import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Logger } from 'pino';
import type { Doorbell } from '../../db/doorbell.js';
import { WEBHOOKS_CHANNEL } from '../../events/events.repo.js';
import type { EventsService } from '../../events/events.service.js';
import { toEnvelope } from '../../events/events.service.js';
import { Batcher } from '../../lib/batcher.js';
import { persist } from '../../lib/persist.js';
import { ClaimLoop, doorbellRings, listenFor, type Claimed } from '../../jobs/claim-loop.js';
import { webhookFailureReason, type Metrics } from '../../metrics/metrics.js';
import type { NotificationsService } from '../notifications/notifications.service.js';
import { RefusedDestinationError, type WebhookEgress } from './webhooks.egress.js';
import type { AttemptResult, ClaimedDelivery, WebhooksRepo } from './webhooks.repo.js';

export const USER_AGENT = 'Atende-Webhooks/1.0';

/** Longest wait between two attempts, whatever the backoff or a Retry-After asks. */
export const MAX_RETRY_DELAY_MS = 3600_000;

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

export interface WebhookDeliveryOptions {
  timeoutMs: number;
  retryBaseMs: number;
  retryWindowSeconds: number;
  /** Attempts in flight to one endpoint at most (across the nodes). */
  endpointConcurrency: number;
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
  private readonly agents = {
    http: new http.Agent(AGENT_OPTIONS),
    https: new https.Agent(AGENT_OPTIONS),
  };
  private readonly delivered: Batcher<DeliveredOutcome, void>;
  private leaseMs = 0;
  private loop: ClaimLoop<ClaimedAttempt> | null = null;

  constructor(
    private readonly repo: WebhooksRepo,
    private readonly egress: WebhookEgress,
    /** Rung after commit by event writers of this process that created deliveries. */
    private readonly doorbell: Doorbell,
    private readonly events: EventsService,
    private readonly notifications: NotificationsService,
    private readonly options: WebhookDeliveryOptions,
    private readonly logger: Logger,
    private readonly metrics: Metrics,
  ) {
    // 2xx outcomes finishing while a settle runs go together in the next one (one statement at a
    // time, so two never lock the same endpoints in turn).
    this.delivered = new Batcher<DeliveredOutcome, void>({
      run: async (items) => {
        await this.repo.settleDelivered(items);
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
      stopped: async () => {
        this.agents.http.destroy();
        this.agents.https.destroy();
      },
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
    else {
      this.agents.http.destroy();
      this.agents.https.destroy();
    }
  }

  /** Claims due deliveries for up to `room` attempts (at most CLAIM_BATCH per statement). */
  private async claim(room: number): Promise<Claimed<ClaimedAttempt>> {
    const max = Math.min(CLAIM_BATCH, room);
    const claimedAt = new Date();
    const claimed = await this.repo.claimDue(max, this.options.endpointConcurrency, this.leaseMs, claimedAt);
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
    const outcome = await this.post(delivery);
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
      const disabled = await this.repo.recordFailure(
        tx,
        delivery.webhook_id,
        startedAt,
        new Date(at.getTime() - windowMs),
        at,
      );
      if (disabled) {
        // This attempt's own answer first; then the endpoint's other pending deliveries.
        await this.repo.settle(tx, current, at, result, { status: 'failed' });
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
        await this.repo.settle(tx, current, at, result, { status: 'failed' });
        this.logger.info({ ...log, error: result.error }, 'webhook delivery failed');
        return;
      }
      const retryAfterMs = outcome.kind === 'answered' ? outcome.retryAfterMs : null;
      const delay = retryDelayMs(this.options.retryBaseMs, delivery.attempts, retryAfterMs);
      // The last attempt is made when the window closes, so a receiver back by then still gets it.
      const next = new Date(Math.min(at.getTime() + delay, deadline));
      await this.repo.settle(tx, current, at, result, { status: 'pending', nextAttemptAt: next });
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
