import type { Tx } from '../../db/index.js';
import { MESSAGE_UPDATE, MESSAGE_UPSERT } from './messages.schemas.js';
import { CHAT_CLOSE, CHAT_NEW, CHAT_UPDATE, type ChatT, type ChatsRepo, toChat } from '../chats/index.js';
import type { EventBuffer } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import type { MessagesRepo } from './messages.repo.js';
import { toMessage } from './messages.presenter.js';

/**
 * The events of stored messages and of the chats they change, read inside the change's transaction so
 * they show what commits. Shared by every path that stores or settles a message (send pipeline,
 * agents' replies, provider statuses), so each records its events in a line.
 */
export class MessageEvents {
  constructor(
    private readonly chats: ChatsRepo,
    private readonly messages: MessagesRepo,
  ) {}

  /** `message.upsert` (stored) or `message.update` (status changed) of a message, as it is now. */
  async message(
    tx: Tx,
    events: EventBuffer,
    event: 'message.upsert' | 'message.update',
    messageId: string,
  ): Promise<void> {
    await this.messageEvents(tx, events, event, [messageId]);
  }

  /** `message.upsert` or `message.update` of several messages, as they are now, in the order given. */
  async messageEvents(
    tx: Tx,
    events: EventBuffer,
    event: 'message.upsert' | 'message.update',
    messageIds: readonly string[],
  ): Promise<void> {
    if (messageIds.length === 0) return;
    const rows = new Map((await this.messages.findMany(tx, messageIds)).map((m) => [m.id, m]));
    const byAccount = new Map<string, Set<string>>();
    for (const m of rows.values())
      byAccount.set(m.account_id, (byAccount.get(m.account_id) ?? new Set()).add(m.chat_id));
    const chats = new Map<string, ChatT>();
    for (const [accountId, chatIds] of byAccount)
      for (const c of await this.chats.findMany(accountId, [...chatIds], tx)) chats.set(c.id, toChat(c));
    for (const id of messageIds) {
      const row = rows.get(id);
      const chat = row && chats.get(row.chat_id);
      if (row && chat)
        events.add(
          row.account_id,
          event === 'message.upsert' ? MESSAGE_UPSERT : MESSAGE_UPDATE,
          { chatId: row.chat_id, message: toMessage(row) },
          targets.message(chat),
        );
    }
  }

  /**
   * For each item, `message.upsert` of the message then `chat.update` of its chat, as they are now:
   * the events of newly stored messages, read in two statements for all of them.
   */
  async storedMessages(
    tx: Tx,
    events: EventBuffer,
    accountId: string,
    items: readonly { messageId: string; chatId: string }[],
  ): Promise<void> {
    if (items.length === 0) return;
    const [messages, chats] = await Promise.all([
      this.messages.findMany(
        tx,
        items.map((i) => i.messageId),
      ),
      this.chats.findMany(accountId, [...new Set(items.map((i) => i.chatId))], tx),
    ]);
    const messageById = new Map(messages.map((m) => [m.id, m]));
    const chatById = new Map(chats.map((c) => [c.id, toChat(c)]));
    for (const { messageId, chatId } of items) {
      const row = messageById.get(messageId);
      const chat = chatById.get(chatId);
      if (!row || !chat) continue;
      events.add(accountId, MESSAGE_UPSERT, { chatId, message: toMessage(row) }, targets.message(chat));
      events.add(accountId, CHAT_UPDATE, { chat }, targets.chatUpdate(chat));
    }
  }

  /**
   * Messages just stored in one chat: `message.upsert` of each in order, then one `chat.update` of the
   * chat as it is now (two statements).
   */
  async storedInChat(
    tx: Tx,
    events: EventBuffer,
    accountId: string,
    chatId: string,
    messageIds: readonly string[],
  ): Promise<void> {
    if (messageIds.length === 0) return;
    const rows = new Map((await this.messages.findMany(tx, messageIds)).map((m) => [m.id, m]));
    const [row] = await this.chats.findMany(accountId, [chatId], tx);
    if (!row) return;
    const chat = toChat(row);
    for (const id of messageIds) {
      const m = rows.get(id);
      if (m) events.add(accountId, MESSAGE_UPSERT, { chatId, message: toMessage(m) }, targets.message(chat));
    }
    events.add(accountId, CHAT_UPDATE, { chat }, targets.chatUpdate(chat));
  }

  /** `chat.new`, `chat.update` or `chat.close` of a chat, as it is now. */
  async chat(
    tx: Tx,
    events: EventBuffer,
    event: 'chat.new' | 'chat.update' | 'chat.close',
    accountId: string,
    chatId: string,
  ): Promise<void> {
    await this.chatEvents(tx, events, event, accountId, [chatId]);
  }

  /** `chat.new`, `chat.update` or `chat.close` of several chats of an account, as they are now, in order. */
  async chatEvents(
    tx: Tx,
    events: EventBuffer,
    event: 'chat.new' | 'chat.update' | 'chat.close',
    accountId: string,
    chatIds: readonly string[],
  ): Promise<void> {
    if (chatIds.length === 0) return;
    const byId = new Map((await this.chats.findMany(accountId, chatIds, tx)).map((c) => [c.id, toChat(c)]));
    for (const id of chatIds) {
      const chat = byId.get(id);
      if (!chat) continue;
      if (event === 'chat.new') events.add(accountId, CHAT_NEW, { chat }, targets.chatNew(chat));
      else if (event === 'chat.close') events.add(accountId, CHAT_CLOSE, { chat }, targets.chatClose(chat));
      else events.add(accountId, CHAT_UPDATE, { chat }, targets.chatUpdate(chat));
    }
  }
}
