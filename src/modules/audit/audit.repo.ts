import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { AuditLogTable } from '../../db/types.js';
import type { Insertable } from 'kysely';

export interface AuditRow {
  id: string;
  actor_type: 'user' | 'api_key' | 'system';
  actor_id: string | null;
  actor_name: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  details: Record<string, unknown>;
  ip: string | null;
  user_agent: string | null;
  created_at: Date;
}

export interface AuditFilter {
  actorId?: string;
  actionPrefix?: string;
  targetType?: string;
  targetId?: string;
  from?: Date;
  to?: Date;
  before?: string;
}

/** `%`, `_` and `\` taken literally in a LIKE prefix. */
const likePrefix = (s: string) => `${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The table `audit_log` (migration 061): inserted into, never updated. */
export class AuditRepo {
  constructor(private readonly db: Db) {}

  /** In `tx`, or on its own when none is given. */
  async insert(tx: Tx | Db | undefined, row: Insertable<AuditLogTable>): Promise<void> {
    await (tx ?? this.db).insertInto('audit_log').values(row).execute();
  }

  /** A page, newest first; the actor's current name in the same statement (no query per line). */
  async list(accountId: string, f: AuditFilter, limit: number): Promise<AuditRow[]> {
    let q = this.db
      .selectFrom('audit_log as a')
      .leftJoin('users as u', (j) =>
        j
          .onRef('u.id', '=', 'a.actor_id')
          .on('a.actor_type', '=', 'user')
          .onRef('u.account_id', '=', 'a.account_id'),
      )
      .leftJoin('account_api_keys as k', (j) =>
        j
          .onRef('k.id', '=', 'a.actor_id')
          .on('a.actor_type', '=', 'api_key')
          .onRef('k.account_id', '=', 'a.account_id'),
      )
      .select([
        'a.id',
        'a.actor_type',
        'a.actor_id',
        sql<string | null>`coalesce(u.name, k.name)`.as('actor_name'),
        'a.action',
        'a.target_type',
        'a.target_id',
        'a.details',
        'a.ip',
        'a.user_agent',
        'a.created_at',
      ])
      .where('a.account_id', '=', accountId);
    if (f.actorId !== undefined) q = q.where('a.actor_id', '=', f.actorId);
    if (f.actionPrefix !== undefined) q = q.where(sql<boolean>`a.action LIKE ${likePrefix(f.actionPrefix)}`);
    if (f.targetType !== undefined) q = q.where('a.target_type', '=', f.targetType);
    if (f.targetId !== undefined) q = q.where('a.target_id', '=', f.targetId);
    if (f.from !== undefined) q = q.where('a.created_at', '>=', f.from);
    if (f.to !== undefined) q = q.where('a.created_at', '<', f.to);
    if (f.before !== undefined) q = q.where(sql<boolean>`a.id < ${f.before}::bigint`);
    return (await q.orderBy('a.id', 'desc').limit(limit).execute()) as AuditRow[];
  }
}
