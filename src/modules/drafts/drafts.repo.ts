import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';

export interface DraftRow {
  chat_id: string;
  text: string;
  updated_at: Date;
}

export class DraftsRepo {
  constructor(private readonly db: Db) {}

  async upsert(
    tx: Tx,
    row: { user_id: string; chat_id: string; account_id: string; text: string },
  ): Promise<DraftRow> {
    return tx
      .insertInto('drafts')
      .values(row)
      .onConflict((oc) =>
        oc
          .columns(['user_id', 'chat_id'])
          .doUpdateSet({ text: row.text, updated_at: sql`clock_timestamp()` }),
      )
      .returning(['chat_id', 'text', 'updated_at'])
      .executeTakeFirstOrThrow();
  }

  /** Removes the draft (an empty text clears it). */
  async delete(tx: Tx, userId: string, chatId: string): Promise<void> {
    await tx.deleteFrom('drafts').where('user_id', '=', userId).where('chat_id', '=', chatId).execute();
  }

  /** The user's drafts on open chats, most recent first. */
  async list(userId: string): Promise<DraftRow[]> {
    return this.db
      .selectFrom('drafts as d')
      .innerJoin('chats as c', 'c.id', 'd.chat_id')
      .select(['d.chat_id', 'd.text', 'd.updated_at'])
      .where('d.user_id', '=', userId)
      .where('c.status', '=', 'open')
      .orderBy('d.updated_at', 'desc')
      .orderBy('d.chat_id')
      .execute();
  }
}
