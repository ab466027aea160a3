import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { LabelRefT } from '../chats/index.js';

export interface LabelRow {
  id: string;
  name: string;
  color: string;
  description: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['id', 'name', 'color', 'description', 'created_at', 'updated_at'] as const;

/** Postgres' unique_violation: another label of the account has the name (`labels_account_name_key`). */
export const isNameTaken = (err: unknown) =>
  (err as { code?: string; constraint?: string }).code === '23505' &&
  (err as { constraint?: string }).constraint === 'labels_account_name_key';

/** The tables `labels`, `chat_labels` and `customer_labels` (migration 028). */
export class LabelsRepo {
  constructor(private readonly db: Db) {}

  async list(accountId: string, limit: number): Promise<LabelRow[]> {
    return this.db
      .selectFrom('labels')
      .select(COLUMNS)
      .where('account_id', '=', accountId)
      .orderBy(sql`lower(name)`)
      .orderBy('id')
      .limit(limit)
      .execute();
  }

  async count(tx: Tx, accountId: string): Promise<number> {
    const row = await tx
      .selectFrom('labels')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('account_id', '=', accountId)
      .executeTakeFirst();
    return row?.n ?? 0;
  }

  async find(accountId: string, id: string, db: Db | Tx = this.db): Promise<LabelRow | undefined> {
    return db
      .selectFrom('labels')
      .select(COLUMNS)
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Several labels of an account (absent ones left out). */
  async findMany(accountId: string, ids: readonly string[]): Promise<LabelRow[]> {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom('labels')
      .select(COLUMNS)
      .where('account_id', '=', accountId)
      .where('id', 'in', ids)
      .execute();
  }

  async insert(
    tx: Tx,
    row: { id: string; account_id: string; name: string; color: string; description: string | null },
  ): Promise<LabelRow> {
    return tx.insertInto('labels').values(row).returning(COLUMNS).executeTakeFirstOrThrow();
  }

  async update(
    tx: Tx,
    accountId: string,
    id: string,
    patch: Partial<{ name: string; color: string; description: string | null }>,
  ): Promise<LabelRow | undefined> {
    return tx
      .updateTable('labels')
      .set({ ...patch, updated_at: sql`now()` })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirst();
  }

  /** Deletes the label (its links go with it, by their foreign keys); the row it was, if any. */
  async delete(tx: Tx, accountId: string, id: string): Promise<LabelRow | undefined> {
    return tx
      .deleteFrom('labels')
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .returning(COLUMNS)
      .executeTakeFirst();
  }

  /** Puts the label on the chat; whether it was not there before. */
  async addToChat(tx: Tx, accountId: string, chatId: string, labelId: string, by: string): Promise<boolean> {
    const rows = await tx
      .insertInto('chat_labels')
      .values({ chat_id: chatId, label_id: labelId, account_id: accountId, created_by: by })
      .onConflict((oc) => oc.doNothing())
      .returning('label_id')
      .execute();
    return rows.length > 0;
  }

  /** Takes the label off the chat; whether it was there. */
  async removeFromChat(tx: Tx, chatId: string, labelId: string): Promise<boolean> {
    const rows = await tx
      .deleteFrom('chat_labels')
      .where('chat_id', '=', chatId)
      .where('label_id', '=', labelId)
      .returning('label_id')
      .execute();
    return rows.length > 0;
  }

  async addToCustomer(
    tx: Tx,
    accountId: string,
    customerId: string,
    labelId: string,
    by: string,
  ): Promise<boolean> {
    const rows = await tx
      .insertInto('customer_labels')
      .values({ customer_id: customerId, label_id: labelId, account_id: accountId, created_by: by })
      .onConflict((oc) => oc.doNothing())
      .returning('label_id')
      .execute();
    return rows.length > 0;
  }

  async removeFromCustomer(tx: Tx, customerId: string, labelId: string): Promise<boolean> {
    const rows = await tx
      .deleteFrom('customer_labels')
      .where('customer_id', '=', customerId)
      .where('label_id', '=', labelId)
      .returning('label_id')
      .execute();
    return rows.length > 0;
  }

  /**
   * Whether the user may see the customer: with `readAll`, any customer of the account; otherwise a
   * customer with a conversation (open or closed) in one of the user's teams or attended by them — the
   * customer of a chat they may open.
   */
  async customerVisible(
    accountId: string,
    customerId: string,
    viewer: { userId: string; readAll: boolean },
    db: Db | Tx = this.db,
  ): Promise<boolean> {
    const { rows } = await sql<{ ok: boolean }>`
      SELECT EXISTS (SELECT 1 FROM customers WHERE id = ${customerId} AND account_id = ${accountId})
        AND (${viewer.readAll}::boolean OR EXISTS (
          SELECT 1 FROM contacts ct JOIN chats c ON c.contact_id = ct.id
           WHERE ct.customer_id = ${customerId} AND ct.account_id = ${accountId}
             AND (c.user_id = ${viewer.userId} OR c.team_id IN (
               SELECT team_id FROM team_members WHERE user_id = ${viewer.userId})))) AS ok`.execute(db);
    return rows[0]?.ok === true;
  }

  /** The customer's labels, by name. */
  async customerLabels(customerId: string, db: Db | Tx = this.db): Promise<LabelRefT[]> {
    return db
      .selectFrom('customer_labels as cl')
      .innerJoin('labels as l', 'l.id', 'cl.label_id')
      .select(['l.id', 'l.name', 'l.color'])
      .where('cl.customer_id', '=', customerId)
      .orderBy(sql`lower(l.name)`)
      .orderBy('l.id')
      .execute();
  }

  /** The customer's open chats (where its labels are watched), at most `limit`. */
  async customerOpenChats(
    accountId: string,
    customerId: string,
    limit: number,
    db: Db | Tx = this.db,
  ): Promise<{ id: string; teamId: string; userId: string | null }[]> {
    return db
      .selectFrom('chats as c')
      .innerJoin('contacts as ct', 'ct.id', 'c.contact_id')
      .select(['c.id', 'c.team_id as teamId', 'c.user_id as userId'])
      .where('ct.customer_id', '=', customerId)
      .where('c.account_id', '=', accountId)
      .where('c.status', '=', 'open')
      .limit(limit)
      .execute();
  }
}
