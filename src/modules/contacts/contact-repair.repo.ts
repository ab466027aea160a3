import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { ChatStatus, LastMessage, MessageOrigin } from '../../db/types.js';

/** A contact being checked, as `atende doctor` reads it. */
export interface RepairContact {
  id: string;
  account_id: string;
  channel_id: string;
  value: string;
  name: string | null;
  provider_address: string | null;
  last_inbound_at: Date | null;
}

export interface RepairChat {
  id: string;
  status: ChatStatus;
  team_id: string;
  user_id: string | null;
  queue: string;
  unread_messages: number;
  last_message: LastMessage | null;
  closed_at: Date | null;
}

/** A message of a contact's chats: who sent it and when, without its content. */
export interface RepairMessage {
  id: string;
  chat_id: string;
  origin: MessageOrigin;
  created_at: Date;
  sender_address: string | null;
  sender_name: string | null;
  /** A number change (`user_changed_number`): the customer's new address. */
  new_address: string | null;
}

/** A customer's message whose sender is not recorded yet, found by its provider id. */
export interface UnrecordedMessage {
  id: string;
  provider_message_id: string;
  contact_id: string;
  contact_type: string;
  contact_value: string;
}

/** A chat to create for a customer whose messages are moved out of another's chat. */
export interface NewSplitChat {
  id: string;
  account_id: string;
  channel_id: string;
  contact_id: string;
  team_id: string;
  user_id: string | null;
  status: ChatStatus;
  queue: string;
  unread_messages: number;
  last_message: LastMessage | null;
  created_at: Date;
  closed_at: Date | null;
}

/** A changed chat: its contact, status, unread count and last message after a split. */
export interface SplitChatChange {
  id: string;
  contact_id: string;
  status: ChatStatus;
  unread_messages: number;
  last_message: LastMessage | null;
  closed_at: Date | null;
}

/**
 * The SQL of `atende doctor`'s contact check (ContactRepairService): who sent each customer's message,
 * contacts whose messages came from someone else, and the writes of a split. Maintenance reads: they
 * scan what they must (messages, stored webhooks) in bounded pages rather than use list indexes.
 */
export class ContactRepairRepo {
  constructor(private readonly db: Db) {}

  /**
   * Channels with customers' messages whose sender is not recorded (stored before migration 024), and
   * the newest such message's time: their webhooks are at most that recent.
   */
  async channelsWithUnrecordedSenders(): Promise<{ channel_id: string; until: Date; n: number }[]> {
    const { rows } = await sql<{ channel_id: string; until: Date; n: number }>`
      SELECT channel_id, max(created_at) AS until, count(*)::int8 AS n FROM messages
      WHERE origin = 'contact' AND sender_address IS NULL AND provider_message_id IS NOT NULL
      GROUP BY channel_id ORDER BY channel_id`.execute(this.db);
    return rows;
  }

  /** The next stored webhooks of a channel after `afterId` (in id order), with their stored sizes. */
  async webhookPage(
    channelId: string,
    until: Date,
    afterId: string,
    limit: number,
  ): Promise<{ id: string; size: number }[]> {
    const { rows } = await sql<{ id: string; size: number }>`
      SELECT id, pg_column_size(body)::int AS size FROM inbound_webhook_events
      WHERE channel_id = ${channelId} AND received_at <= ${until} AND id > ${afterId}
      ORDER BY id LIMIT ${limit}`.execute(this.db);
    return rows;
  }

  async webhookBodies(ids: readonly string[]): Promise<{ id: string; body: unknown; received_at: Date }[]> {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom('inbound_webhook_events')
      .select(['id', 'body', 'received_at'])
      .where('id', 'in', ids)
      .orderBy('id')
      .execute();
  }

  /** The channel's customers' messages with these provider ids whose sender is not recorded. */
  async unrecordedMessages(
    channelId: string,
    providerMessageIds: readonly string[],
  ): Promise<UnrecordedMessage[]> {
    if (providerMessageIds.length === 0) return [];
    const { rows } = await sql<UnrecordedMessage>`
      SELECT m.id, m.provider_message_id, ct.id AS contact_id, ct.type AS contact_type, ct.value AS contact_value
      FROM messages m JOIN chats c ON c.id = m.chat_id JOIN contacts ct ON ct.id = c.contact_id
      WHERE m.channel_id = ${channelId} AND m.provider_message_id = ANY(${providerMessageIds}::text[])
        AND m.origin = 'contact' AND m.sender_address IS NULL`.execute(this.db);
    return rows;
  }

  /** Records who sent these messages (only where nothing is recorded yet); how many were recorded. */
  async recordSenders(
    items: readonly { id: string; address: string; name: string | null }[],
  ): Promise<number> {
    if (items.length === 0) return 0;
    const result = await sql`
      UPDATE messages m SET sender_address = v.address, sender_name = v.name
      FROM unnest(${items.map((i) => i.id)}::text[], ${items.map((i) => i.address)}::text[],
                  ${items.map((i) => i.name)}::text[]) AS v(id, address, name)
      WHERE m.id = v.id AND m.sender_address IS NULL`.execute(this.db);
    return Number(result.numAffectedRows ?? 0);
  }

  /**
   * Phone contacts with a customer's message from an address that is neither their number nor, for a
   * Brazilian mobile, its 12-digit form without the ninth digit; each such (contact, address) once.
   * The caller reads each address as the platform does (`providerPhoneValue`) to confirm.
   */
  async contactsWithOtherSenders(): Promise<{ contact_id: string; value: string; address: string }[]> {
    const { rows } = await sql<{ contact_id: string; value: string; address: string }>`
      SELECT DISTINCT ct.id AS contact_id, ct.value, m.sender_address AS address
      FROM messages m JOIN chats c ON c.id = m.chat_id JOIN contacts ct ON ct.id = c.contact_id
      WHERE m.origin = 'contact' AND m.sender_address IS NOT NULL AND ct.type = 'phone'
        AND m.sender_address <> ct.value
        AND NOT (ct.value ~ '^55[0-9]{2}9[6-9][0-9]{7}$'
                 AND m.sender_address = substr(ct.value, 1, 4) || substr(ct.value, 6))
      ORDER BY ct.id`.execute(this.db);
    return rows;
  }

  /** The phone contact; in a transaction (`tx`), locked until commit. */
  async contact(id: string, tx?: Tx): Promise<RepairContact | undefined> {
    const q = (tx ?? this.db)
      .selectFrom('contacts')
      .select(['id', 'account_id', 'channel_id', 'value', 'name', 'provider_address', 'last_inbound_at'])
      .where('id', '=', id)
      .where('type', '=', 'phone');
    return (tx ? q.forUpdate() : q).executeTakeFirst();
  }

  /** The ids of the channel's phone contacts with these values, by value. */
  async contactIdsByValue(channelId: string, values: readonly string[]): Promise<Map<string, string>> {
    if (values.length === 0) return new Map();
    const rows = await this.db
      .selectFrom('contacts')
      .select(['id', 'value'])
      .where('channel_id', '=', channelId)
      .where('type', '=', 'phone')
      .where('value', 'in', values)
      .execute();
    return new Map(rows.map((r) => [r.value, r.id]));
  }

  /** The channel's phone contact with this value, locked until commit. */
  async lockContactByValue(tx: Tx, channelId: string, value: string): Promise<RepairContact | undefined> {
    return tx
      .selectFrom('contacts')
      .select(['id', 'account_id', 'channel_id', 'value', 'name', 'provider_address', 'last_inbound_at'])
      .where('channel_id', '=', channelId)
      .where('type', '=', 'phone')
      .where('value', '=', value)
      .forUpdate()
      .executeTakeFirst();
  }

  /** Every chat of the contact, oldest first; in a transaction (`tx`), locked until commit. */
  async chatsOf(contactId: string, tx?: Tx): Promise<RepairChat[]> {
    const q = (tx ?? this.db)
      .selectFrom('chats')
      .select(['id', 'status', 'team_id', 'user_id', 'queue', 'unread_messages', 'last_message', 'closed_at'])
      .where('contact_id', '=', contactId)
      .orderBy('created_at')
      .orderBy('id');
    return (tx ? q.forUpdate() : q).execute();
  }

  /** The messages of these chats in the order they were stored, without their content. */
  async messagesOf(chatIds: readonly string[], tx?: Tx): Promise<RepairMessage[]> {
    if (chatIds.length === 0) return [];
    return (tx ?? this.db)
      .selectFrom('messages')
      .select(['id', 'chat_id', 'origin', 'created_at', 'sender_address', 'sender_name'])
      .select(sql<string | null>`content->'system'->>'newAddress'`.as('new_address'))
      .where('chat_id', 'in', chatIds)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** What a chat list shows of these messages needs: origin, type, content, author. */
  async lastMessageParts(
    tx: Tx,
    ids: readonly string[],
  ): Promise<
    {
      id: string;
      origin: MessageOrigin;
      type: string;
      content: Record<string, unknown>;
      user_id: string | null;
      created_at: Date;
    }[]
  > {
    if (ids.length === 0) return [];
    return tx
      .selectFrom('messages')
      .select(['id', 'origin', 'type', 'content', 'user_id', 'created_at'])
      .where('id', 'in', ids)
      .execute();
  }

  /** Of these contacts, those with an open chat on their channel. */
  async withOpenChat(tx: Tx, contactIds: readonly string[]): Promise<Set<string>> {
    if (contactIds.length === 0) return new Set();
    const rows = await tx
      .selectFrom('chats')
      .select('contact_id')
      .where('contact_id', 'in', contactIds)
      .where('status', '=', 'open')
      .execute();
    return new Set(rows.map((r) => r.contact_id));
  }

  async insertContact(
    tx: Tx,
    row: Omit<RepairContact, 'last_inbound_at'> & { last_inbound_at: Date | null },
  ): Promise<void> {
    await tx
      .insertInto('contacts')
      .values({ ...row, type: 'phone' })
      .execute();
  }

  /** A contact's number, name, reply address and 24-hour window start, as the split leaves them. */
  async updateContact(
    tx: Tx,
    id: string,
    patch: {
      value?: string;
      name: string | null;
      provider_address: string | null;
      last_inbound_at: Date | null;
    },
  ): Promise<void> {
    await tx
      .updateTable('contacts')
      .set({ ...patch, updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
  }

  /** A customer's existing contact that the split brings earlier messages to. */
  async fillContact(
    tx: Tx,
    id: string,
    found: { name: string | null; provider_address: string; last_inbound_at: Date | null },
  ): Promise<void> {
    await sql`
      UPDATE contacts SET name = coalesce(name, ${found.name}),
        provider_address = coalesce(provider_address, ${found.provider_address}),
        last_inbound_at = greatest(last_inbound_at, ${found.last_inbound_at}::timestamptz),
        updated_at = now()
      WHERE id = ${id}`.execute(tx);
  }

  async deleteContact(tx: Tx, id: string): Promise<void> {
    await tx.deleteFrom('contacts').where('id', '=', id).execute();
  }

  async insertChats(tx: Tx, rows: readonly NewSplitChat[]): Promise<void> {
    if (rows.length === 0) return;
    await tx
      .insertInto('chats')
      .values(
        rows.map((r) => ({ ...r, last_message: r.last_message ? JSON.stringify(r.last_message) : null })),
      )
      .execute();
  }

  /** Changed chats, each one's version bumped so a change read before the split is refused. */
  async updateChats(tx: Tx, changes: readonly SplitChatChange[]): Promise<void> {
    if (changes.length === 0) return;
    await sql`
      UPDATE chats c SET contact_id = v.contact_id, status = v.status, unread_messages = v.unread_messages,
        last_message = v.last_message, closed_at = v.closed_at, version = c.version + 1, updated_at = now()
      FROM jsonb_to_recordset(${JSON.stringify(changes)}::jsonb) AS v(id text, contact_id text, status text,
        unread_messages int, last_message jsonb, closed_at timestamptz)
      WHERE c.id = v.id`.execute(tx);
  }

  /** Moves messages to other chats, and their Channel API requests' chat with them. */
  async moveMessages(tx: Tx, moves: readonly { id: string; chatId: string }[]): Promise<void> {
    if (moves.length === 0) return;
    const ids = moves.map((m) => m.id);
    await sql`
      UPDATE messages m SET chat_id = v.chat_id
      FROM unnest(${ids}::text[], ${moves.map((m) => m.chatId)}::text[]) AS v(id, chat_id)
      WHERE m.id = v.id`.execute(tx);
    await sql`
      UPDATE request_logs r SET chat_id = m.chat_id
      FROM messages m
      WHERE m.id = ANY(${ids}::text[]) AND m.request_id IS NOT NULL AND r.request_id = m.request_id`.execute(
      tx,
    );
  }

  async accountName(id: string): Promise<string | null> {
    const row = await this.db.selectFrom('accounts').select('name').where('id', '=', id).executeTakeFirst();
    return row?.name ?? null;
  }
}
