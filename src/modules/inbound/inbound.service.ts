import type { Db } from '../../db/index.js';
import {
  CHAT_NEW,
  CHAT_QUEUE,
  CHAT_UPDATE,
  type ChatSlaService,
  type ChatSnoozeService,
  type ChatsRepo,
  toChat,
} from '../chats/index.js';
import { MESSAGE_UPSERT, type MessagesRepo } from '../messages/index.js';
import type { EventsService } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import type { LastMessage } from '../../db/types.js';
import { badRequest, notFound } from '../../http/errors.js';
import type { UserActor } from '../../access/actors.js';
import type { ChannelsRepo } from '../channels/index.js';
import { newId } from '../../lib/ids.js';
import { type ContactsRepo, normalizeContact, type PhoneDefaultCountry } from '../contacts/index.js';
import type { InboundActions, InboundLinks } from './inbound-actions.js';
import { pt } from '../../http/language.js';
import type { MediaDownloads } from '../media/index.js';
import type { BotHoldService } from '../bots/index.js';
import type { FlowsService } from '../flows/index.js';

const NOT_SANDBOX = pt('O canal não é um canal sandbox', 'The channel is not a sandbox channel');

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
}

/** A customer's message in the platform's terms, whatever provider brought it. */
export interface InboundMessage {
  contact: {
    /**
     * `phone` (default), or `user_id` for a customer the provider names only by a business-scoped
     * user id (no phone number).
     */
    type?: 'phone' | 'user_id';
    /**
     * Canonical contact value (`providerPhoneValue` of a provider's address, `normalizeContact` of a
     * typed number, or the user id as given): the key that finds the contact.
     */
    value: string;
    name?: string | null;
    /** Where replies go; WhatsApp's `wa_id`, which may lack the ninth digit the value has. */
    providerAddress: string;
  };
  type: string;
  content: Record<string, unknown>;
  /** What the chat list shows as the last message: the text, or a summary such as `[image]`. */
  summary: string;
  /** The provider's id; a message already stored under it on the channel is a redelivery. */
  providerMessageId?: string | null;
  /** When the customer sent it (kept as `content.sentAt`); the arrival time when not given. */
  sentAt?: Date;
  /** Other messages it names (reply, edit, revoke, reaction) and a number change. */
  links?: InboundLinks;
}

export type InboundResult =
  { duplicate: false; chatId: string; messageId: string; chatCreated: boolean } | { duplicate: true };

/** Unwinds the transaction of a redelivered message, so it changes nothing at all. */
class Redelivery extends Error {}

/**
 * A customer's message: finds or creates the contact, appends to the open conversation (counting it
 * unread) or opens one in the channel's queue for its default team. The sandbox route and provider
 * webhooks both come through `receive`.
 */
export class InboundService {
  constructor(
    private readonly db: Db,
    private readonly chats: ChatsRepo,
    private readonly contacts: ContactsRepo,
    private readonly messages: MessagesRepo,
    private readonly channels: ChannelsRepo,
    private readonly events: EventsService,
    private readonly actions: InboundActions,
    /** A snoozed chat the customer writes in comes back (its event and notification). */
    private readonly snoozes: Pick<ChatSnoozeService, 'customerWrote'>,
    /** The SLA clocks a conversation's first customer message starts. */
    private readonly slas: Pick<ChatSlaService, 'started'>,
    /** How the sandbox reads a customer's number typed without its country code (as the Channel API). */
    private readonly phoneDefaultCountry: PhoneDefaultCountry,
    /**
     * A channel's bot takes the new conversation; a bot's conversation waits for its answer
     * (modules/bots). A bot comes first: the channel's flow stays out of a conversation a bot took.
     */
    private readonly bots: Pick<BotHoldService, 'customerMessage'>,
    /**
     * The channel's built-in flow, run in this transaction: where a new conversation opens, the
     * menu and its answers, and a rating answered after the close (modules/flows).
     */
    private readonly flows: Pick<
      FlowsService,
      'entryQueue' | 'onCustomerMessage' | 'pendingRating' | 'rated'
    >,
    /** Queues the download of a customer's file with its message. */
    private readonly mediaDownloads?: MediaDownloads,
  ) {}

  /** A tester playing the customer on a sandbox channel of their account. */
  async receiveSandbox(actor: UserActor, channelId: string, input: InboundText) {
    const channel = await this.channels.find(actor.accountId, channelId);
    if (!channel) throw notFound();
    if (channel.provider !== 'sandbox') throw badRequest(NOT_SANDBOX);
    const normalized = normalizeContact('phone', input.from, this.phoneDefaultCountry);
    if (!normalized.ok) throw badRequest([normalized.message.replace('contact.value', 'from')]);
    const result = await this.receive(channel, {
      contact: { value: normalized.value, name: input.name, providerAddress: normalized.value },
      type: 'text',
      content: { text: input.text },
      summary: input.text,
    });
    // Sandbox messages carry no provider id, so they are never redeliveries.
    if (result.duplicate) throw new Error('unreachable: a sandbox message has no provider id');
    return result;
  }

  async receive(channel: InboundChannel, input: InboundMessage): Promise<InboundResult> {
    const providerMessageId = input.providerMessageId ?? null;
    try {
      return await this.events.transaction(async (tx, events) => {
        // Checked first so that a redelivery does not reopen a conversation closed since.
        if (
          providerMessageId &&
          (await this.messages.existsByProviderId(tx, channel.id, providerMessageId))
        ) {
          throw new Redelivery();
        }
        const contact = await this.contacts.upsert(tx, {
          id: newId(),
          account_id: channel.account_id,
          channel_id: channel.id,
          type: input.contact.type ?? 'phone',
          value: input.contact.value,
          name: input.contact.name?.trim() || null,
          provider_address: input.contact.providerAddress,
        });
        // An answer to the rating asked when the customer's last conversation closed is kept in that
        // conversation: it opens no new one.
        const rating = await this.flows.pendingRating(tx, channel.id, contact.id, input.content);
        // Creates the chat (locked until commit) or locks the open one: the "being processed" hold. A
        // channel whose flow is on opens new conversations in `Automação`, held by the flow.
        const chat = rating
          ? { id: rating.wait.chat_id, created: false }
          : await this.chats.openFor(tx, {
              id: newId(),
              account_id: channel.account_id,
              channel_id: channel.id,
              contact_id: contact.id,
              team_id: channel.default_team_id,
              queue: (await this.flows.entryQueue(tx, channel.id)) ?? channel.queue,
            });
        const id = newId();
        const sentAt = (input.sentAt ?? new Date()).toISOString();
        const content = await this.actions.resolve(
          tx,
          channel.id,
          input.sentAt ? { ...input.content, sentAt } : input.content,
          input.links,
        );
        // A concurrent delivery of the same message may have got past the check above; the unique
        // index decides, and the loser's transaction (chat opened included) is rolled back.
        const stored = await this.messages.insertUnlessDuplicate(tx, {
          id,
          account_id: channel.account_id,
          chat_id: chat.id,
          channel_id: channel.id,
          origin: 'contact',
          type: input.type,
          content,
          status: 'received',
          provider_message_id: providerMessageId,
          // Who wrote it, as the provider named them then: a contact can be checked against its
          // messages' senders (`atende doctor`).
          sender_address: input.contact.providerAddress,
          sender_name: input.contact.name?.trim() || null,
        });
        if (!stored) throw new Redelivery();
        // Edits, revokes and reactions reach the message they name; a number change, the contact.
        const storedAt = {
          channelId: channel.id,
          contactId: contact.id,
          messageId: id,
          providerMessageId,
          sentAt,
        };
        await this.actions.apply(tx, events, storedAt, input.links);
        const routed = chat.created
          ? null
          : await this.chats.routeApiReply(tx, chat.id, {
              queue: channel.queue,
              teamId: channel.default_team_id,
            });
        await this.mediaDownloads?.queue(tx, id, content);
        // Automation's first entry point: a bot holds the new conversation (or owes an answer in its
        // own); else the channel's flow, below, once the customer's message has its events.
        const botTook = await this.bots.customerMessage(tx, channel.id, chat);
        const last: LastMessage = {
          id,
          origin: 'contact',
          type: input.type,
          content: input.summary,
          createdAt: stored.created_at.toISOString(),
        };
        const { wasSnoozed, slaStart } = await this.chats.recordInbound(tx, chat.id, last);
        // The conversation's first customer message, on a team with a target: its due instants.
        if (slaStart) await this.slas.started(tx, chat.id, slaStart);
        const row = await this.chats.find(channel.account_id, chat.id, tx);
        if (row) {
          const c = toChat(row);
          const at = stored.created_at.toISOString();
          const message = {
            id,
            chatId: chat.id,
            origin: 'contact',
            type: input.type,
            content,
            status: 'received',
            providerMessageId,
            error: null,
            requestId: null,
            userId: null,
            bySupervisor: false,
            automation: null,
            botId: null,
            createdAt: at,
            updatedAt: at,
          };
          const account = channel.account_id;
          // A new conversation reaches its team's queue; an existing one updates its list item.
          if (chat.created) events.add(account, CHAT_NEW, { chat: c }, targets.chatNew(c));
          // A reply that brought an API conversation to the team's queue arrives there like a new one.
          if (routed) {
            events.add(
              account,
              CHAT_QUEUE,
              { chat: c, from: routed.fromQueue, to: c.queue },
              targets.chatQueue(c, routed.fromTeamId),
            );
          }
          events.add(account, MESSAGE_UPSERT, { chatId: chat.id, message }, targets.message(c));
          if (!chat.created) events.add(account, CHAT_UPDATE, { chat: c }, targets.chatUpdate(c));
          if (wasSnoozed) await this.snoozes.customerWrote(tx, events, account, c);
          // The flow answers after the customer's message: greeting and menu, routing, or the rating.
          if (rating) await this.flows.rated(tx, events, rating);
          else if (!botTook)
            await this.flows.onCustomerMessage(tx, events, {
              chatId: chat.id,
              chatCreated: chat.created,
              channelId: channel.id,
              content,
            });
        }
        return { duplicate: false as const, chatId: chat.id, messageId: id, chatCreated: chat.created };
      });
    } catch (err) {
      if (err instanceof Redelivery) return { duplicate: true };
      throw err;
    }
  }
}
