import { sql, type Insertable } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { ContactsTable, ContactType } from '../../db/types.js';

/** A contact an outbound message goes to, as the send pipeline writes it. */
export type OutboundContact = Pick<
  ContactsTable,
  'id' | 'account_id' | 'channel_id' | 'type' | 'value' | 'name'
>;

/** A known contact with an open chat on its channel (`openConversations`). */
export interface OpenConversation {
  contactId: string;
  value: string;
  name: string | null;
  providerAddress: string | null;
  chatId: string;
}

/** A contact's identity on a channel, as a map key. */
export function contactKey(channelId: string, type: string, value: string): string {
  return `${channelId}\u0000${type}\u0000${value}`;
}

export class ContactsRepo {
  constructor(private readonly db: Db) {}

  /** Finds or creates the contact; a name given later fills or refreshes the stored one. */
  async upsert(tx: Tx, row: Insertable<ContactsTable>): Promise<{ id: string; name: string | null }> {
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
    row: OutboundContact,
  ): Promise<{ id: string; value: string; provider_address: string | null }> {
    const [contact] = await this.findOrCreateMany(tx, [row]);
    if (!contact) throw new Error('the contact was not stored');
    return contact;
  }

  /**
   * `findOrCreate` for several contacts (each at most once) in one statement; answered in no
   * particular order, each with its channel, type and value to match it by.
   */
  async findOrCreateMany(
    tx: Tx,
    rows: readonly OutboundContact[],
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

  /**
   * Of these contacts (channel, type, value), those that exist and have an open chat on their channel,
   * by `contactKey`: one read for a batch of sends.
   */
  async openConversations(
    items: readonly { channelId: string; type: ContactType; value: string }[],
  ): Promise<Map<string, OpenConversation>> {
    const out = new Map<string, OpenConversation>();
    if (items.length === 0) return out;
    const { rows } = await sql<{
      channel_id: string;
      type: string;
      value: string;
      contact_id: string;
      name: string | null;
      provider_address: string | null;
      chat_id: string;
    }>`
      SELECT ct.channel_id, ct.type, ct.value, ct.id AS contact_id, ct.name, ct.provider_address, c.id AS chat_id
      FROM unnest(${items.map((i) => i.channelId)}::text[], ${items.map((i) => i.type)}::text[],
                  ${items.map((i) => i.value)}::text[]) AS v(channel_id, type, value)
      JOIN contacts ct ON ct.channel_id = v.channel_id AND ct.type = v.type AND ct.value = v.value
      JOIN chats c ON c.channel_id = ct.channel_id AND c.contact_id = ct.id AND c.status = 'open'`.execute(
      this.db,
    );
    for (const r of rows)
      out.set(contactKey(r.channel_id, r.type, r.value), {
        contactId: r.contact_id,
        value: r.value,
        name: r.name,
        providerAddress: r.provider_address,
        chatId: r.chat_id,
      });
    return out;
  }

  /**
   * A customer's new number: the contact takes the new value and address, unless another contact of
   * the channel already has that value (then only the address moves, and false is answered).
   */
  async changeNumber(tx: Tx, id: string, value: string, address: string): Promise<boolean> {
    const moved = await sql`
      UPDATE contacts c SET value = ${value}, provider_address = ${address}, updated_at = now()
      WHERE c.id = ${id} AND NOT EXISTS (
        SELECT 1 FROM contacts o
        WHERE o.channel_id = c.channel_id AND o.type = c.type AND o.value = ${value} AND o.id <> c.id)`.execute(
      tx,
    );
    if (Number(moved.numAffectedRows ?? 0) > 0) return true;
    await this.setProviderAddress(tx, id, address);
    return false;
  }

  /** The address the provider last said it delivered to (WhatsApp's `wa_id`), used for later sends. */
  async setProviderAddress(tx: Tx, id: string, address: string): Promise<void> {
    await this.setProviderAddresses(tx, [{ id, address }]);
  }

  /** `setProviderAddress` for several contacts in one statement. */
  async setProviderAddresses(tx: Tx, items: readonly { id: string; address: string }[]): Promise<void> {
    if (items.length === 0) return;
    await sql`
      UPDATE contacts c SET provider_address = v.address, updated_at = now()
      FROM unnest(${items.map((i) => i.id)}::text[], ${items.map((i) => i.address)}::text[]) AS v(id, address)
      WHERE c.id = v.id AND c.provider_address IS DISTINCT FROM v.address`.execute(tx);
  }
}
