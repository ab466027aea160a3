import type { Db } from '../../db/index.js';

/** Most messages one read receipt marks: far more than a customer has unread on screen. */
export const MAX_READ_PER_RECEIPT = 500;

export class SandboxRepo {
  constructor(private readonly db: Db) {}

  /**
   * Provider ids of the chat's outgoing messages (agents', the API's) the customer has not read yet,
   * oldest first; served by messages_chat_idx (chat_id, created_at, id).
   */
  async unreadOutgoing(accountId: string, chatId: string): Promise<string[]> {
    const rows = await this.db
      .selectFrom('messages')
      .select('provider_message_id')
      .where('account_id', '=', accountId)
      .where('chat_id', '=', chatId)
      .where('origin', '!=', 'contact')
      .where('status', 'in', ['sent', 'delivered'])
      .where('provider_message_id', 'is not', null)
      .orderBy('created_at')
      .orderBy('id')
      .limit(MAX_READ_PER_RECEIPT)
      .execute();
    return rows.map((r) => r.provider_message_id).filter((id): id is string => id !== null);
  }
}
