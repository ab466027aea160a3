import type { Tx } from '../../db/index.js';
import type { EventBuffer } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import type { ChatsRepo } from '../chats/chats.repo.js';
import { toChat } from '../chats/chats.service.js';
import type { AgentMessagesRepo } from './agent-messages.repo.js';
import { toMessage } from './agent-messages.service.js';

/**
 * The events of stored messages and of the chats they change, read inside the change's transaction so
 * they show what commits. Shared by every path that stores or settles a message (send pipeline,
 * agents' replies, provider statuses), so each records its events in a line.
 */
export class MessageEvents {
  constructor(
    private readonly chats: ChatsRepo,
    private readonly messages: AgentMessagesRepo,
  ) {}

  /** `message.upsert` (stored) or `message.update` (status changed) of a message, as it is now. */
  async message(
    tx: Tx,
    events: EventBuffer,
    event: 'message.upsert' | 'message.update',
    messageId: string,
  ): Promise<void> {
    const row = await this.messages.find(tx, messageId);
    if (!row) return;
    const chat = await this.chats.find(row.account_id, row.chat_id, tx);
    if (!chat) return;
    events.add(
      row.account_id,
      event,
      { chatId: row.chat_id, message: toMessage(row) },
      targets.message(toChat(chat)),
    );
  }

  /** `chat.new`, `chat.update` or `chat.close` of a chat, as it is now. */
  async chat(
    tx: Tx,
    events: EventBuffer,
    event: 'chat.new' | 'chat.update' | 'chat.close',
    accountId: string,
    chatId: string,
  ): Promise<void> {
    const row = await this.chats.find(accountId, chatId, tx);
    if (!row) return;
    const chat = toChat(row);
    const target =
      event === 'chat.new'
        ? targets.chatNew(chat)
        : event === 'chat.close'
          ? targets.chatClose(chat)
          : targets.chatUpdate(chat);
    events.add(accountId, event, { chat }, target);
  }
}
