import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';

export interface NotificationRow {
  id: string;
  user_id: string;
  kind: string;
  data: Record<string, unknown>;
  read_at: Date | null;
  created_at: Date;
}

const columns = ['id', 'user_id', 'kind', 'data', 'read_at', 'created_at'] as const;

export class NotificationsRepo {
  constructor(private readonly db: Db) {}

  async insert(
    tx: Tx,
    rows: { id: string; account_id: string; user_id: string; kind: string; data: Record<string, unknown> }[],
  ): Promise<NotificationRow[]> {
    if (rows.length === 0) return [];
    return tx
      .insertInto('notifications')
      .values(rows.map((r) => ({ ...r, data: JSON.stringify(r.data) })))
      .returning(columns)
      .execute();
  }

  /**
   * The newest notifications (newest first) and how many are unread in all, read from one snapshot: a
   * notification committed between two separate reads would be counted but not listed, or listed but
   * not counted.
   */
  async page(
    userId: string,
    opts: { unreadOnly: boolean; limit: number },
  ): Promise<{ rows: NotificationRow[]; unread: number }> {
    return this.db
      .transaction()
      .setIsolationLevel('repeatable read')
      .setAccessMode('read only')
      .execute(async (tx) => {
        let q = tx.selectFrom('notifications').select(columns).where('user_id', '=', userId);
        if (opts.unreadOnly) q = q.where('read_at', 'is', null);
        const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(opts.limit).execute();
        const count = await tx
          .selectFrom('notifications')
          .select(sql<number>`count(*)::int8`.as('n'))
          .where('user_id', '=', userId)
          .where('read_at', 'is', null)
          .executeTakeFirstOrThrow();
        return { rows, unread: Number(count.n) };
      });
  }

  /** Sets read_at once (a second read keeps the first time); undefined when not the user's. */
  async markRead(userId: string, id: string): Promise<NotificationRow | undefined> {
    return this.db
      .updateTable('notifications')
      .set({ read_at: sql`coalesce(read_at, now())` })
      .where('id', '=', id)
      .where('user_id', '=', userId)
      .returning(columns)
      .executeTakeFirst();
  }

  /** Active users of the account whose role has the permission (e.g. who hears about webhooks). */
  async usersWithPermission(tx: Tx, accountId: string, permission: string): Promise<string[]> {
    const rows = await tx
      .selectFrom('users as u')
      .innerJoin('roles as r', 'r.id', 'u.role_id')
      .select('u.id')
      .where('u.account_id', '=', accountId)
      .where('u.status', '<>', 'cancelled')
      .where(sql<boolean>`${permission} = ANY(r.permissions)`)
      .execute();
    return rows.map((r) => r.id);
  }
}
