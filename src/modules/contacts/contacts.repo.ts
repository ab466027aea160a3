import { sql } from 'kysely';
import type { Tx } from '../../db/index.js';
import type { ContactType } from '../../db/types.js';

export class ContactsRepo {
  /** Finds or creates the contact; a name given later fills or refreshes the stored one. */
  async upsert(
    tx: Tx,
    row: {
      id: string;
      account_id: string;
      channel_id: string;
      type: ContactType;
      value: string;
      name: string | null;
      provider_address: string | null;
    },
  ): Promise<{ id: string; name: string | null }> {
    return tx
      .insertInto('contacts')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['channel_id', 'type', 'value']).doUpdateSet({
          name: sql`coalesce(excluded.name, contacts.name)`,
          provider_address: sql`coalesce(excluded.provider_address, contacts.provider_address)`,
          updated_at: sql`now()`,
        }),
      )
      .returning(['id', 'name'])
      .executeTakeFirstOrThrow();
  }

  /**
   * Finds or creates the contact an outbound message goes to. A name given with the send only fills a
   * missing one (it is request context, not a correction), and the stored provider address is kept.
   */
  async findOrCreate(
    tx: Tx,
    row: {
      id: string;
      account_id: string;
      channel_id: string;
      type: ContactType;
      value: string;
      name: string | null;
    },
  ): Promise<{ id: string; value: string; provider_address: string | null }> {
    return tx
      .insertInto('contacts')
      .values({ ...row, provider_address: null })
      .onConflict((oc) =>
        oc.columns(['channel_id', 'type', 'value']).doUpdateSet({
          name: sql`coalesce(contacts.name, excluded.name)`,
        }),
      )
      .returning(['id', 'value', 'provider_address'])
      .executeTakeFirstOrThrow();
  }

  /**
   * `findOrCreate` for several contacts (each at most once) in one statement; answered in no
   * particular order, each with its channel, type and value to match it by.
   */
  async findOrCreateMany(
    tx: Tx,
    rows: readonly {
      id: string;
      account_id: string;
      channel_id: string;
      type: ContactType;
      value: string;
      name: string | null;
    }[],
  ): Promise<
    { id: string; channel_id: string; type: ContactType; value: string; provider_address: string | null }[]
  > {
    if (rows.length === 0) return [];
    return tx
      .insertInto('contacts')
      .values(rows.map((r) => ({ ...r, provider_address: null })))
      .onConflict((oc) =>
        oc.columns(['channel_id', 'type', 'value']).doUpdateSet({
          name: sql`coalesce(contacts.name, excluded.name)`,
        }),
      )
      .returning(['id', 'channel_id', 'type', 'value', 'provider_address'])
      .execute();
  }

  /** `setProviderAddress` for several contacts in one statement. */
  async setProviderAddresses(tx: Tx, items: readonly { id: string; address: string }[]): Promise<void> {
    if (items.length === 0) return;
    await sql`
      UPDATE contacts c SET provider_address = v.address, updated_at = now()
      FROM unnest(${items.map((i) => i.id)}::text[], ${items.map((i) => i.address)}::text[]) AS v(id, address)
      WHERE c.id = v.id AND c.provider_address IS DISTINCT FROM v.address`.execute(tx);
  }

  /** The address the provider last said it delivered to (WhatsApp's `wa_id`), used for later sends. */
  async setProviderAddress(tx: Tx, id: string, address: string): Promise<void> {
    await tx
      .updateTable('contacts')
      .set({ provider_address: address, updated_at: sql`now()` })
      .where('id', '=', id)
      .where('provider_address', 'is distinct from', address)
      .execute();
  }
}
