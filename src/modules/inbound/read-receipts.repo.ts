import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { ChannelHealth, ProviderErrorInfo, ProviderName } from '../../db/types.js';

/** What sending one read receipt needs: the customer's message and its channel. */
export interface ReceiptToSend {
  message_id: string;
  channel_id: string;
  provider_message_id: string;
  provider: ProviderName;
  provider_config: Record<string, unknown>;
  health: ChannelHealth;
  sent_at: Date | null;
}

/** Read receipts (`read_receipts`): one row per customer message a receipt was queued for. */
export class ReadReceiptsRepo {
  constructor(private readonly db: Db) {}

  /**
   * The chat's latest customer message with a provider id, when its channel sends read receipts and
   * none was queued for it yet; its row is inserted, so a second read queues nothing.
   */
  async claimLatest(tx: Tx, chatId: string): Promise<{ message_id: string; channel_id: string } | undefined> {
    const latest = await tx
      .selectFrom('messages as m')
      .innerJoin('channels as ch', 'ch.id', 'm.channel_id')
      .select(['m.id', 'm.account_id', 'm.channel_id'])
      .where('m.chat_id', '=', chatId)
      .where('m.origin', '=', 'contact')
      .where('m.provider_message_id', 'is not', null)
      .where('ch.send_read_receipts', '=', true)
      .orderBy('m.created_at', 'desc')
      .orderBy('m.id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!latest) return undefined;
    return tx
      .insertInto('read_receipts')
      .values({ message_id: latest.id, account_id: latest.account_id, channel_id: latest.channel_id })
      .onConflict((oc) => oc.column('message_id').doNothing())
      .returning(['message_id', 'channel_id'])
      .executeTakeFirst();
  }

  async toSend(messageId: string): Promise<ReceiptToSend | undefined> {
    const row = await this.db
      .selectFrom('read_receipts as r')
      .innerJoin('messages as m', 'm.id', 'r.message_id')
      .innerJoin('channels as ch', 'ch.id', 'r.channel_id')
      .select([
        'r.message_id',
        'r.channel_id',
        'm.provider_message_id',
        'ch.provider',
        'ch.provider_config',
        'ch.health',
        'r.sent_at',
      ])
      .where('r.message_id', '=', messageId)
      .executeTakeFirst();
    if (!row || row.provider_message_id === null) return undefined;
    return { ...row, provider_message_id: row.provider_message_id };
  }

  async markSent(messageId: string): Promise<void> {
    await this.db
      .updateTable('read_receipts')
      .set({ sent_at: sql`now()`, error: null })
      .where('message_id', '=', messageId)
      .execute();
  }

  async recordError(messageId: string, error: ProviderErrorInfo): Promise<void> {
    await this.db
      .updateTable('read_receipts')
      .set({ error: JSON.stringify(error) })
      .where('message_id', '=', messageId)
      .execute();
  }
}
