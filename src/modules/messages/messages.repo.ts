import type { Tx } from '../../db/index.js';
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
}

export class MessagesRepo {
  async insert(tx: Tx, m: NewMessage): Promise<{ id: string; created_at: Date }> {
    return tx
      .insertInto('messages')
      .values({ ...m, content: JSON.stringify(m.content) })
      .returning(['id', 'created_at'])
      .executeTakeFirstOrThrow();
  }
}
