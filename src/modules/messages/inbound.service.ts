import { sql } from 'kysely';
import { inTransaction, type Db } from '../../db/index.js';
import type { LastMessage } from '../../db/types.js';
import { badRequest, notFound } from '../../http/errors.js';
import type { UserActor } from '../auth/actors.js';
import type { ChannelsRepo } from '../channels/channels.repo.js';
import { newId } from '../../lib/ids.js';
import type { ChatsRepo } from '../chats/chats.repo.js';
import type { ContactsRepo } from '../contacts/contacts.repo.js';
import { normalizeContact } from '../contacts/normalize.js';
import type { MessagesRepo } from './messages.repo.js';

export interface InboundChannel {
  id: string;
  account_id: string;
  default_team_id: string;
  queue: string;
}

export interface InboundText {
  from: string;
  name?: string | null;
  text: string;
  providerMessageId?: string | null;
}

/**
 * A customer's message: finds or creates the contact, appends to the open conversation (counting it
 * unread) or opens one in the channel's queue for its default team.
 */
export class InboundService {
  constructor(
    private readonly db: Db,
    private readonly chats: ChatsRepo,
    private readonly contacts: ContactsRepo,
    private readonly messages: MessagesRepo,
    private readonly channels: ChannelsRepo,
  ) {}

  /** A tester playing the customer on a sandbox channel of their account. */
  async receiveSandbox(actor: UserActor, channelId: string, input: InboundText) {
    const channel = await this.channels.find(actor.accountId, channelId);
    if (!channel) throw notFound();
    if (channel.provider !== 'sandbox') throw badRequest('O canal não é um canal sandbox');
    return this.receiveText(channel, input);
  }

  async receiveText(
    channel: InboundChannel,
    input: InboundText,
  ): Promise<{ chatId: string; messageId: string; chatCreated: boolean }> {
    const normalized = normalizeContact('phone', input.from);
    if (!normalized.ok) throw badRequest([normalized.message.replace('contact.value', 'from')]);
    return inTransaction(this.db, async (tx) => {
      const contact = await this.contacts.upsert(tx, {
        id: newId(),
        account_id: channel.account_id,
        channel_id: channel.id,
        type: 'phone',
        value: normalized.value,
        name: input.name?.trim() || null,
        provider_address: normalized.value,
      });
      const chat = await this.chats.openFor(tx, {
        id: newId(),
        account_id: channel.account_id,
        channel_id: channel.id,
        contact_id: contact.id,
        team_id: channel.default_team_id,
        queue: channel.queue,
      });
      const id = newId();
      const stored = await this.messages.insert(tx, {
        id,
        account_id: channel.account_id,
        chat_id: chat.id,
        channel_id: channel.id,
        origin: 'contact',
        type: 'text',
        content: { text: input.text },
        status: 'received',
        provider_message_id: input.providerMessageId ?? null,
      });
      const last: LastMessage = {
        id,
        origin: 'contact',
        type: 'text',
        content: input.text,
        createdAt: stored.created_at.toISOString(),
      };
      await tx
        .updateTable('chats')
        .set({
          last_message: JSON.stringify(last),
          unread_messages: sql`unread_messages + 1`,
          version: sql`version + 1`,
          updated_at: sql`now()`,
        })
        .where('id', '=', chat.id)
        .execute();
      return { chatId: chat.id, messageId: id, chatCreated: chat.created };
    });
  }
}
