import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { MessageOrigin, MessageStatus } from '../../db/types.js';

export interface NewMessage {
  id: string;
  account_id: string;
  chat_id: string;
  channel_id: string;
  origin: MessageOrigin;
  type: string;
  content: Record<string, unknown>;
  status: MessageStatus;
  provider_message_id?: string | null;
  request_id?: string | null;
  user_id?: string | null;
  /** Why the provider refused it, for a message stored as `failed`. */
  error?: { code: string; message: string; details?: string } | null;
}

/** A message as its row is written: content and error as JSON text. */
function toRow(m: NewMessage) {
  return { ...m, content: JSON.stringify(m.content), error: m.error ? JSON.stringify(m.error) : null };
}

export class MessagesRepo {
  async existsByProviderId(tx: Tx, channelId: string, providerMessageId: string): Promise<boolean> {
    const row = await tx
      .selectFrom('messages')
      .select('id')
      .where('channel_id', '=', channelId)
      .where('provider_message_id', '=', providerMessageId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** The messages of a channel with these provider ids (a customer's reply, reaction or edit names one). */
  async findByProviderIds(
    tx: Tx,
    channelId: string,
    providerMessageIds: readonly string[],
  ): Promise<{ id: string; provider_message_id: string }[]> {
    if (providerMessageIds.length === 0) return [];
    const rows = await tx
      .selectFrom('messages')
      .select(['id', 'provider_message_id'])
      .where('channel_id', '=', channelId)
      .where('provider_message_id', 'in', providerMessageIds)
      .execute();
    return rows.flatMap((r) =>
      r.provider_message_id ? [{ id: r.id, provider_message_id: r.provider_message_id }] : [],
    );
  }

  /**
   * A message of the channel by provider id, locked until commit so concurrent changes to it queue:
   * a customer's edit or reaction (InboundActions), a delivery status (MessageStatusService).
   */
  async lockByProviderId(
    tx: Tx,
    channelId: string,
    providerMessageId: string,
  ): Promise<
    | {
        id: string;
        origin: MessageOrigin;
        content: Record<string, unknown>;
        status: MessageStatus;
        request_id: string | null;
      }
    | undefined
  > {
    return tx
      .selectFrom('messages')
      .select(['id', 'origin', 'content', 'status', 'request_id'])
      .where('channel_id', '=', channelId)
      .where('provider_message_id', '=', providerMessageId)
      .forUpdate()
      .executeTakeFirst();
  }

  async setContent(tx: Tx, id: string, content: Record<string, unknown>): Promise<void> {
    await tx
      .updateTable('messages')
      .set({ content: JSON.stringify(content), updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
  }

  /** Inserts unless the channel already has a message with this provider id (then undefined). */
  async insertUnlessDuplicate(tx: Tx, m: NewMessage): Promise<{ id: string; created_at: Date } | undefined> {
    return tx
      .insertInto('messages')
      .values(toRow(m))
      .onConflict((oc) =>
        oc
          .columns(['channel_id', 'provider_message_id'])
          .where('provider_message_id', 'is not', null)
          .doNothing(),
      )
      .returning(['id', 'created_at'])
      .executeTakeFirst();
  }

  async insert(tx: Tx, m: NewMessage): Promise<{ id: string; created_at: Date }> {
    const [stored] = await this.insertMany(tx, [m]);
    if (!stored) throw new Error('the message was not stored');
    return stored;
  }

  async insertMany(tx: Tx, rows: readonly NewMessage[]): Promise<{ id: string; created_at: Date }[]> {
    if (rows.length === 0) return [];
    return tx.insertInto('messages').values(rows.map(toRow)).returning(['id', 'created_at']).execute();
  }

  /** `setStatus` for several messages. */
  async setStatuses(db: Db | Tx, ids: readonly string[], status: MessageStatus): Promise<void> {
    if (ids.length === 0) return;
    await db
      .updateTable('messages')
      .set({ status, updated_at: sql`now()` })
      .where('id', 'in', ids)
      .execute();
  }

  async setStatus(db: Db | Tx, id: string, status: MessageStatus): Promise<void> {
    await this.setStatuses(db, [id], status);
  }
}
