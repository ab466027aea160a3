import type { Tx } from '../../db/index.js';
import type { EventBuffer, EventsService } from '../../events/events.service.js';
import { newId } from '../../lib/ids.js';
import { QUEUE_API, type ChatsRepo } from '../chats/index.js';
import { contactKey, type ContactsRepo } from '../contacts/index.js';
import type { MessageEvents } from '../messages/index.js';
import type { DeliveryChannel } from './deliver.js';
import type { RequestLogsRepo, RequestRow } from './request-logs.repo.js';

/**
 * The conversation a Channel API request is sent in, found or set up before the provider call: the
 * contact (created when new), and its open chat (opened in queue API for the channel's default team,
 * or closed and opened again when the request asks to close the conversation).
 */

/**
 * How long the conversation step waits for a chat another operation holds (a transfer, a capture)
 * before the attempt is given up and retried later.
 */
const CHAT_LOCK_TIMEOUT_MS = 5_000;

export type ChannelOf = DeliveryChannel & { account_id: string; default_team_id: string };

/** A request taken for an attempt, with its channel. */
export interface ConversationRequest {
  req: RequestRow;
  channel: ChannelOf;
}

export interface Conversation {
  chatId: string;
  contactId: string;
  /** The provider address: the `wa_id` the provider last returned, else the normalized value. */
  to: string;
}

export interface ConversationDeps {
  requests: RequestLogsRepo;
  contacts: ContactsRepo;
  chats: ChatsRepo;
  /** The event log: the conversation's events are written in its transaction. */
  events: EventsService;
  messageEvents: MessageEvents;
}

export class SendConversations {
  constructor(private readonly deps: ConversationDeps) {}

  /**
   * The conversations of requests about to be sent. The common case — a first attempt that does not
   * close the conversation, to a known contact (nothing to add to it) with an open chat — is one read
   * for all of them; the rest are written in one transaction. The chat's lock would be released at
   * that transaction's commit anyway, before the provider call, so reading without it changes nothing.
   */
  async of(work: ConversationRequest[]): Promise<Conversation[]> {
    const { chats, contacts, events } = this.deps;
    const plain = work.filter((w) => !w.req.chat_id && !w.req.close_conversation);
    const known = await contacts.openConversations(
      plain.map((w) => ({
        channelId: w.req.channel_id,
        type: w.req.contact.type,
        value: w.req.contact.value,
      })),
    );
    const found = new Map<ConversationRequest, Conversation>();
    for (const w of plain) {
      const c = known.get(contactKey(w.req.channel_id, w.req.contact.type, w.req.contact.value));
      // A name the contact lacks is written by the transaction below.
      if (c && (c.name !== null || w.req.contact.name === null))
        found.set(w, { chatId: c.chatId, contactId: c.contactId, to: c.providerAddress ?? c.value });
    }
    const rest = work.filter((w) => !found.has(w));
    const written =
      rest.length === 0
        ? []
        : await events.transaction(async (tx, out) => {
            await chats.setLockTimeout(tx, CHAT_LOCK_TIMEOUT_MS);
            return this.manyIn(tx, out, rest);
          });
    const byWork = new Map(rest.map((w, i) => [w, written[i]!]));
    return work.map((w) => found.get(w) ?? byWork.get(w)!);
  }

  /**
   * `oneIn` for many requests in a few statements: a first attempt that does not close the
   * conversation — the common case — needs only its contact and the contact's open chat, so those are
   * written for all of them at once; the others go one by one. Answers in `work`'s order.
   */
  private async manyIn(
    tx: Tx,
    out: EventBuffer,
    work: readonly ConversationRequest[],
  ): Promise<Conversation[]> {
    const { contacts, chats, requests, messageEvents } = this.deps;
    // In channel order: opening chats takes the chat counters' rows, and two transactions taking them
    // in the same order cannot deadlock.
    const simple = work
      .filter((w) => !w.req.chat_id && !w.req.close_conversation)
      .sort((a, b) =>
        a.req.channel_id < b.req.channel_id ? -1 : a.req.channel_id > b.req.channel_id ? 1 : 0,
      );
    const found = new Map(
      (
        await contacts.findOrCreateMany(
          tx,
          simple.map((w) => ({
            id: newId(),
            account_id: w.req.account_id,
            channel_id: w.req.channel_id,
            type: w.req.contact.type,
            value: w.req.contact.value,
            name: w.req.contact.name,
          })),
        )
      ).map((c) => [contactKey(c.channel_id, c.type, c.value), c]),
    );
    const contactOf = (w: ConversationRequest) => {
      const c = found.get(contactKey(w.req.channel_id, w.req.contact.type, w.req.contact.value));
      if (!c) throw new Error(`contact of request ${w.req.request_id} not stored`);
      return c;
    };
    const opened = await chats.openForMany(
      tx,
      simple.map((w) => ({
        id: newId(),
        account_id: w.req.account_id,
        channel_id: w.req.channel_id,
        contact_id: contactOf(w).id,
        team_id: w.channel.default_team_id,
        queue: QUEUE_API,
      })),
    );
    const byRequest = new Map<string, Conversation>();
    const created = new Map<string, string[]>();
    for (const w of simple) {
      const contact = contactOf(w);
      const chat = opened.get(contact.id);
      if (!chat) throw new Error(`chat of request ${w.req.request_id} not opened`);
      byRequest.set(w.req.request_id, {
        chatId: chat.id,
        contactId: contact.id,
        to: contact.provider_address ?? contact.value,
      });
      if (chat.created) created.set(w.req.account_id, [...(created.get(w.req.account_id) ?? []), chat.id]);
    }
    await requests.setChats(
      tx,
      simple.map((w) => ({ requestId: w.req.request_id, chatId: byRequest.get(w.req.request_id)!.chatId })),
    );
    for (const [accountId, chatIds] of created)
      await messageEvents.chatEvents(tx, out, 'chat.new', accountId, chatIds);
    for (const w of work)
      if (!byRequest.has(w.req.request_id))
        byRequest.set(w.req.request_id, await this.oneIn(tx, out, w.req, w.channel));
    return work.map((w) => byRequest.get(w.req.request_id)!);
  }

  /**
   * The first attempt closes the contact's open chat when asked to, and opens one in queue API for the
   * channel's default team when none is open; later attempts reuse the chat it recorded.
   */
  private async oneIn(tx: Tx, out: EventBuffer, req: RequestRow, channel: ChannelOf): Promise<Conversation> {
    const { contacts, chats, requests, messageEvents } = this.deps;
    const contact = await contacts.findOrCreate(tx, {
      id: newId(),
      account_id: req.account_id,
      channel_id: req.channel_id,
      type: req.contact.type,
      value: req.contact.value,
      name: req.contact.name,
    });
    const to = contact.provider_address ?? contact.value;
    if (req.chat_id) {
      const held = await chats.lock(tx, req.account_id, req.chat_id, { nowait: false });
      if (held?.status === 'open') return { chatId: held.id, contactId: contact.id, to };
    }
    const open = () =>
      chats.openFor(tx, {
        id: newId(),
        account_id: req.account_id,
        channel_id: req.channel_id,
        contact_id: contact.id,
        team_id: channel.default_team_id,
        queue: QUEUE_API,
      });
    let chat = await open();
    if (req.close_conversation && !req.chat_id && !chat.created) {
      await chats.update(tx, chat.id, { status: 'closed', closed_at: new Date() });
      await messageEvents.chat(tx, out, 'chat.close', req.account_id, chat.id);
      chat = await open();
    }
    if (chat.created) await messageEvents.chat(tx, out, 'chat.new', req.account_id, chat.id);
    await requests.setChat(tx, req.request_id, chat.id);
    return { chatId: chat.id, contactId: contact.id, to };
  }
}
