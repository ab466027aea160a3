import type { Db } from '../../db/index.js';
import type { SendOutcome } from '../../jobs/send-dispatcher.js';
import type { LeasedJob } from '../../jobs/send-queue.js';
import { Batcher } from '../../db/batcher.js';
import type { PersistOptions } from '../../lib/persist.js';
import { SpanKind, type Span } from '@opentelemetry/api';
import { contextOf, contextWith, failed, type Tracing } from '../../lib/tracing.js';
import { HOLD_RESULTS, holdOutcome, judgeFailure, storedFile, type Deliverer } from './deliver.js';
import { SendConversations, type Conversation } from './send-conversation.js';
import { SendOutcomes, type Attempt, type OutcomeDeps } from './send-outcome.js';

/** Outcome transactions in flight at once, and requests per transaction at most. */
const OUTCOME_RUNS = 4;
const OUTCOME_GROUP = 100;
/**
 * Requests at the provider or answered and not yet recorded, at most: the messages a crash of this
 * node would send again. Calling the provider faster than outcomes can be recorded only lengthens the
 * queue of answers waiting for a transaction.
 */
export const MAX_UNRECORDED = 200;

/** One request through an attempt: what each step found. */
type Work = Attempt & { lastAttempt: boolean };

const notDone = (err: unknown): SendOutcome => ({
  done: false,
  reason: err instanceof Error ? err.message : String(err),
});

/** What the worker uses: what its steps use (conversation, outcome), the provider path and the replies. */
interface Deps extends OutcomeDeps {
  db: Db;
  deliverer: Deliverer;
  /** Agents' replies (ReplySender), sent in the same per-contact order as API requests. */
  replies: { process(messageId: string, lastAttempt: boolean): Promise<void> };
  /** How long, and how often, an answer the database cannot take yet is retried; default `HOLD_RESULTS`. */
  holdResults?: Omit<PersistOptions, 'onFailure'>;
  /** A span per attempt, child of the accepting request's (its stored `traceparent`), when traced. */
  tracing?: Tracing;
}

/**
 * The background half of send-message: one send-queue job per accepted request. Per attempt:
 * take the request (unless already settled: no double send), prepare the conversation under the
 * chat's lock, call the provider outside any transaction, then record the outcome in one
 * transaction. Temporary provider failures are retried by the queue with backoff and jitter; permanent
 * ones, and the last attempt, settle the request as `failed` and finish the job, since an unfinished
 * job would hold its contact's lane forever.
 */
export class SendWorker {
  /** Takes requests for an attempt, with their channels. */
  private readonly claims: Batcher<string, Work | null>;
  /** Contacts and chats of requests about to be sent. */
  private readonly conversations: Batcher<Work, Conversation>;
  /** Outcomes of requests sent or failed for good. */
  private readonly outcomes: Batcher<Work, void>;

  /** How a provider's answer is held while the database cannot record it. */
  private readonly hold: Omit<PersistOptions, 'onFailure'>;
  /** Requests between their provider call and their recorded outcome (`MAX_UNRECORDED`). */
  private unrecorded = 0;
  /** Requests waiting for room under `MAX_UNRECORDED`, in arrival order. */
  private readonly waitingForRoom: (() => void)[] = [];

  constructor(private readonly deps: Deps) {
    this.hold = deps.holdResults ?? HOLD_RESULTS;
    // Group commit for each database step: requests arriving while a step's statements run for others
    // go together in the next run, so under load a few statements carry many messages, and an idle
    // worker still handles a lone message at once.
    const group = { concurrency: 2, maxItems: 500, maxWeight: Number.POSITIVE_INFINITY, weight: () => 0 };
    this.claims = new Batcher({ ...group, run: (ids) => this.claim(ids) });
    const conversations = new SendConversations(deps);
    this.conversations = new Batcher({ ...group, run: (work) => conversations.of(work) });
    const outcomes = new SendOutcomes(deps);
    // Outcomes in more, smaller groups: an answered request waits for a free run, and until its group
    // commits, a crash of this node would send it again (docs/adr/0013-send-crash-bound.md).
    this.outcomes = new Batcher({
      ...group,
      concurrency: OUTCOME_RUNS,
      maxItems: OUTCOME_GROUP,
      run: (work) => outcomes.record(work),
    });
  }

  /**
   * Runs the jobs of one fetch (`SendDispatcher`), all of different contacts, and answers one outcome
   * per job as soon as that job is settled: Channel API requests each on its way, their database steps
   * grouped with those of the other requests in flight, and agents' replies one by one. A temporary
   * failure answers "not done" and the queue retries that job with backoff; on the last attempt the
   * handlers settle the message as failed themselves.
   */
  handleBatch(jobs: readonly { job: LeasedJob; lastAttempt: boolean }[]): Promise<SendOutcome>[] {
    return jobs.map(({ job, lastAttempt }) =>
      job.job.kind === 'api_request'
        ? this.processRequest(job.job.requestId, lastAttempt)
        : this.processReply(job.job.messageId, lastAttempt),
    );
  }

  private async processReply(messageId: string, lastAttempt: boolean): Promise<SendOutcome> {
    try {
      await this.deps.replies.process(messageId, lastAttempt);
      return { done: true };
    } catch (err) {
      return notDone(err);
    }
  }

  /**
   * One Channel API request: take it (unless already settled: no double send), prepare the
   * conversation, call the provider outside any transaction, record the outcome. A request not taken
   * (settled, or deleted with its channel) is done.
   */
  private async processRequest(requestId: string, lastAttempt: boolean): Promise<SendOutcome> {
    const { logger } = this.deps;
    let claimed: Work | null;
    try {
      claimed = await this.claims.submit(requestId);
    } catch (err) {
      logger.warn({ err, requestId }, 'taking a send request failed; will retry');
      return notDone(err);
    }
    if (!claimed) return { done: true };
    const w = claimed;
    w.lastAttempt = lastAttempt;
    const span = this.deps.tracing?.enabled ? this.attemptSpan(w) : undefined;
    try {
      return await this.attempt(w, span);
    } finally {
      span?.end();
    }
  }

  /** The span of one attempt: in the trace of the request that queued it, when it carried one. */
  private attemptSpan(w: Work): Span | undefined {
    return this.deps.tracing?.span(
      'send',
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'atende.request_id': w.req.request_id,
          'atende.channel_id': w.channel.id,
          'atende.provider': w.channel.provider,
          'atende.attempt': w.req.attempts,
        },
      },
      contextOf(w.req.payload.traceparent),
    );
  }

  /** One attempt of a claimed request: conversation, provider call, outcome (`processRequest`). */
  private async attempt(w: Work, span: Span | undefined): Promise<SendOutcome> {
    const { requests, deliverer, logger } = this.deps;
    const requestId = w.req.request_id;
    const { lastAttempt } = w;
    let entered = false;
    try {
      w.conversation = await this.conversations.submit(w);
      await this.enterUnrecorded();
      entered = true;
      const blobId = w.req.media_blob_id;
      // An unhealthy channel fails like a refusal: the message is stored failed in the conversation.
      w.result = await deliverer.deliver(
        w.channel,
        w.conversation.to,
        w.req.payload.message,
        blobId
          ? storedFile(
              () => this.deps.mediaBlobs.load(blobId),
              (mediaId) => requests.setUploadedMedia(requestId, mediaId),
            )
          : undefined,
        contextWith(span),
      );
    } catch (err) {
      const verdict = judgeFailure(err, lastAttempt, 'The request could not be processed');
      w.error = verdict.error;
      // The request log's own reason (what the integrator reads): the provider's, or ours.
      failed(span, `${w.error.code}: ${w.error.message}`);
      span?.setAttribute('atende.retry', verdict.retry);
      if (!verdict.byProvider) logger.error({ err, requestId }, 'send request attempt failed');
      if (verdict.retry) {
        logger.warn(
          { requestId, code: w.error.code, attempt: w.req.attempts },
          'send request will be retried',
        );
        // Nothing was sent: should this fail too, the request stays `processing`, which the next
        // attempt takes just the same.
        await requests
          .requeue(requestId, w.error)
          .catch((e: unknown) => logger.warn({ err: e, requestId }, 'requeueing a send request failed'));
        if (entered) this.leaveUnrecorded();
        return notDone(err);
      }
      logger.warn({ requestId, code: w.error.code }, 'send request failed');
    }
    try {
      await this.recordHeld(w);
    } finally {
      if (entered) this.leaveUnrecorded();
    }
    return { done: true };
  }

  /** Waits for room under `MAX_UNRECORDED` before a provider call. */
  private async enterUnrecorded(): Promise<void> {
    if (this.unrecorded < MAX_UNRECORDED) {
      this.unrecorded++;
      return;
    }
    // The room is handed over by `leaveUnrecorded`, the count unchanged.
    await new Promise<void>((resolve) => this.waitingForRoom.push(resolve));
  }

  private leaveUnrecorded(): void {
    const next = this.waitingForRoom.shift();
    if (next) next();
    else this.unrecorded--;
  }

  /**
   * Records a settled request (`holdOutcome`). A try that failed may have committed all the same (the
   * connection lost after COMMIT): later tries first look whether it did.
   */
  private async recordHeld(w: Work): Promise<void> {
    const { requests, logger } = this.deps;
    const requestId = w.req.request_id;
    await holdOutcome(
      async (tryNumber) => {
        if (tryNumber > 1 && (await requests.isSettled(requestId))) return;
        await this.outcomes.submit(w);
      },
      {
        hold: this.hold,
        logger,
        subject: 'send',
        ids: { requestId, providerMessageId: w.result?.providerMessageId ?? null },
        lost: { status: w.result ? 'sent' : 'failed', error: w.error ?? null },
        leftAs: 'the request stays processing',
      },
    );
  }

  /** Requests taken for an attempt, with their channels, in one statement. */
  private async claim(ids: string[]): Promise<(Work | null)[]> {
    const claimed = new Map(
      (await this.deps.requests.claimWithChannels(ids)).map((c) => [c.req.request_id, c]),
    );
    return ids.map((id) => {
      const c = claimed.get(id);
      return c ? { req: c.req, channel: c.channel, lastAttempt: false } : null;
    });
  }
}
