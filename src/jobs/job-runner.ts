import type PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import { Batcher } from '../db/batcher.js';
import { errorText } from '../lib/errors.js';
import { persist } from '../lib/persist.js';
import { ClaimLoop, type WakeUp } from './claim-loop.js';

/** A fetched job, as a handler sees it. */
export interface Job<T> {
  data: T;
  /** Runs before this one that ended in a failure (0 on the first run). */
  retryCount: number;
}

export interface WorkOptions {
  /** Jobs of the queue running at once on this node. */
  concurrency: number;
  /** Look for jobs without a NOTIFY this often: retries and delayed jobs coming due, a lost NOTIFY. */
  pollMs: number;
}

/**
 * One queue's worker on this node, on a claim loop (`claim-loop.ts`). pg-boss 10's own `work()` runs
 * one job (or batch) per loop and completes it without awaiting the statement — a completion that
 * meets a database outage becomes an unhandled rejection, which ends a Node process — so the loop is
 * ours: completions are awaited and retried while the database is away, and handlers run as slots
 * free up.
 */
export class JobRunner<T> {
  /** Ids of the jobs whose handlers run here. */
  private readonly running = new Set<string>();
  /** Stopped: a handler finishing now leaves its job alone (it was failed, or expires). */
  private closed = false;
  private readonly completions: Batcher<string, void>;
  private readonly loop: ClaimLoop<PgBoss.JobWithMetadata<T>>;

  constructor(
    private readonly boss: PgBoss,
    private readonly queue: string,
    options: WorkOptions,
    private readonly handler: (job: Job<T>) => Promise<void>,
    private readonly logger: Logger,
    notified: WakeUp,
    stopWaitMs: number,
    /**
     * The queue's jobs are independent (pg-boss's `standard` policy): one finishing makes no other due,
     * so it claims again only when a fetch left jobs behind for want of room.
     */
    independent: boolean,
  ) {
    // Jobs finishing together are completed in one statement.
    this.completions = new Batcher<string, void>({
      run: async (ids) => {
        await this.boss.complete(queue, ids);
        return ids.map(() => undefined);
      },
      concurrency: 1,
      maxItems: 100,
      maxWeight: Number.POSITIVE_INFINITY,
      weight: () => 0,
    });
    this.loop = new ClaimLoop<PgBoss.JobWithMetadata<T>>({
      name: 'job queue',
      logFields: { queue },
      concurrency: options.concurrency,
      pollMs: options.pollMs,
      wakeUps: [notified],
      claim: async (room) => {
        // pg-boss's fetch answers nothing rather than throw when the database is away.
        const jobs = await this.boss.fetch<T>(queue, { batchSize: room, includeMetadata: true });
        return { items: jobs, more: jobs.length >= room };
      },
      run: (jobs) => jobs.map((job) => this.run(job)),
      finishWakes: independent ? 'heldBack' : 'always',
      stopWaitMs,
      stopped: () => this.failRunning(),
      claimFailed: 'fetching jobs failed',
      logger,
    });
  }

  start(): Promise<void> {
    return this.loop.start();
  }

  /**
   * Stops fetching and waits (bounded) for the jobs running — those of a fetch still running when the
   * stop began too (`ClaimLoop.stop`); those still running then are failed (`failRunning`).
   */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  private run(job: PgBoss.JobWithMetadata<T>): Promise<void> {
    const started = Date.now();
    this.running.add(job.id);
    return this.handler({
      data: job.data,
      retryCount: job.retryCount,
    })
      .then(
        () => null,
        (err: unknown) => err ?? new Error('job failed'),
      )
      .then((err) => this.settle(job, err, started))
      .finally(() => {
        this.running.delete(job.id);
      });
  }

  /**
   * Completes or fails the job, retried while the database is away. A run that took longer than the
   * job's expiry leaves it alone: the supervisor expires it (it may already run again elsewhere).
   */
  private async settle(job: PgBoss.JobWithMetadata<T>, err: unknown, started: number): Promise<void> {
    if (this.closed) return;
    const expiresIn = job.expireInSeconds * 1000;
    if (Date.now() - started >= expiresIn) {
      this.logger.warn(
        { queue: this.queue, jobId: job.id },
        'job queue: a job outlived its expiry; it runs again',
      );
      return;
    }
    const result = await persist(
      async () => {
        if (this.closed) return;
        if (err === null) await this.completions.submit(job.id);
        else await this.boss.fail(this.queue, job.id, { message: errorText(err) });
      },
      {
        // Past its expiry the job runs again anyway.
        unavailableForMs: Math.max(0, expiresIn - (Date.now() - started)),
        refusedAttempts: 3,
        baseDelayMs: 100,
        maxDelayMs: 2_000,
      },
    );
    if (!result.ok)
      this.logger.warn(
        { err: errorText(result.err), queue: this.queue, jobId: job.id },
        'job queue: could not settle a job; it runs again after its expiry',
      );
  }

  /**
   * After the stop's wait: the jobs still running are failed, so that they run again soon (on another
   * node) rather than after their expiry.
   */
  private async failRunning(): Promise<void> {
    this.closed = true;
    const left = [...this.running];
    if (left.length === 0) return;
    this.logger.warn({ queue: this.queue, jobs: left.length }, 'job queue: stopping with jobs running');
    await this.boss.fail(this.queue, left).catch(() => undefined);
  }
}
