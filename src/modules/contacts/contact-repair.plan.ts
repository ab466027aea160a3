import type { LastMessage, MessageOrigin } from '../../db/types.js';
import { obj } from '../../lib/json-read.js';
import type { RepairChat, RepairContact, RepairMessage } from './contact-repair.repo.js';
import { providerPhoneValue } from './normalize.js';

/**
 * What a repair does to a contact, worked out from its messages alone (no I/O): whose each message
 * is, which customers besides the contact's own number wrote, and which chats keep their contact or
 * split. ContactRepairService carries the plan out.
 */

/** One customer found among a contact's messages who is not the contact's number. */
export interface RepairCustomer {
  /** Their number as the platform keys it (`providerPhoneValue` of the address). */
  value: string;
  /** The address their latest message came from: where replies to them go. */
  address: string;
  name: string | null;
  /** Their messages in the contact's chats, the replies they were sent included. */
  messages: number;
  /** Their contact: an existing one, or the one created for them (null in a dry run: to be created). */
  contactId: string | null;
  /**
   * Chats their messages leave (`from`) and the chat they go to (`into`): the same chat when it is
   * theirs whole and only changes contact, a new one (null in a dry run) when it is split.
   */
  chats: { from: string; into: string | null; messages: number }[];
}

export interface Sender {
  address: string;
  name: string | null;
}

/** A sender read from a stored webhook but not recorded (dry run): only other customers' are kept. */
export interface HeldSender extends Sender {
  contactId: string;
}

export interface Group {
  ids: string[];
  firstAt: Date;
  lastId: string;
  unread: number;
}

export interface ChatPlan {
  chat: RepairChat;
  /** Whose chat it stays: the contact's own number when it has a message there. */
  keeper: string;
  /** Messages by the customer they are from or were sent to. */
  groups: Map<string, Group>;
}

export interface Plan {
  contact: RepairContact;
  own: { messages: number; address: string | null; name: string | null; lastInboundAt: Date | null };
  customers: Map<string, Omit<RepairCustomer, 'contactId' | 'chats'> & { lastInboundAt: Date | null }>;
  chats: ChatPlan[];
}

/**
 * Whose each message of the contact is. A customer's message is its sender's (the address read as
 * the platform keys it; an unknown sender counts as the contact's own number); a customer who changed
 * numbers (`user_changed_number`) is one customer under their newest number. A message the platform
 * sent went where the contact's reply address pointed then: to whoever wrote last before it, across
 * the contact's chats (the contact's own number before anyone wrote). Null when every customer's
 * message is the contact's own number's.
 */
export function planOf(
  contact: RepairContact,
  chats: readonly RepairChat[],
  messages: readonly RepairMessage[],
  senderOf: (m: RepairMessage) => Sender | null,
): Plan | null {
  const own = contact.value;
  const plan: Plan = {
    contact,
    own: { messages: 0, address: null, name: null, lastInboundAt: null },
    customers: new Map(),
    chats: [],
  };
  // Number changes: each old number leads to the new one; a customer is the end of that chain.
  const changedTo = new Map<string, string>();
  for (const m of messages) {
    const sender = m.origin === 'contact' && m.new_address !== null ? senderOf(m) : null;
    const from = sender && providerPhoneValue(sender.address);
    const to = m.new_address === null ? null : providerPhoneValue(m.new_address);
    if (from && to && from !== to) changedTo.set(from, to);
  }
  const newest = (value: string): string => {
    const seen = new Set<string>();
    let at = value;
    while (changedTo.has(at) && !seen.has(at)) {
      seen.add(at);
      at = changedTo.get(at)!;
    }
    return at;
  };
  const ownNewest = newest(own);
  const whoIs = (address: string | null | undefined): string => {
    const value = address ? providerPhoneValue(address) : null;
    if (value === null) return own;
    const customer = newest(value);
    return customer === ownNewest ? own : customer;
  };

  const whose = new Map<string, string>();
  let current = own;
  for (const m of messages) {
    if (m.origin === 'contact') {
      const sender = senderOf(m);
      current = whoIs(sender?.address);
      // Replies go to the address of the latest message, or to the new number it announces.
      const address = m.new_address ?? sender?.address ?? null;
      if (current === own) {
        if (address) plan.own.address = address;
        if (sender?.name) plan.own.name = sender.name;
        plan.own.lastInboundAt = m.created_at;
      } else if (address) {
        const c = plan.customers.get(current) ?? {
          value: current,
          address,
          name: null,
          messages: 0,
          lastInboundAt: null,
        };
        c.address = address;
        if (sender?.name) c.name = sender.name;
        c.lastInboundAt = m.created_at;
        plan.customers.set(current, c);
      }
    }
    whose.set(m.id, current);
    if (current === own) plan.own.messages++;
    else plan.customers.get(current)!.messages++;
  }
  if (plan.customers.size === 0) return null;

  const byChat = new Map<string, RepairMessage[]>();
  for (const m of messages) byChat.set(m.chat_id, [...(byChat.get(m.chat_id) ?? []), m]);
  for (const chat of chats) {
    const list = byChat.get(chat.id) ?? [];
    const groups = new Map<string, Group>();
    for (const m of list) {
      const who = whose.get(m.id)!;
      const g = groups.get(who) ?? { ids: [], firstAt: m.created_at, lastId: m.id, unread: 0 };
      g.ids.push(m.id);
      g.lastId = m.id;
      groups.set(who, g);
    }
    // The unread count is of the chat's latest customer's messages: each part counts its own.
    let unread = chat.unread_messages;
    for (let i = list.length - 1; i >= 0 && unread > 0; i--) {
      const m = list[i]!;
      if (m.origin !== 'contact') continue;
      groups.get(whose.get(m.id)!)!.unread++;
      unread--;
    }
    const keeper = groups.size === 0 || groups.has(own) ? own : whose.get(list[0]!.id)!;
    plan.chats.push({ chat, keeper, groups });
  }
  return plan;
}

/** A group's last message as a chat list shows it: the chat's own when it is that one. */
export function lastOf(chat: RepairChat, group: Group, lasts: Map<string, LastMessage>): LastMessage | null {
  if (chat.last_message?.id === group.lastId) return chat.last_message;
  return lasts.get(group.lastId) ?? null;
}

/**
 * The one line a chat list shows for a stored message, rebuilt from its content: the text, a
 * template's name, a file's caption or its kind (`[image]`), as the paths that store messages
 * write it.
 */
export function summaryOf(origin: MessageOrigin, type: string, content: Record<string, unknown>): string {
  const text = typeof content.text === 'string' ? content.text : null;
  const media = obj(content.media);
  if (media && origin === 'contact') return text ? `[${type}] ${text}` : `[${type}]`;
  if (media) return typeof media.caption === 'string' ? media.caption : `[${type}]`;
  const template = obj(content.template);
  if (template && typeof template.name === 'string') return `[template] ${template.name}`;
  return text ?? `[${type}]`;
}
