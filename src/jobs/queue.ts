import { CompiledQuery } from 'kysely';
import pg from 'pg';
import PgBoss from 'pg-boss';
import type { Logger } from 'pino';
import { CONNECT_TIMEOUT_MS, KEEPALIVE_DELAY_MS, type Tx } from '../db/index.js';
import { Listener } from '../db/listener.js';
import { libraryStatementName, Statement } from '../db/prepared.js';
import { isConnectionFailure } from '../db/unavailable.js';
import { errorText } from '../lib/errors.js';
import type { WakeUp } from './claim-loop.js';
import { JobRunner, type Job, type WorkOptions } from './job-runner.js';

export type { Job, WorkOptions };

/**
 * Durable jobs on the platform's own PostgreSQL (pg-boss 10, schema `atende_jobs`). A job inserted
 * inside a transaction exists exactly when that transaction commits, so "accepted" and "queued" are one
 * fact. pg-boss stores, retries (with backoff) and expires jobs; the platform runs its own worker loop
 * on pg-boss's fetch/complete/fail (`work`), woken by a NOTIFY the inserting transaction raises, so a
 * job is picked up at once rather than at the next poll (docs/adr/0056-job-layer-pg-boss-10.md).
 */
export const JOBS_SCHEMA = 'atende_jobs';

/** Raised by every commit that queues jobs to run now; the payload is the queue's name. */
export const JOBS_NOTIFY_CHANNEL = 'atende_jobs';

/** Every queue of the platform, with its policy. Handlers register in `src/workers.ts`. */
export const QUEUES = {
  /** One provider webhook delivery (WhatsApp) to turn into chats, messages and statuses. */
  inboundWebhook: 'inbound-webhook',
  /** A read receipt to the provider (row in read_receipts), queued when an agent reads a chat. */
  readReceipt: 'read-receipt',
  /** A typing indicator to the provider (row in typing_indicators), queued while an agent types. */
  typingIndicator: 'typing-indicator',
  /**
   * One customer file to download from the provider into the media store. Temporary failures are
   * retried by pg-boss with backoff; the last attempt or a permanent failure marks the media `failed`.
   */
  mediaDownload: 'media-download',
  /** Periodic clean-up (event log retention): one job per period for the whole installation. */
  housekeeping: 'housekeeping',
  /**
   * A data subject's erasure (row in erasures), done in bounded batches; a run cut short (a crash, an
   * expiry) runs again and does what is left.
   */
  contactErasure: 'contact-erasure',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

const NOTIFY = Statement.prepared('SELECT pg_notify($1::text, $2::text) AS job_queue_woken');

/** How long a stopping node waits for the jobs running on it. */
const STOP_WAIT_MS = 10_000;

/** Retries of a media download: its handler marks the file failed on the last one. */
export const MEDIA_DOWNLOAD_RETRY_LIMIT = 10;

/**
 * How often the supervisor (on every worker node, one of them per round) fails jobs whose expiry
 * passed: the jobs of a killed node come back `expireInSeconds` plus at most this after they started.
 */
const MAINTENANCE_SECONDS = 5;

/**
 * pg-boss 10 has no heartbeats: a job's expiry is both the longest its handler may take and how long
 * a killed node's job waits before it runs again. So each queue's expiry is its handler's honest worst
 * case, short for short jobs. A run that outlives its expiry does not settle its job (`work`): the
 * expired job runs again, and the handlers are idempotent. pg-boss 10's backoff has no cap: retry
 * limits are chosen so the attempts span about as long as before.
 */
const QUEUE_DEFINITIONS: Record<QueueName, Omit<PgBoss.Queue, 'name'>> = {
  [QUEUES.inboundWebhook]: {
    policy: 'standard',
    // 1 s doubling: 12 retries span about two hours.
    retryLimit: 12,
    retryDelay: 1,
    retryBackoff: true,
    // Database work only: milliseconds, seconds when the database is slow.
    expireInSeconds: 30,
  },
  [QUEUES.readReceipt]: {
    policy: 'standard',
    // Blue ticks are a courtesy: a few tries over about a minute, then given up.
    retryLimit: 3,
    retryDelay: 5,
    retryBackoff: true,
    // One Graph call (WHATSAPP_TIMEOUT_MS, 15 s) and a row.
    expireInSeconds: 60,
  },
  [QUEUES.typingIndicator]: {
    policy: 'standard',
    // "Typing…" late is worse than none: one attempt, and the handler drops a stale one.
    retryLimit: 0,
    expireInSeconds: 30,
  },
  [QUEUES.mediaDownload]: {
    policy: 'standard',
    // 2 s doubling: about an hour of attempts. Meta's own trouble rarely lasts longer, and a
    // customer's file stays downloadable for days.
    retryLimit: MEDIA_DOWNLOAD_RETRY_LIMIT,
    retryDelay: 2,
    retryBackoff: true,
    // A 100 MB document on a slow link.
    expireInSeconds: 900,
  },
  [QUEUES.contactErasure]: {
    policy: 'standard',
    retryLimit: 20,
    retryDelay: 30,
    retryBackoff: true,
    // Many short transactions; a person with a million messages takes minutes.
    expireInSeconds: 3600,
  },
  [QUEUES.housekeeping]: {
    policy: 'singleton',
    retryLimit: 2,
    retryDelay: 60,
    expireInSeconds: 900,
  },
};

/**
 * A background worker of a queue, in the one shape every capability declares: which queue, how many
 * run at once, and what a run does. A run that throws fails its job (the queue's policy retries it),
 * logged with `retryLog`'s fields. A periodic worker has one job queued per `everySeconds` for the
 * whole installation.
 */
export interface JobWorker<T> {
  queue: QueueName;
  options: WorkOptions;
  run(job: Job<T>): Promise<void>;
  retryLog?: { level: 'warn' | 'debug'; message: string; fields(data: T): Record<string, unknown> };
  everySeconds?: number;
}

/** A job to insert: its payload and, for a delayed one, when it may run. */
export interface JobInsert<T> {
  data: T;
  startAfter?: Date;
}

export interface JobQueueOptions {
  connectionString: string;
  /** Whether this process supervises jobs (expiry, archive): nodes with the worker role. */
  supervise: boolean;
  logger: Logger;
}

export class JobQueue {
  private readonly boss: PgBoss;
  private readonly pool: pg.Pool;
  private readonly runners = new Map<QueueName, JobRunner<unknown>>();
  /** One LISTEN connection for every queue's runner: the payload names the queue to wake. */
  private readonly listener: Listener;
  private readonly wakers = new Map<string, () => void>();
  private readonly timers: NodeJS.Timeout[] = [];
  private stopping = false;
  private stopped = false;
  private workersStopped: Promise<void> | null = null;

  constructor(private readonly opts: JobQueueOptions) {
    // pg-boss runs on a pool of ours: bounded connects and keepalive like the platform's own pool, so
    // an unreachable database means failed statements, never hung ones.
    this.pool = new pg.Pool({
      connectionString: opts.connectionString,
      max: 10,
      application_name: 'atende-jobs',
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    });
    // A connection lost while checked out fails its statement; the event itself must not end the process.
    this.pool.on('connect', (client) => client.on('error', () => undefined));
    this.pool.on('error', () => undefined);
    this.boss = new PgBoss({
      // Its fetch, insert and complete are prepared: parsed once per connection, not per job.
      db: {
        executeSql: (text, values) => {
          const name = libraryStatementName(text, values);
          return this.pool.query(name === undefined ? { text, values } : { name, text, values });
        },
      },
      schema: JOBS_SCHEMA,
      supervise: opts.supervise,
      maintenanceIntervalSeconds: MAINTENANCE_SECONDS,
      // Periodic jobs are inserted by `every` (throttled sends): pg-boss's cron worker is not used.
      schedule: false,
      // Finished jobs leave the job table (which the supervisor scans every few seconds) after an
      // hour, and the archive after a day: nothing reads them.
      archiveCompletedAfterSeconds: 3600,
      deleteAfterDays: 1,
    });
    this.listener = new Listener({
      databaseUrl: opts.connectionString,
      channel: JOBS_NOTIFY_CHANNEL,
      retryDelayMs: 1_000,
      onNotify: (queue) => this.wakers.get(queue)?.(),
      logger: opts.logger,
      name: 'job queue',
      waitsFor: 'new jobs',
    });
    this.boss.on('error', (err: unknown) => {
      // Errors of statements still finishing after `stop()` are no news.
      if (this.stopped) return;
      // Its loops retry on their own; an unreachable database is an outage, not a bug.
      if (isConnectionFailure(err))
        opts.logger.warn({ err: errorText(err) }, 'job queue: database unreachable');
      else opts.logger.error({ err }, 'job queue error');
    });
  }

  /**
   * Installs pg-boss's schema (under its own lock), creates or updates the platform's queues, and
   * queues the jobs an upgrade carried over from the previous job layer (migration 016).
   */
  async start(): Promise<void> {
    await this.boss.start();
    const existing = new Set((await this.boss.getQueues()).map((q) => q.name));
    for (const [name, def] of Object.entries(QUEUE_DEFINITIONS)) {
      if (existing.has(name)) {
        await this.boss.updateQueue(name, { name, ...def });
        continue;
      }
      try {
        await this.boss.createQueue(name, { name, ...def });
      } catch (err) {
        // Another node created it between our read and our create.
        if (!(await this.boss.getQueue(name))) throw err;
      }
    }
    await this.requeueCarriedOver();
  }

  /** Queues jobs inside the caller's transaction: they exist exactly when it commits. */
  async insertInTransaction<T extends object>(tx: Tx, queue: QueueName, jobs: JobInsert<T>[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.boss.insert(
      jobs.map((j) => ({ name: queue, data: j.data, ...(j.startAfter ? { startAfter: j.startAfter } : {}) })),
      { db: onTransaction(tx) },
    );
    // Wakes the workers when the transaction commits (delayed jobs are found by the poll).
    if (jobs.some((j) => !j.startAfter || j.startAfter.getTime() <= Date.now())) {
      await NOTIFY.execute(tx, [JOBS_NOTIFY_CHANNEL, queue]);
    }
  }

  /**
   * Runs `handler` for the queue's jobs on this node: up to `concurrency` at once, fetched as slots
   * free up, on a NOTIFY from an inserting commit, and on a poll. A handler that resolves completes its
   * job; one that throws fails it (pg-boss retries it with the queue's backoff).
   */
  async work<T>(
    queue: QueueName,
    options: WorkOptions,
    handler: (job: Job<T>) => Promise<void>,
  ): Promise<void> {
    if (this.runners.has(queue)) throw new Error(`a worker already runs queue ${queue}`);
    const runner = new JobRunner<T>(
      this.boss,
      queue,
      options,
      handler,
      this.opts.logger,
      this.notified(queue),
      STOP_WAIT_MS,
      QUEUE_DEFINITIONS[queue].policy === 'standard',
    );
    this.runners.set(queue, runner as JobRunner<unknown>);
    await runner.start();
  }

  /** Wake-ups of `queue`'s runner from the LISTEN connection the queues share. */
  private notified(queue: QueueName): WakeUp {
    return async (wake) => {
      this.wakers.set(queue, wake);
      await this.listener.start();
      return async () => {
        this.wakers.delete(queue);
        if (this.wakers.size === 0) await this.listener.stop();
      };
    };
  }

  /** Runs a worker on this node (`work`), logging its failed runs, and queues its periodic jobs. */
  async register<T>(worker: JobWorker<T>): Promise<void> {
    const { retryLog } = worker;
    await this.work<T>(worker.queue, worker.options, async (job) => {
      try {
        await worker.run(job);
      } catch (err) {
        if (retryLog)
          this.opts.logger[retryLog.level](
            { err, ...retryLog.fields(job.data), attempt: job.retryCount },
            retryLog.message,
          );
        throw err;
      }
    });
    if (worker.everySeconds !== undefined) this.every(worker.queue, worker.everySeconds);
  }

  /**
   * Queues one job of `queue` per period of `seconds` for the whole installation: every node with the
   * worker role tries each minute, and pg-boss's throttling (one job per key and time slot) keeps one.
   */
  every(queue: QueueName, seconds: number): void {
    const tick = () =>
      void this.boss
        .send(queue, {}, { singletonKey: queue, singletonSeconds: seconds })
        .catch((err: unknown) =>
          this.opts.logger.warn({ err: errorText(err), queue }, 'job queue: periodic job not queued'),
        );
    const timer = setInterval(tick, Math.min(60, seconds) * 1000);
    timer.unref();
    this.timers.push(timer);
    tick();
  }

  /**
   * Stops this node's workers: no more fetching nor periodic jobs, a bounded wait for the jobs running
   * here, and those still running failed. The queue itself still takes jobs (`insertInTransaction`)
   * until `stop`.
   */
  async stopWorkers(): Promise<void> {
    this.workersStopped ??= (async () => {
      for (const t of this.timers) clearInterval(t);
      await Promise.all([...this.runners.values()].map((r) => r.stop()));
      await this.listener.stop();
    })();
    await this.workersStopped;
  }

  /** Stops the workers (`stopWorkers`), then pg-boss and its pool. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    await this.stopWorkers();
    await this.boss.stop({ graceful: false, close: false });
    this.stopped = true;
    await this.pool.end().catch(() => undefined);
  }

  /**
   * Jobs an upgrade moved out of the previous job layer's schema (`requeued_jobs`, migration 016):
   * inserted here and deleted in one transaction, so each is queued exactly once whichever node starts
   * first.
   */
  private async requeueCarriedOver(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ queue: string; data: object; start_after: Date }>(
        'DELETE FROM requeued_jobs RETURNING queue, data, start_after',
      );
      const known = new Set<string>(Object.values(QUEUES));
      const jobs = rows
        .filter((r) => known.has(r.queue))
        .map((r) => ({ name: r.queue, data: r.data, startAfter: r.start_after }));
      if (jobs.length > 0)
        await this.boss.insert(jobs, { db: { executeSql: (text, values) => client.query(text, values) } });
      await client.query('COMMIT');
      if (jobs.length > 0)
        this.opts.logger.info({ jobs: jobs.length }, 'job queue: jobs of the previous version queued');
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}

/** pg-boss's statements run on the caller's Kysely transaction (pg-boss 10's `db` option). */
function onTransaction(tx: Tx): PgBoss.Db {
  return {
    executeSql: async (text, values) => {
      // Registered, the text runs as a named statement through the platform's pool (db/prepared.ts).
      libraryStatementName(text, values);
      const res = await tx.executeQuery(CompiledQuery.raw(text, values));
      return { rows: [...res.rows] };
    },
  };
}
