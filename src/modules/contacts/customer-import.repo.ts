import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { ContactType, CustomerAttributeValues } from '../../db/types.js';

/** An address of a customer as an import names it. */
export interface Identity {
  type: ContactType;
  value: string;
}

/** The statements of a CSV import: finding who an address belongs to, adding addresses. */
export class CustomerImportRepo {
  constructor(private readonly db: Db) {}

  async channelExists(accountId: string, channelId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('channels')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', '=', channelId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The customer row, locked, if it is the account's. */
  async lock(tx: Tx, accountId: string, id: string) {
    return tx
      .selectFrom('customers')
      .select(['id', 'attributes'])
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
  }

  /** The customers these addresses already belong to, on any channel of the account (each once). */
  async owners(tx: Tx, accountId: string, identities: readonly Identity[]): Promise<string[]> {
    if (identities.length === 0) return [];
    const { rows } = await sql<{ customer_id: string }>`
      SELECT DISTINCT k.customer_id FROM contacts k
      JOIN unnest(${identities.map((i) => i.type)}::text[], ${identities.map((i) => i.value)}::text[])
        AS v(type, value) ON k.type = v.type AND k.value = v.value
      WHERE k.account_id = ${accountId}`.execute(tx);
    return rows.map((r) => r.customer_id);
  }

  /**
   * Adds the addresses on the channel (those already there are left as they are). With `customerId`
   * null the first starts a customer of its own (the database names it by the contact's id) and the
   * others join it; answers the customer.
   */
  async addContacts(
    tx: Tx,
    c: {
      accountId: string;
      channelId: string;
      name: string | null;
      customerId: string | null;
      identities: readonly Identity[];
      newId: () => string;
    },
  ): Promise<string> {
    let customerId = c.customerId;
    for (const identity of c.identities) {
      const id = c.newId();
      const inserted = await tx
        .insertInto('contacts')
        .values({
          id,
          account_id: c.accountId,
          channel_id: c.channelId,
          type: identity.type,
          value: identity.value,
          name: c.name,
          ...(customerId !== null ? { customer_id: customerId } : {}),
        })
        .onConflict((oc) => oc.columns(['channel_id', 'type', 'value']).doNothing())
        .returning('id')
        .executeTakeFirst();
      // Written meanwhile by another transaction: the caller's savepoint undoes the line.
      if (customerId === null && !inserted) throw new Error('the address was written meanwhile');
      customerId ??= id;
    }
    if (customerId === null) throw new Error('a customer needs an address');
    return customerId;
  }

  async update(tx: Tx, id: string, name: string | null, attributes: CustomerAttributeValues): Promise<void> {
    await tx
      .updateTable('customers')
      .set({
        ...(name !== null ? { name } : {}),
        attributes: JSON.stringify(attributes),
        updated_at: sql`now()`,
      })
      .where('id', '=', id)
      .execute();
  }
}
