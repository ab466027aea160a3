import type { Logger } from 'pino';
import { CHAT_SPLIT, type ChatsRepo, toChat } from '../chats/index.js';
import type { LastMessage } from '../../db/types.js';
import type { Tx } from '../../db/index.js';
import type { EventBuffer, EventsService } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import { errorText } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { ProviderRegistry } from '../../providers/registry.js';
import type { ChannelsRepo } from '../channels/index.js';
import type { MessageEvents } from '../messages/index.js';
import type { NotificationsService } from '../notifications/index.js';
import type { ContactRepairRepo, NewSplitChat, SplitChatChange } from './contact-repair.repo.js';
import {
  lastOf,
  planOf,
  summaryOf,
  type ChatPlan,
  type HeldSender,
  type Plan,
  type RepairCustomer,
} from './contact-repair.plan.js';
import { providerPhoneValue } from './normalize.js';
import { StoredSenders } from './contact-repair.senders.js';

/** A contact whose messages came from more than one customer, and what the repair does to it. */
export interface RepairFinding {
  accountId: string;
  accountName: string | null;
  channelId: string;
  channelName: string;
  /** The contact as found. */
  contact: { id: string; value: string; name: string | null };
  /**
   * `split`: the other customers' messages move to contacts and chats of their own; `renumber`: every
   * message is one other customer's and nobody has their number yet, so the contact takes it.
   */
  action: 'split' | 'renumber';
  /** Messages that stay with the contact's own number. */
  ownMessages: number;
  customers: RepairCustomer[];
}

export interface RepairReport {
  dryRun: boolean;
  /** Customers' messages stored without their sender (before migration 024) when the check began. */
  withoutSender: number;
  /** Of those, the ones whose sender was read from the stored webhooks and recorded (0 in a dry run). */
  sendersRecorded: number;
  findings: RepairFinding[];
  /** Contacts that could not be checked or repaired this time (a re-run tries them again). */
  failures: { contactId: string; error: string }[];
}

/**
 * `atende doctor`: finds contacts whose customers' messages came from more than one customer — a
 * number that is not the contact's, nor its ninth-digit spelling (what reading every short number as
 * Brazilian once did) — reports them, and splits them. Re-runnable: a repaired contact is found no
 * more. See docs/whatsapp.md "Repairing merged contacts".
 */
export class ContactRepairService {
  private readonly senders: StoredSenders;

  constructor(
    private readonly repo: ContactRepairRepo,
    private readonly channels: ChannelsRepo,
    private readonly chats: ChatsRepo,
    private readonly providers: ProviderRegistry,
    private readonly events: EventsService,
    private readonly messageEvents: MessageEvents,
    private readonly notifications: NotificationsService,
    private readonly logger: Logger,
  ) {
    this.senders = new StoredSenders(repo, channels, providers, logger);
  }

  /** Checks every contact; with `dryRun`, only reports (nothing is written). */
  async run(opts: { dryRun: boolean }): Promise<RepairReport> {
    const held = new Map<string, HeldSender>();
    const { withoutSender, recorded } = await this.senders.read(opts.dryRun ? held : null);
    const findings: RepairFinding[] = [];
    const failures: RepairReport['failures'] = [];
    for (const contactId of await this.suspects(held)) {
      try {
        const finding = opts.dryRun ? await this.inspect(contactId, held) : await this.repair(contactId);
        if (finding) findings.push(finding);
      } catch (err) {
        // One contact's trouble (e.g. a lock held too long) does not stop the others'.
        this.logger.error({ err, contactId }, 'a contact could not be checked');
        failures.push({ contactId, error: errorText(err) });
      }
    }
    return { dryRun: opts.dryRun, withoutSender, sendersRecorded: recorded, findings, failures };
  }

  /** Contacts with a customer's message from another number, in id order. */
  private async suspects(held: Map<string, HeldSender>): Promise<string[]> {
    const ids = new Set<string>();
    for (const r of await this.repo.contactsWithOtherSenders())
      if (providerPhoneValue(r.address) !== r.value) ids.add(r.contact_id);
    for (const s of held.values()) ids.add(s.contactId);
    return [...ids].sort();
  }

  /** What the repair would do to the contact, read without writing (the dry run). */
  private async inspect(contactId: string, held: Map<string, HeldSender>): Promise<RepairFinding | null> {
    const contact = await this.repo.contact(contactId);
    if (!contact) return null;
    const chats = await this.repo.chatsOf(contact.id);
    const messages = await this.repo.messagesOf(chats.map((c) => c.id));
    const plan = planOf(contact, chats, messages, (m) =>
      m.sender_address === null
        ? (held.get(m.id) ?? null)
        : { address: m.sender_address, name: m.sender_name },
    );
    if (!plan) return null;
    const existing = await this.repo.contactIdsByValue(contact.channel_id, [...plan.customers.keys()]);
    const [only, ...more] = plan.customers.keys();
    if (plan.own.messages === 0 && only !== undefined && more.length === 0 && existing.size === 0)
      return this.finding(plan, 'renumber', new Map([[only, contact.id]]), new Map());
    return this.finding(plan, 'split', existing, new Map());
  }

  /** Splits (or renumbers) the contact in one transaction, with its events and the admins' notice. */
  private async repair(contactId: string): Promise<RepairFinding | null> {
    return this.events.transaction(async (tx, events) => {
      const contact = await this.repo.contact(contactId, tx);
      if (!contact) return null;
      const chats = await this.repo.chatsOf(contact.id, tx);
      const messages = await this.repo.messagesOf(
        chats.map((c) => c.id),
        tx,
      );
      const plan = planOf(contact, chats, messages, (m) =>
        m.sender_address === null ? null : { address: m.sender_address, name: m.sender_name },
      );
      if (!plan) return null;
      const finding = (await this.renumber(tx, events, plan)) ?? (await this.split(tx, events, plan));
      await this.notifications.notifyPermission(
        tx,
        events,
        contact.account_id,
        'channels:manage',
        'contact.split',
        {
          channelId: finding.channelId,
          channelName: finding.channelName,
          contact: finding.contact,
          customers: finding.customers.map((c) => ({
            contactId: c.contactId,
            name: c.name,
            value: c.value,
            messages: c.messages,
            chatIds: [...new Set(c.chats.map((x) => x.into))],
          })),
        },
      );
      return finding;
    });
  }

  /**
   * Every message is one other customer's, and nobody has their number: the contact is that
   * customer's, under its right number, name and address. Null when it does not apply.
   */
  private async renumber(tx: Tx, events: EventBuffer, plan: Plan): Promise<RepairFinding | null> {
    const [customer, ...more] = plan.customers.values();
    if (plan.own.messages > 0 || !customer || more.length > 0) return null;
    if (await this.repo.lockContactByValue(tx, plan.contact.channel_id, customer.value)) return null;
    await this.repo.updateContact(tx, plan.contact.id, {
      value: customer.value,
      name: customer.name ?? plan.contact.name,
      provider_address: customer.address,
      last_inbound_at: customer.lastInboundAt,
    });
    await this.messageEvents.chatEvents(
      tx,
      events,
      'chat.update',
      plan.contact.account_id,
      plan.chats.map((c) => c.chat.id),
    );
    return this.finding(plan, 'renumber', new Map([[customer.value, plan.contact.id]]), new Map());
  }

  /**
   * Each other customer gets their contact (existing or new) and their messages: a chat that is all
   * theirs changes contact, their part of a shared chat moves to a new chat of theirs (open when the
   * shared one was and they have no other open chat). The contact keeps its own number's messages,
   * and its name and address become its own customer's again.
   */
  private async split(tx: Tx, events: EventBuffer, plan: Plan): Promise<RepairFinding> {
    const { contact } = plan;
    const own = contact.value;
    const contactOf = new Map<string, string>([[own, contact.id]]);
    for (const c of plan.customers.values()) {
      const existing = await this.repo.lockContactByValue(tx, contact.channel_id, c.value);
      const found = { name: c.name, provider_address: c.address, last_inbound_at: c.lastInboundAt };
      if (existing) {
        await this.repo.fillContact(tx, existing.id, found);
        contactOf.set(c.value, existing.id);
      } else {
        const id = newId();
        await this.repo.insertContact(tx, {
          id,
          account_id: contact.account_id,
          channel_id: contact.channel_id,
          value: c.value,
          ...found,
        });
        contactOf.set(c.value, id);
      }
    }
    const customerContacts = [...contactOf.values()].filter((id) => id !== contact.id);
    const open = await this.repo.withOpenChat(tx, customerContacts);
    const lasts = await this.lastMessages(tx, plan.chats);
    const now = new Date();
    const changes: SplitChatChange[] = [];
    const created: NewSplitChat[] = [];
    const moves: { id: string; chatId: string }[] = [];
    const splits: { from: string; into: string; messageIds: string[] }[] = [];
    const into = new Map<string, Map<string, string>>();
    const opened: string[] = [];
    const closed: string[] = [];
    const updated: string[] = [];
    for (const { chat, keeper, groups } of plan.chats) {
      const others = [...groups].filter(([who]) => who !== keeper);
      if (keeper === own && others.length === 0) continue;
      const keeperContact = contactOf.get(keeper)!;
      let status = chat.status;
      if (status === 'open' && open.has(keeperContact)) status = 'closed';
      else if (status === 'open') open.add(keeperContact);
      const kept = groups.get(keeper);
      changes.push({
        id: chat.id,
        contact_id: keeperContact,
        status,
        unread_messages: kept?.unread ?? 0,
        last_message: kept ? lastOf(chat, kept, lasts) : null,
        closed_at: status === chat.status ? chat.closed_at : now,
      });
      (status !== chat.status ? closed : updated).push(chat.id);
      for (const [who, group] of others) {
        const target = contactOf.get(who)!;
        const isOpen = chat.status === 'open' && !open.has(target);
        if (isOpen) open.add(target);
        const id = newId();
        created.push({
          id,
          account_id: contact.account_id,
          channel_id: contact.channel_id,
          contact_id: target,
          team_id: chat.team_id,
          user_id: chat.user_id,
          status: isOpen ? 'open' : 'closed',
          queue: chat.queue,
          unread_messages: group.unread,
          last_message: lastOf(chat, group, lasts),
          created_at: group.firstAt,
          closed_at: isOpen ? null : (chat.closed_at ?? now),
        });
        for (const m of group.ids) moves.push({ id: m, chatId: id });
        splits.push({ from: chat.id, into: id, messageIds: group.ids });
        note(into, who, chat.id, id);
        if (isOpen) opened.push(id);
      }
    }
    await this.repo.updateChats(tx, changes);
    await this.repo.insertChats(tx, created);
    await this.repo.moveMessages(tx, moves);

    const keepsChats = plan.chats.some((c) => c.keeper === own);
    if (!keepsChats) await this.repo.deleteContact(tx, contact.id);
    else {
      const names = new Set([...plan.customers.values()].map((c) => c.name));
      const address = contact.provider_address;
      await this.repo.updateContact(tx, contact.id, {
        name: plan.own.name ?? (names.has(contact.name) ? null : contact.name),
        provider_address:
          plan.own.address ?? (address !== null && providerPhoneValue(address) === own ? address : null),
        last_inbound_at: plan.own.lastInboundAt,
      });
    }

    const account = contact.account_id;
    await this.messageEvents.chatEvents(tx, events, 'chat.update', account, updated);
    await this.messageEvents.chatEvents(tx, events, 'chat.close', account, closed);
    await this.messageEvents.chatEvents(tx, events, 'chat.new', account, opened);
    const chatIds = [...new Set(splits.flatMap((s) => [s.from, s.into]))];
    const after = new Map((await this.chats.findMany(account, chatIds, tx)).map((c) => [c.id, toChat(c)]));
    for (const s of splits) {
      const from = after.get(s.from);
      const to = after.get(s.into);
      if (from && to)
        events.add(
          account,
          CHAT_SPLIT,
          { chat: from, into: to, messageIds: s.messageIds },
          targets.chatSplit(from, to),
        );
    }
    return this.finding(plan, 'split', contactOf, into);
  }

  /** The list items of messages that become a chat's last without having been one: read once. */
  private async lastMessages(tx: Tx, chats: readonly ChatPlan[]): Promise<Map<string, LastMessage>> {
    const ids = chats.flatMap(({ chat, groups }) =>
      [...groups.values()].flatMap((g) => (chat.last_message?.id === g.lastId ? [] : [g.lastId])),
    );
    const rows = await this.repo.lastMessageParts(tx, ids);
    return new Map(
      rows.map((r) => [
        r.id,
        {
          id: r.id,
          origin: r.origin,
          type: r.type,
          content: summaryOf(r.origin, r.type, r.content),
          createdAt: r.created_at.toISOString(),
          ...(r.origin === 'user' && r.user_id ? { userId: r.user_id } : {}),
        },
      ]),
    );
  }

  private async finding(
    plan: Plan,
    action: RepairFinding['action'],
    contactOf: Map<string, string>,
    into: Map<string, Map<string, string>>,
  ): Promise<RepairFinding> {
    const channel = await this.channels.findById(plan.contact.channel_id);
    return {
      accountId: plan.contact.account_id,
      accountName: await this.repo.accountName(plan.contact.account_id),
      channelId: plan.contact.channel_id,
      channelName: channel?.name ?? '',
      contact: { id: plan.contact.id, value: plan.contact.value, name: plan.contact.name },
      action,
      ownMessages: plan.own.messages,
      customers: [...plan.customers.values()].map((c) => ({
        value: c.value,
        address: c.address,
        name: c.name,
        messages: c.messages,
        contactId: contactOf.get(c.value) ?? null,
        chats: plan.chats.flatMap(({ chat, keeper, groups }) => {
          const group = groups.get(c.value);
          if (!group) return [];
          const to =
            action === 'renumber' || keeper === c.value ? chat.id : (into.get(c.value)?.get(chat.id) ?? null);
          return [{ from: chat.id, into: to, messages: group.ids.length }];
        }),
      })),
    };
  }
}

function note(into: Map<string, Map<string, string>>, who: string, from: string, to: string): void {
  const chats = into.get(who) ?? new Map<string, string>();
  chats.set(from, to);
  into.set(who, chats);
}
