import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { CONNECT_TIMEOUT_MS, KEEPALIVE_DELAY_MS } from '../db/index.js';
import { Batcher } from '../lib/batcher.js';
import type { Logger } from 'pino';
import { SEND_NOTIFY_CHANNEL, type LeasedJob, type SendQueue } from './send-queue.js';

/** What a job's handler decided: finished (sent, failed for good, or nothing to do), or retry later. */
export type SendOutcome = { done: true } | { done: false; reason: string };

export interface SendDispatcherOptions {
  queue: SendQueue;
  /**
   * Runs the jobs of one fetch (all of different lanes) and answers each one's outcome, in order.
   * `lastAttempt`: no retry will follow, so the handler must settle that job's message.
   */
  handle(jobs: readonly { job: LeasedJob; lastAttempt: boolean }[]): Promise<SendOutcome[]>;
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
  /** A lease outlives its last renewal by this long: how soon a killed worker's job runs again. */
  leaseMs?: number;
  /** How often to look for due lanes without a NOTIFY (retries coming due, a lost notification). */
  pollMs?: number;
}

/** Lanes leased per fetch at most: one statement for many jobs under load. */
const LEASE_BATCH = 250;
/** Empty lanes deleted per clean-up, and how often. */
const PRUNE_BATCH = 1_000;
const PRUNE_EVERY_MS = 60_000;
/** How long a stopping node waits for its jobs in flight. */
const STOP_WAIT_MS = 10_000;

/**
 * Runs the send queue's jobs on a worker node: leases due lanes (each lane's oldest job), runs up to
 * `concurrency` jobs at once — all of different contacts, so their order is kept — and leases more as
 * they finish. Woken by NOTIFY when jobs are queued, and by a short poll for retries coming due. Leases
 * are renewed while jobs run; a killed node's leases expire and its jobs run again elsewhere.
 */
export class SendDispatcher {
  private readonly owner = randomUUID();
  private readonly concurrency: number;
  private readonly retryLimit: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly leaseMs: number;
  private readonly pollMs: number;
  private readonly inFlight = new Set<Promise<void>>();
  /** Jobs in the batches in flight. */
  private runningJobs = 0;
  private running = false;
  private again = false;
  private stopping = false;
  private listener: pg.Client | null = null;
  private timers: NodeJS.Timeout[] = [];
  private lastPrune = 0;
  /** Finished jobs, completed together when several finish while a completion runs. */
  private readonly completions: Batcher<number, void>;

  constructor(private readonly opts: SendDispatcherOptions) {
    this.concurrency = opts.concurrency ?? 500;
    this.retryLimit = opts.retryLimit ?? 12;
    this.retryBaseMs = opts.retryBaseMs ?? 1_000;
    this.retryMaxMs = opts.retryMaxMs ?? 300_000;
    this.leaseMs = opts.leaseMs ?? 15_000;
    this.pollMs = opts.pollMs ?? 1_000;
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
  }

  async start(): Promise<void> {
    await this.listen();
    this.timers.push(setInterval(() => this.wake(), this.pollMs));
    this.timers.push(
      setInterval(() => {
        if (this.runningJobs === 0) return;
        this.opts.queue
          .renew(this.owner, this.leaseMs)
          .catch((err: unknown) => this.opts.logger.warn({ err }, 'send queue: lease renewal failed'));
      }, this.leaseMs / 3),
    );
    for (const t of this.timers) t.unref();
    this.wake();
  }

  /** Stops leasing, waits (bounded) for the jobs in flight, and frees this node's leases. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const t of this.timers) clearInterval(t);
    this.timers = [];
    const listener = this.listener;
    this.listener = null;
    await listener?.end().catch(() => undefined);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight]),
      new Promise((r) => {
        timer = setTimeout(r, STOP_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    // Jobs still running keep their leases (renewed no more): they run again after expiry elsewhere.
    if (this.runningJobs === 0) await this.opts.queue.release(this.owner).catch(() => undefined);
  }

  /** Looks for work now (new jobs, a freed lane); a call during a fetch makes it look again after. */
  wake(): void {
    if (this.stopping) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.fill().finally(() => {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  private async fill(): Promise<void> {
    try {
      for (;;) {
        if (this.stopping) return;
        const room = this.concurrency - this.runningJobs;
        // Under load, wait until a batch's worth of room is free: one fetch for many jobs. An idle
        // node fetches at once.
        if (room <= 0 || (this.runningJobs > 0 && room < Math.min(LEASE_BATCH, this.concurrency) / 2)) return;
        const wanted = Math.min(room, LEASE_BATCH);
        const jobs = await this.opts.queue.lease(this.owner, wanted, this.leaseMs);
        if (jobs.length > 0) this.run(jobs);
        // Fewer than asked for: nothing else is due now.
        if (jobs.length < wanted) break;
      }
      await this.prune();
    } catch (err) {
      this.opts.logger.warn({ err }, 'send queue: fetching jobs failed');
    }
  }

  private run(jobs: LeasedJob[]): void {
    this.runningJobs += jobs.length;
    const p = this.execute(jobs).finally(() => {
      this.runningJobs -= jobs.length;
      this.inFlight.delete(p);
      this.wake();
    });
    this.inFlight.add(p);
  }

  private async execute(jobs: LeasedJob[]): Promise<void> {
    const { queue, logger } = this.opts;
    const batch = jobs.map((job) => ({ job, lastAttempt: job.attempts >= this.retryLimit }));
    let outcomes: SendOutcome[];
    try {
      outcomes = await this.opts.handle(batch);
    } catch (err) {
      logger.error({ err }, 'send queue: jobs failed');
      outcomes = jobs.map(() => ({ done: false, reason: 'handler error' }));
    }
    try {
      const finished = batch.filter(({ lastAttempt }, i) => outcomes[i]?.done !== false || lastAttempt);
      await Promise.all(finished.map(({ job }) => this.completions.submit(job.id)));
      await Promise.all(
        batch
          .filter((b) => !finished.includes(b))
          .map(({ job }) => queue.retryLater(job, this.backoff(job.attempts))),
      );
    } catch (err) {
      // The leases expire and the jobs run again; their handlers find them settled if they were.
      logger.warn({ err }, 'send queue: recording job outcomes failed');
    }
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

  /** LISTEN on a connection of its own; lost, it is opened again (the poll covers the gap). */
  private async listen(): Promise<void> {
    if (this.stopping) return;
    // Bounded like the pool's connections, so that an unreachable server means a retry, not a hang.
    const client = new pg.Client({
      connectionString: this.opts.databaseUrl,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    });
    const retry = () => {
      if (this.listener !== client || this.stopping) return;
      this.listener = null;
      client.end().catch(() => undefined);
      const t = setTimeout(() => void this.listen(), this.pollMs);
      t.unref();
    };
    client.on('error', (err) => {
      this.opts.logger.warn({ err: err.message }, 'send queue: listener connection lost');
      retry();
    });
    client.on('end', retry);
    client.on('notification', () => this.wake());
    try {
      this.listener = client;
      await client.connect();
      await client.query(`LISTEN ${SEND_NOTIFY_CHANNEL}`);
    } catch (err) {
      this.opts.logger.warn({ err }, 'send queue: could not listen for new jobs; polling');
      retry();
    }
  }
}
