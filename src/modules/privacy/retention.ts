import { Type, type Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import { inTransaction, type Db } from '../../db/index.js';
import type { AuditService } from '../audit/index.js';
import type { MediaStore } from '../media/index.js';

export const RetentionSchema = Type.Object(
  {
    days: Type.Union([Type.Integer({ minimum: 1, maximum: 36500 }), Type.Null()], {
      description:
        'Messages (or only their files) older than this many days are deleted; null keeps them forever.',
    }),
    scope: Type.Union([Type.Literal('messages'), Type.Literal('media')], {
      description: '`messages`: the messages and their files; `media`: only the files, the messages stay.',
    }),
  },
  { additionalProperties: false },
);
export type Retention = Static<typeof RetentionSchema>;

/** Rows per transaction, and batches per account per housekeeping round (the rest waits a minute). */
const BATCH = 1000;
const BATCHES_PER_ROUND = 20;

/**
 * The account's retention of messages and files (LGPD art. 15-16: data kept no longer than needed),
 * set by admins and enforced by housekeeping in batches (docs/adr/0092-data-subject-rights.md).
 */
export class RetentionService {
  constructor(
    private readonly db: Db,
    private readonly mediaStore: MediaStore,
    private readonly audit: AuditService,
  ) {}

  async get(actor: UserActor): Promise<Retention> {
    requirePermission(actor, 'customers:manage');
    const { rows } = await sql<Retention>`
      SELECT days, scope FROM account_retention WHERE account_id = ${actor.accountId}`.execute(this.db);
    return rows[0] ?? { days: null, scope: 'messages' };
  }

  async update(actor: UserActor, body: Retention): Promise<Retention> {
    requirePermission(actor, 'customers:manage');
    await inTransaction(this.db, async (tx) => {
      await sql`
        INSERT INTO account_retention (account_id, days, scope, updated_by)
        VALUES (${actor.accountId}, ${body.days}, ${body.scope}, ${actor.userId})
        ON CONFLICT (account_id) DO UPDATE SET days = EXCLUDED.days, scope = EXCLUDED.scope,
          updated_by = EXCLUDED.updated_by, updated_at = now()`.execute(tx);
      await this.audit.record(tx, actor, {
        action: 'retention.update',
        target: { type: 'account', id: actor.accountId },
        details: { days: body.days, scope: body.scope },
      });
    });
    return { days: body.days, scope: body.scope };
  }

  /** One housekeeping round: for every account with a retention, up to a few batches deleted. */
  async enforce(): Promise<number> {
    const { rows } = await sql<{ account_id: string; days: number; scope: Retention['scope'] }>`
      SELECT account_id, days, scope FROM account_retention WHERE days IS NOT NULL`.execute(this.db);
    let changed = 0;
    for (const r of rows) {
      for (let i = 0; i < BATCHES_PER_ROUND; i++) {
        const n = await this.batch(r.account_id, r.days, r.scope);
        changed += n;
        if (n < BATCH) break;
      }
    }
    return changed;
  }

  private batch(accountId: string, days: number, scope: Retention['scope']): Promise<number> {
    return this.db.transaction().execute(async (tx) => {
      const media =
        scope === 'media' ? sql`AND EXISTS (SELECT 1 FROM media_objects o WHERE o.message_id = m.id)` : sql``;
      const { rows } = await sql<{ id: string; has_file: boolean }>`
        SELECT m.id, EXISTS (SELECT 1 FROM media_objects o WHERE o.message_id = m.id) AS has_file
        FROM messages m
        WHERE m.account_id = ${accountId} AND m.created_at < now() - make_interval(days => ${days}) ${media}
        ORDER BY m.created_at, m.id LIMIT ${BATCH} FOR UPDATE OF m SKIP LOCKED`.execute(tx);
      for (const m of rows) if (m.has_file) await this.mediaStore.delete(tx, m.id);
      if (scope === 'messages' && rows.length > 0) {
        await sql`DELETE FROM messages WHERE id = ANY(${rows.map((m) => m.id)}::text[])`.execute(tx);
      }
      return rows.length;
    });
  }
}
