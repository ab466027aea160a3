import { randomUUID } from 'node:crypto';
import { Batcher } from '../db/batcher.js';
import { persist } from '../lib/persist.js';
import type { Logger } from 'pino';
import { ClaimLoop, listenFor, type Claimed } from './claim-loop.js';
import { SEND_NOTIFY_CHANNEL, type LeasedJob, type SendQueue } from './send-queue.js';

/** What a job's handler decided: finished (sent, failed for good, or nothing to do), or retry later. */
export type SendOutcome = { done: true } | { done: false; reason: string };

export interface SendDispatcherOptions {
  queue: SendQueue;
  /**
   * Runs the jobs of one fetch (all of different lanes) and answers one promise per job, in order,
   * each settled as soon as that job is: the dispatcher finishes each job, and frees its lane, as it
   * comes. A job's promise may stay pending for long (a provider's answer waiting for the database):
   * its lease is renewed meanwhile. `lastAttempt`: no retry will follow, so the handler must settle
   * that job's message.
   */
  handle(jobs: readonly { job: LeasedJob; lastAttempt: boolean }[]): Promise<SendOutcome>[];
  /** For the NOTIFY listener (a connection of its own). */
  databaseUrl: string;
  logger: Logger;
  /** Jobs in flight on this node at most. */
  concurrency?: number;
  /** Retries after the first attempt (so 1 + retryLimit attempts in all). */
  retryLimit?: number;
  /** Backoff: base × 2^attempt, at most max, with jitter. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /**
   * A lease outlives its last renewal by this long: how soon a killed worker's job runs again. Renewed
   * every third of it.
   */
  leaseMs?: number;
  /**
   * After this node sees the database fail, how long it leaves lanes whose lease expired to the
   * workers holding them, so that those can renew first. Default twice the lease; the same after the
   * node starts.
   */
  expiredLeaseGraceMs?: number;
  /** How often to look for due lanes without a NOTIFY (retries coming due, a lost notification). */
  pollMs?: number;
  /** How long a finished job is retried while the database is out of reach. Default an hour. */
  finishForMs?: number;
}

/** Lanes leased per fetch at most: one statement for many jobs under load. */
const LEASE_BATCH = 250;
/** Empty lanes deleted per clean-up, and how often. */
const PRUNE_BATCH = 1_000;
const PRUNE_EVERY_MS = 60_000;
/**
 * How long a stopping node waits for its jobs in flight. Longer than the other queues' 10 s: a send whose
 * provider answer is not recorded by then runs again on the next worker — the customer gets it twice —
 * and recording can wait on a slow database; still inside Kubernetes' default 30 s grace.
 */
const STOP_WAIT_MS = 25_000;

/**
 * Runs the send queue's jobs on a worker node, on a claim loop (`claim-loop.ts`): leases due lanes
 * (each lane's oldest job), runs up to `concurrency` jobs at once — all of different contacts, so their
 * order is kept — and leases more as they finish. Woken by NOTIFY when jobs are queued, and by a short
 * poll for retries coming due. Leases are renewed while jobs run; a killed node's leases expire and its
 * jobs run again elsewhere.
 *
 * A database outage must not send a message twice: a job whose handler holds a provider's answer it
 * could not record yet keeps its lane — its lease is renewed, even after it expired, as long as no other
 * worker took it — and a worker that saw the database fail takes no expired lease for a grace period,
 * so that when the database comes back the holders renew and record before anyone leases their lanes
 * (docs/adr/0014-send-queue-through-database-outage.md).
 */
export class SendDispatcher {
  private readonly owner = randomUUID();
  private readonly retryLimit: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly leaseMs: number;
  private readonly graceMs: number;
  private readonly finishForMs: number;
  /** Lanes of the jobs running or being finished here: their leases are renewed. */
  private readonly held = new Map<string, { jobId: number; finishing: boolean }>();
  /** Leasing takes expired leases only from this time (ms since epoch): see `sawFailure`. */
  private takeExpiredFrom = Number.POSITIVE_INFINITY;
  private lastPrune = 0;
  /** Finished jobs, completed together when several finish while a completion runs. */
  private readonly completions: Batcher<number, void>;
  private readonly loop: ClaimLoop<LeasedJob>;

  constructor(private readonly opts: SendDispatcherOptions) {
    const concurrency = opts.concurrency ?? 500;
    this.retryLimit = opts.retryLimit ?? 12;
    this.retryBaseMs = opts.retryBaseMs ?? 1_000;
    this.retryMaxMs = opts.retryMaxMs ?? 300_000;
    this.leaseMs = opts.leaseMs ?? 5_000;
    this.graceMs = opts.expiredLeaseGraceMs ?? 2 * this.leaseMs;
    const pollMs = opts.pollMs ?? 1_000;
    this.finishForMs = opts.finishForMs ?? 3_600_000;
    this.completions = new Batcher<number, void>({
      run: async (ids) => {
        await opts.queue.complete(ids);
        return ids.map(() => undefined);
      },
      concurrency: 2,
      maxItems: 500,
      maxWeight: Number.POSITIVE_INFINITY,
      weight: () => 0,
    });
    this.loop = new ClaimLoop<LeasedJob>({
      name: 'send queue',
      concurrency,
      // Under load, wait until a batch's worth of room is free: one lease for many jobs. An idle node
      // leases at once.
      minRoom: Math.min(LEASE_BATCH, concurrency) / 2,
      pollMs,
      wakeUps: [
        listenFor({
          databaseUrl: opts.databaseUrl,
          channel: SEND_NOTIFY_CHANNEL,
          retryDelayMs: pollMs,
          logger: opts.logger,
          name: 'send queue',
          waitsFor: 'new jobs',
        }),
      ],
      claim: (room) => this.lease(room),
      caughtUp: () => this.db(() => this.prune()),
      run: (jobs) => this.run(jobs),
      renew: { everyMs: this.leaseMs / 3, run: () => this.renew() },
      stopWaitMs: STOP_WAIT_MS,
      stopped: () => this.freeLeases(),
      // A lease answering as the stop begins: its lanes are freed unsent, for the next worker.
      giveBack: (jobs) =>
        this.db(() =>
          opts.queue.releaseLanes(
            this.owner,
            jobs.map((j) => j.lane),
          ),
        ),
      claimFailed: 'fetching jobs failed',
      logger: opts.logger,
    });
  }

  async start(): Promise<void> {
    // A node just started cannot know whether a worker still holds an answer for an expired lease: it
    // may have started as the database came back, or during a roll, where its own start (CPU, the
    // migrations' locks) is what stalled the other workers' renewals. It waits the whole grace.
    this.takeExpiredFrom = Date.now() + this.graceMs;
    await this.loop.start();
  }

  /**
   * Stops leasing, waits (bounded) for the jobs in flight — those of a lease still running when the
   * stop began too — and frees this node's leases (`ClaimLoop.stop`).
   */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  /** Looks for work now (new jobs, a freed lane); a call during a lease makes it look again after. */
  wake(): void {
    this.loop.wake();
  }

  /** After the stop's wait: leases were renewed until then, so no other node ran a job still held. */
  private async freeLeases(): Promise<void> {
    if (this.held.size > 0) {
      // Their leases expire and they run again elsewhere; an answer held for one of them is lost.
      this.opts.logger.error(
        { lanes: [...this.held.keys()], jobs: [...this.held.values()].map((h) => h.jobId) },
        'send queue: stopping with jobs not finished',
      );
      return;
    }
    await this.opts.queue.release(this.owner).catch(() => undefined);
  }

  /**
   * The database failed this node: other workers may hold answers they could not record either, and
   * their leases may expire before they can renew them. Expired leases are left alone for a while.
   */
  private sawFailure(): void {
    this.takeExpiredFrom = Math.max(this.takeExpiredFrom, Date.now() + this.graceMs);
  }

  /** A statement of the dispatcher's own, its failure noted (`sawFailure`). */
  private async db<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      this.sawFailure();
      throw err;
    }
  }

  /** Leases due lanes for up to `room` jobs (at most LEASE_BATCH per statement). */
  private async lease(room: number): Promise<Claimed<LeasedJob>> {
    const wanted = Math.min(room, LEASE_BATCH);
    const takeExpired = Date.now() >= this.takeExpiredFrom;
    const jobs = await this.db(() => this.opts.queue.lease(this.owner, wanted, this.leaseMs, takeExpired));
    // A lane of this node's own whose lease expired while its job is still held here: that job goes on
    // (and now holds the fresh lease); it must not run twice. (The lane's next job, leased as the
    // previous one was just finished, runs.)
    const fresh = jobs.filter((j) => this.held.get(j.lane)?.jobId !== j.id);
    // Fewer than asked for: nothing else is due now.
    return { items: fresh, more: jobs.length >= wanted };
  }

  private run(jobs: readonly LeasedJob[]): Promise<void>[] {
    const batch = jobs.map((job) => ({ job, lastAttempt: job.attempts >= this.retryLimit }));
    for (const { job } of batch) this.held.set(job.lane, { jobId: job.id, finishing: false });
    let outcomes: Promise<SendOutcome>[];
    try {
      outcomes = this.opts.handle(batch);
    } catch (err) {
      outcomes = batch.map(() => Promise.reject(err));
    }
    return batch.map((b, i) => {
      const outcome = outcomes[i] ?? Promise.resolve<SendOutcome>({ done: true });
      return outcome
        .catch((err: unknown): SendOutcome => {
          this.opts.logger.error({ err, jobId: b.job.id }, 'send queue: job failed');
          return { done: false, reason: 'handler error' };
        })
        .then((o) => {
          const held = this.held.get(b.job.lane);
          if (held) held.finishing = true;
          return this.finish(b.job, o.done || b.lastAttempt);
        })
        .finally(() => {
          if (this.held.get(b.job.lane)?.jobId === b.job.id) this.held.delete(b.job.lane);
        });
    });
  }

  /**
   * Finishes one job — deleted, or back to its lane after a backoff — retried while the database is out
   * of reach, the lane still held. Given up, the lease expires and the job runs again; its handler finds
   * the message settled if it was.
   */
  private async finish(job: LeasedJob, done: boolean): Promise<void> {
    const { queue, logger } = this.opts;
    const delay = this.backoff(job.attempts);
    let warned = false;
    const result = await persist(
      () => this.db(() => (done ? this.completions.submit(job.id) : queue.retryLater(job, delay))),
      {
        unavailableForMs: this.finishForMs,
        refusedAttempts: 3,
        baseDelayMs: 100,
        maxDelayMs: Math.max(100, this.leaseMs / 3),
        onFailure: (err) => {
          if (warned) return;
          warned = true;
          logger.warn({ err, jobId: job.id }, 'send queue: finishing a job failed; retrying');
        },
      },
    );
    if (!result.ok)
      logger.error({ err: result.err, jobId: job.id, lane: job.lane }, 'send queue: could not finish a job');
  }

  /** Renews the leases of the lanes held here; a lease lost to another worker is logged. */
  private async renew(): Promise<void> {
    if (this.held.size === 0) return;
    const lanes = [...this.held.keys()];
    const kept = await this.db(() => this.opts.queue.renew(this.owner, lanes, this.leaseMs));
    // A lane whose job is being finished may have been freed meanwhile: not lost.
    const lost = lanes.filter((l) => !kept.has(l) && this.held.get(l)?.finishing === false);
    if (lost.length > 0) this.opts.logger.warn({ lanes: lost }, 'send queue: leases lost to another worker');
  }

  /** Exponential backoff with jitter (between half and all of the step), at most retryMaxMs. */
  backoff(attempts: number): number {
    const step = Math.min(this.retryMaxMs, this.retryBaseMs * 2 ** attempts);
    return Math.round(step / 2 + Math.random() * (step / 2));
  }

  private async prune(): Promise<void> {
    const now = Date.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    await this.opts.queue.pruneEmptyLanes(PRUNE_BATCH);
  }
}
