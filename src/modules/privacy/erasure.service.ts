import { Type, type Static } from '@sinclair/typebox';
import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import type { Db, Tx } from '../../db/index.js';
import type { AuditService } from '../audit/index.js';
import { notFound } from '../../http/errors.js';
import type { ContactErasureJob } from '../../jobs/payloads.js';
import { QUEUES, type JobQueue, type JobWorker } from '../../jobs/queue.js';
import { newId } from '../../lib/ids.js';
import type { MediaStore } from '../media/index.js';
import type { ErasureRepo, ErasureRow, ErasureTarget } from './erasure.repo.js';
import type { PrivacyRepo } from './privacy.repo.js';

/** Rows per transaction: a person with 100,000 messages is 100 short transactions, not one long one. */
export const ERASURE_BATCH = 1000;

export const EraseBody = Type.Object(
  {
    confirm: Type.Literal('ERASE', {
      description: 'Must be `ERASE`: the erasure cannot be undone.',
    }),
  },
  { additionalProperties: false },
);
export type EraseBody = Static<typeof EraseBody>;

export const ErasureSchema = Type.Object({
  id: Type.String(),
  customerId: Type.String(),
  status: Type.Union([Type.Literal('running'), Type.Literal('done')]),
  counts: Type.Record(Type.String(), Type.Integer(), {
    description:
      'Rows changed per step: messages, requestLogs, events, inboundEvents, notifications, notes, contacts',
  }),
  createdAt: Type.String({ format: 'date-time' }),
  finishedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type Erasure = Static<typeof ErasureSchema>;

const toErasure = (r: ErasureRow): Erasure => ({
  id: r.id,
  customerId: r.customer_id,
  status: r.status,
  counts: r.counts,
  createdAt: r.created_at.toISOString(),
  finishedAt: r.finished_at?.toISOString() ?? null,
});

/** How far one run may go: tests stop a run midway as a crash would. */
export interface ErasureRunLimit {
  maxBatches?: number;
}

/**
 * The data subject's erasure right (LGPD art. 18, VI): requested here, done by a job in bounded
 * batches that finishes after a restart (docs/adr/0092-data-subject-rights.md).
 */
export class ErasureService {
  constructor(
    private readonly db: Db,
    private readonly repo: ErasureRepo,
    private readonly privacy: PrivacyRepo,
    private readonly mediaStore: MediaStore,
    private readonly jobs: JobQueue,
    private readonly audit: AuditService,
  ) {}

  /** Records the request and queues its job; a running erasure of the same person is answered as is. */
  async request(actor: UserActor, id: string): Promise<Erasure> {
    requirePermission(actor, 'customers:manage');
    const customerId = await this.privacy.subject(actor.accountId, id);
    if (!customerId) throw notFound();
    const erasureId = await this.db.transaction().execute(async (tx) => {
      const running = await this.repo.running(tx, customerId);
      if (running) return running.id;
      const fresh = newId();
      await this.repo.insert(tx, {
        id: fresh,
        accountId: actor.accountId,
        customerId,
        actorId: actor.userId,
      });
      await this.jobs.insertInTransaction<ContactErasureJob>(tx, QUEUES.contactErasure, [
        { data: { erasureId: fresh } },
      ]);
      // The erased person by id only: their name or number kept here would undo the erasure. A
      // request while one is running changes nothing and writes no line.
      await this.audit.record(tx, actor, {
        action: 'contact.erase',
        target: { type: 'contact', id: customerId },
        details: { erasureId: fresh },
      });
      return fresh;
    });
    return toErasure((await this.repo.get(erasureId))!);
  }

  async get(actor: UserActor, erasureId: string): Promise<Erasure> {
    requirePermission(actor, 'customers:manage');
    const row = await this.repo.get(erasureId);
    if (!row || row.account_id !== actor.accountId) throw notFound();
    return toErasure(row);
  }

  /** Runs the erasure's remaining steps; answers whether it finished (false: stopped by `limit`). */
  async process(erasureId: string, limit: ErasureRunLimit = {}): Promise<boolean> {
    const row = await this.repo.get(erasureId);
    if (!row || row.status === 'done') return true;
    const target = await this.repo.target(row.account_id, row.customer_id);
    let budget = limit.maxBatches ?? Number.POSITIVE_INFINITY;
    const steps: [string, (tx: Tx, t: ErasureTarget) => Promise<number>][] = [
      ['messages', (tx, t) => this.messageBatch(tx, t)],
      ['requestLogs', (tx, t) => this.repo.requestLogBatch(tx, t, ERASURE_BATCH)],
      ['events', (tx, t) => this.repo.eventBatch(tx, t, ERASURE_BATCH)],
      ['inboundEvents', (tx, t) => this.repo.inboundBatch(tx, t, ERASURE_BATCH)],
      ['notifications', (tx, t) => this.repo.notificationBatch(tx, t, ERASURE_BATCH)],
    ];
    for (const [name, step] of steps) {
      for (;;) {
        if (budget-- <= 0) return false;
        const n = await this.db.transaction().execute(async (tx) => {
          const changed = await step(tx, target);
          await this.repo.addCounts(tx, erasureId, name, changed);
          return changed;
        });
        if (n < ERASURE_BATCH) break;
      }
    }
    if (budget-- <= 0) return false;
    await this.db.transaction().execute(async (tx) => {
      await this.repo.addCounts(tx, erasureId, 'notes', await this.repo.conversationExtras(tx, target));
      await this.repo.addCounts(tx, erasureId, 'contacts', await this.repo.scrubProfile(tx, row.customer_id));
      await this.repo.finish(tx, erasureId);
    });
    return true;
  }

  /** Files first, then the rows: a file whose message is gone would be unreachable, not erased. */
  private async messageBatch(tx: Tx, t: ErasureTarget): Promise<number> {
    if (t.chatIds.length === 0) return 0;
    const batch = await this.repo.messageBatch(tx, t, ERASURE_BATCH);
    for (const m of batch) if (m.has_file) await this.mediaStore.delete(tx, m.id);
    return this.repo.deleteMessages(
      tx,
      batch.map((m) => m.id),
    );
  }
}

/** Erasures, one at a time per node: each is many short transactions. */
export function contactErasureWorker(erasures: ErasureService): JobWorker<ContactErasureJob> {
  return {
    queue: QUEUES.contactErasure,
    options: { concurrency: 1, pollMs: 5_000 },
    run: async (job) => {
      await erasures.process(job.data.erasureId);
    },
    retryLog: { level: 'warn', message: 'erasure will retry', fields: (d) => ({ erasureId: d.erasureId }) },
  };
}
