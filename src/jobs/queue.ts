import { fromKysely, PgBoss, type JobInsert, type Queue } from 'pg-boss';
import type { Logger } from 'pino';
import type { Tx } from '../db/index.js';
import { isConnectionFailure } from '../db/unavailable.js';

/**
 * Durable jobs on the platform's own PostgreSQL (pg-boss, schema `pgboss`). A job inserted inside a
 * transaction exists exactly when that transaction commits, so "accepted" and "queued" are one fact.
 */

/** Every queue of the platform, with its policy. Handlers register in `src/jobs/workers.ts`. */
export const QUEUES = {
  /** One provider webhook delivery (WhatsApp) to turn into chats, messages and statuses. */
  inboundWebhook: 'inbound-webhook',
  /**
   * One attempt of one outgoing webhook delivery. Each retry is a new job scheduled by the handler
   * (`startAfter`, backoff with jitter, Retry-After), so the schedule survives restarts.
   */
  webhookDelivery: 'webhook-delivery',
  /** A read receipt to the provider (row in read_receipts), queued when an agent reads a chat. */
  readReceipt: 'read-receipt',
  /** Periodic clean-up (event log retention), on a pg-boss schedule: one run per tick, any worker. */
  housekeeping: 'housekeeping',
} as const;
export type QueueName = (typeof QUEUES)[keyof typeof QUEUES];

/**
 * A killed worker's job must come back within seconds, not pg-boss's default 15 minutes: jobs send a
 * heartbeat and the supervisor (running on every worker node) checks often.
 */
export const HEARTBEAT_SECONDS = 10;

const QUEUE_DEFINITIONS: Record<QueueName, Omit<Queue, 'name'>> = {
  [QUEUES.inboundWebhook]: {
    policy: 'standard',
    retryLimit: 20,
    retryDelay: 1,
    retryBackoff: true,
    retryDelayMax: 600,
    heartbeatSeconds: HEARTBEAT_SECONDS,
    expireInSeconds: 300,
    notify: true,
  },
  [QUEUES.webhookDelivery]: {
    policy: 'standard',
    // pg-boss's own retries only cover a crashed or failing handler (database down); the receiver's
    // answers are retried by the handler itself.
    retryLimit: 10,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 300,
    heartbeatSeconds: HEARTBEAT_SECONDS,
    expireInSeconds: 300,
    // One job per attempt: finished ones are of no use after a day.
    deleteAfterSeconds: 24 * 3600,
    notify: true,
  },
  [QUEUES.readReceipt]: {
    policy: 'standard',
    // Blue ticks are a courtesy: a few tries over a couple of minutes, then given up.
    retryLimit: 3,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 60,
    heartbeatSeconds: HEARTBEAT_SECONDS,
    expireInSeconds: 120,
    deleteAfterSeconds: 24 * 3600,
    notify: true,
  },
  [QUEUES.housekeeping]: {
    policy: 'singleton',
    retryLimit: 2,
    retryDelay: 60,
    heartbeatSeconds: HEARTBEAT_SECONDS,
    expireInSeconds: 900,
  },
};

export interface JobQueueOptions {
  connectionString: string;
  /** Whether this process supervises jobs (expiry, heartbeats, retention): nodes with the worker role. */
  supervise: boolean;
  logger: Logger;
}

export class JobQueue {
  readonly boss: PgBoss;
  private stopped = false;

  constructor(private readonly opts: JobQueueOptions) {
    this.boss = new PgBoss({
      connectionString: opts.connectionString,
      schema: 'pgboss',
      max: 10,
      supervise: opts.supervise,
      schedule: opts.supervise,
      superviseIntervalSeconds: 2,
      monitorIntervalSeconds: 5,
      // Workers burst through a backlog while the cached ready count says there is one; pg-boss's
      // default refreshes it only every 60 s.
      queueCacheIntervalSeconds: 2,
      useListenNotify: true,
    });
    this.boss.on('error', (err: unknown) => {
      // pg-boss closes its pool without waiting for the sockets: a database stopped right after may
      // still reach one, which is no news once the queue has stopped.
      if (this.stopped) return;
      // Its loops retry on their own; an unreachable database is an outage, not a bug.
      if (isConnectionFailure(err))
        opts.logger.warn({ err: errorText(err) }, 'job queue: database unreachable');
      else opts.logger.error({ err }, 'job queue error');
    });
  }

  /** Installs or migrates pg-boss's schema (under its own lock) and creates the platform's queues. */
  async start(): Promise<void> {
    await this.boss.start();
    const existing = new Set((await this.boss.getQueues()).map((q) => q.name));
    for (const [name, def] of Object.entries(QUEUE_DEFINITIONS)) {
      if (!existing.has(name)) {
        try {
          await this.boss.createQueue(name, def);
        } catch (err) {
          // Another node created it between our read and our create.
          if (!(await this.boss.getQueue(name))) throw err;
        }
      }
    }
  }

  /** Queues jobs inside the caller's transaction: they exist exactly when it commits. */
  async insertInTransaction<T extends object>(tx: Tx, queue: QueueName, jobs: JobInsert<T>[]): Promise<void> {
    if (jobs.length === 0) return;
    await this.boss.insert(queue, jobs, { db: fromKysely(tx) });
  }

  async stop(): Promise<void> {
    await this.boss.stop({ graceful: true, timeout: 10_000 });
    this.stopped = true;
  }
}

/** pg-boss passes on copies of errors that are not always Error instances. */
function errorText(err: unknown): string {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(err);
}
