import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';

export interface ChatViewRow {
  id: string;
  name: string;
  filters: Record<string, unknown>;
  position: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['id', 'name', 'filters', 'position', 'created_at', 'updated_at'] as const;

/** The `chat_views` table (migration 030): a user's views, in their order. */
export class ChatViewsRepo {
  constructor(private readonly db: Db) {}

  async list(userId: string, db: Db | Tx = this.db): Promise<ChatViewRow[]> {
    return db
      .selectFrom('chat_views')
      .select(COLUMNS)
      .where('user_id', '=', userId)
      .orderBy('position')
      .orderBy('id')
      .execute();
  }

  /** Locks the user's views for the rest of the transaction (their order is rewritten). */
  async lockUser(tx: Tx, userId: string): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(hashtext('chat_views'), hashtext(${userId}))`.execute(tx);
  }

  async insert(
    tx: Tx,
    row: { id: string; account_id: string; user_id: string; name: string; filters: string; position: number },
  ): Promise<void> {
    await tx.insertInto('chat_views').values(row).execute();
  }

  async update(
    tx: Tx,
    userId: string,
    id: string,
    patch: Partial<{ name: string; filters: string }>,
  ): Promise<boolean> {
    const rows = await tx
      .updateTable('chat_views')
      .set({ ...patch, updated_at: sql`now()` })
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .returning('id')
      .execute();
    return rows.length > 0;
  }

  /** Writes each view's place: `ids` in their new order. */
  async reorder(tx: Tx, userId: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await sql`UPDATE chat_views v SET position = o.n - 1
      FROM unnest(${ids}::text[]) WITH ORDINALITY AS o(id, n)
      WHERE v.id = o.id AND v.user_id = ${userId} AND v.position <> o.n - 1`.execute(tx);
  }

  async delete(tx: Tx, userId: string, id: string): Promise<boolean> {
    const rows = await tx
      .deleteFrom('chat_views')
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .returning('id')
      .execute();
    return rows.length > 0;
  }
}
