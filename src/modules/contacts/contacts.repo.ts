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
}
