import { sql, type RawBuilder } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { CustomerAttributeValues } from '../../db/types.js';
import { sqlInteger } from '../../db/sql-text.js';

/** A customer as read with its contacts and labels (`CustomersRepo.read`), one statement for a page. */
export interface CustomerRow {
  id: string;
  name: string | null;
  attributes: CustomerAttributeValues;
  created_at: Date;
  last_seen_at: Date | null;
  identities: {
    contactId: string;
    channelId: string;
    channelName: string;
    provider: string;
    type: string;
    value: string;
  }[];
  labels: { id: string; name: string; color: string }[];
}

/** Who asks: an account, and for a user without chats:read_all the chats they may see. */
export interface CustomerScope {
  accountId: string;
  /** Agents see a customer with a chat of one of their teams or one they attend; absent: every one. */
  visibleTo?: { teamIds: readonly string[]; userId: string };
}

/**
 * A search of the contacts page: `number` finds the digits anywhere in a contact's value; `text` the
 * customer's or a contact's name (accents and case ignored, `search_fold`) or a contact's value.
 */
export type CustomerSearch = { kind: 'number'; digits: string } | { kind: 'text'; text: string };

export interface CustomerFilter {
  search?: CustomerSearch;
  labelId?: string;
  /** Values every customer listed has (`attributes @>`), already typed by their definitions. */
  attributes?: CustomerAttributeValues;
}

/** The identities shown of one customer, at most (a merged customer may gather many). */
const MAX_IDENTITIES = 100;

const likeEscape = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/** The columns of a customer with its identities and labels, for rows of `customers cu`. */
const readColumns = sql`cu.id, cu.name, cu.attributes, cu.created_at,
  (SELECT max(k.last_inbound_at) FROM contacts k WHERE k.customer_id = cu.id) AS last_seen_at,
  coalesce((SELECT json_agg(i) FROM (
    SELECT k.id AS "contactId", k.channel_id AS "channelId", ch.name AS "channelName",
      ch.provider AS provider, k.type AS type, k.value AS value
    FROM contacts k JOIN channels ch ON ch.id = k.channel_id
    WHERE k.customer_id = cu.id ORDER BY k.created_at, k.id LIMIT ${sql.raw(sqlInteger(MAX_IDENTITIES))}) i), '[]') AS identities,
  coalesce((SELECT json_agg(json_build_object('id', l.id, 'name', l.name, 'color', l.color)
      ORDER BY lower(l.name), l.id)
    FROM customer_labels cl JOIN labels l ON l.id = cl.label_id WHERE cl.customer_id = cu.id), '[]') AS labels`;

/** The conditions of a scope and a filter on `customers cu`. */
function whereSql(scope: CustomerScope, f: CustomerFilter = {}): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [sql`cu.account_id = ${scope.accountId}`];
  if (scope.visibleTo) parts.push(visibleSql(scope.visibleTo));
  if (f.search?.kind === 'number') {
    parts.push(sql`cu.id IN (SELECT customer_id FROM contacts
      WHERE account_id = ${scope.accountId} AND value LIKE '%' || ${f.search.digits} || '%')`);
  } else if (f.search?.kind === 'text') {
    const term = sql`'%' || search_fold(${likeEscape(f.search.text)}) || '%'`;
    parts.push(sql`(search_fold(cu.name) LIKE ${term} OR cu.id IN (SELECT customer_id FROM contacts
      WHERE account_id = ${scope.accountId} AND (search_name LIKE ${term} OR value LIKE ${term})))`);
  }
  if (f.labelId !== undefined) {
    parts.push(sql`cu.id IN (SELECT customer_id FROM customer_labels
      WHERE account_id = ${scope.accountId} AND label_id = ${f.labelId})`);
  }
  if (f.attributes && Object.keys(f.attributes).length > 0) {
    parts.push(sql`cu.attributes @> ${JSON.stringify(f.attributes)}::jsonb`);
  }
  return sql.join(parts, sql` AND `);
}

/** An agent's customers: those with a chat of one of their teams, or a chat they attend. */
const visibleSql = (v: { teamIds: readonly string[]; userId: string }) =>
  sql`EXISTS (SELECT 1 FROM contacts k JOIN chats c ON c.contact_id = k.id
    WHERE k.customer_id = cu.id AND (c.team_id = ANY(${[...v.teamIds]}::text[]) OR c.user_id = ${v.userId}))`;

export class CustomersRepo {
  constructor(private readonly db: Db) {}

  /** One customer the scope may see, with its identities and labels. */
  async find(scope: CustomerScope, id: string, db: Db | Tx = this.db): Promise<CustomerRow | undefined> {
    const { rows } = await sql<CustomerRow>`SELECT ${readColumns} FROM customers cu
      WHERE cu.id = ${id} AND ${whereSql(scope)}`.execute(db);
    return rows[0];
  }

  /** A page of the scope's customers matching the filter, newest first, and the exact total. */
  async listPage(
    scope: CustomerScope,
    f: CustomerFilter,
    page: number,
    limit: number,
  ): Promise<{ rows: CustomerRow[]; total: number }> {
    const offset = (page - 1) * limit;
    const where = whereSql(scope, f);
    const { rows: counted } = await sql<{ n: number }>`SELECT count(*)::int8 AS n FROM customers cu
      WHERE ${where}`.execute(this.db);
    const total = counted[0]?.n ?? 0;
    if (!Number.isSafeInteger(offset) || offset >= total) return { rows: [], total };
    const { rows } = await sql<CustomerRow>`SELECT ${readColumns} FROM (
        SELECT cu.* FROM customers cu WHERE ${where}
        ORDER BY cu.created_at DESC, cu.id DESC
        LIMIT ${sql.raw(sqlInteger(limit))} OFFSET ${sql.raw(sqlInteger(offset))}) cu
      ORDER BY cu.created_at DESC, cu.id DESC`.execute(this.db);
    return { rows, total };
  }

  /**
   * The scope's customers matching the filter, newest first, read through a server-side cursor in
   * batches of `batch` rows: memory holds one batch whatever the size of the account. `onBatch`
   * answering false stops the read (the reader went away). Runs in a read-only transaction of its own.
   */
  async forEachBatch(
    scope: CustomerScope,
    f: CustomerFilter,
    batch: number,
    onBatch: (rows: CustomerRow[]) => Promise<boolean>,
  ): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await sql`SET TRANSACTION READ ONLY`.execute(tx);
      await sql`DECLARE customers_export NO SCROLL CURSOR FOR
        SELECT ${readColumns} FROM customers cu WHERE ${whereSql(scope, f)}
        ORDER BY cu.created_at DESC, cu.id DESC`.execute(tx);
      for (;;) {
        const { rows } =
          await sql<CustomerRow>`FETCH ${sql.raw(sqlInteger(batch))} FROM customers_export`.execute(tx);
        if (rows.length === 0 || !(await onBatch(rows))) break;
      }
      await sql`CLOSE customers_export`.execute(tx);
    });
  }

  /** The customer's row, locked for a change; only its own columns. */
  async lock(tx: Tx, accountId: string, id: string) {
    return tx
      .selectFrom('customers')
      .select(['id', 'name', 'attributes'])
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
  }

  async update(
    tx: Tx,
    id: string,
    patch: { name?: string | null; attributes?: CustomerAttributeValues },
  ): Promise<void> {
    await tx
      .updateTable('customers')
      .set({
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.attributes !== undefined ? { attributes: JSON.stringify(patch.attributes) } : {}),
        updated_at: sql`now()`,
      })
      .where('id', '=', id)
      .execute();
  }

  /** Removes an attribute's values from every customer of the account (its definition is gone). */
  async dropAttribute(tx: Tx, accountId: string, key: string): Promise<void> {
    await sql`UPDATE customers SET attributes = attributes - ${key}::text
      WHERE account_id = ${accountId} AND attributes ? ${key}::text`.execute(tx);
  }

  /** Where the customers' chats are (teams and attendants): who hears of a change to them. */
  async place(
    ids: readonly string[],
    db: Db | Tx = this.db,
  ): Promise<{ teamIds: string[]; userIds: string[] }> {
    const { rows } = await sql<{ team_ids: string[] | null; user_ids: string[] | null }>`
      SELECT array_agg(DISTINCT c.team_id) AS team_ids,
             array_agg(DISTINCT c.user_id) FILTER (WHERE c.user_id IS NOT NULL) AS user_ids
      FROM contacts k JOIN chats c ON c.contact_id = k.id
      WHERE k.customer_id = ANY(${[...ids]}::text[])`.execute(db);
    return { teamIds: rows[0]?.team_ids ?? [], userIds: rows[0]?.user_ids ?? [] };
  }

  /**
   * Merges customer `from` into `into` in one transaction's statements: contacts, labels and notes
   * move, attribute values of `from` fill those `into` lacks, the merge is recorded and `from` is
   * deleted. Answers the contacts that moved.
   */
  async merge(
    tx: Tx,
    m: {
      id: string;
      accountId: string;
      into: string;
      from: { id: string; name: string | null; attributes: CustomerAttributeValues };
      actorId: string;
    },
  ): Promise<string[]> {
    const moved = await tx
      .updateTable('contacts')
      .set({ customer_id: m.into, updated_at: sql`now()` })
      .where('customer_id', '=', m.from.id)
      .returning('id')
      .execute();
    const contactIds = moved.map((r) => r.id);
    await sql`INSERT INTO customer_labels (customer_id, label_id, account_id, created_by, created_at)
      SELECT ${m.into}, label_id, account_id, created_by, created_at FROM customer_labels
      WHERE customer_id = ${m.from.id}
      ON CONFLICT (customer_id, label_id) DO NOTHING`.execute(tx);
    await tx
      .updateTable('customer_notes')
      .set({ customer_id: m.into })
      .where('customer_id', '=', m.from.id)
      .execute();
    await sql`UPDATE customers SET attributes = ${JSON.stringify(m.from.attributes)}::jsonb || attributes,
      name = coalesce(name, ${m.from.name}), updated_at = now() WHERE id = ${m.into}`.execute(tx);
    await tx
      .insertInto('customer_merges')
      .values({
        id: m.id,
        account_id: m.accountId,
        customer_id: m.into,
        merged_customer_id: m.from.id,
        merged_name: m.from.name,
        merged_attributes: JSON.stringify(m.from.attributes),
        contact_ids: contactIds,
        actor_id: m.actorId,
      })
      .execute();
    // Earlier merges into `from` now name the customer their contacts are in.
    await tx
      .updateTable('customer_merges')
      .set({ customer_id: m.into })
      .where('customer_id', '=', m.from.id)
      .execute();
    // Its labels go with the row's cascade, once copied above.
    await tx.deleteFrom('customers').where('id', '=', m.from.id).execute();
    return contactIds;
  }
}
