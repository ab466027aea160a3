import { mediaOf, type Chat, type EventName, type Message } from '../models';

// Pure rules of the agent screens: which list a chat belongs to, list order, and how messages from
// REST pages and gateway events merge without going backwards.

export type ListName = 'waiting' | 'mine';

/** The queues of the agent's two lists, by the names the API stores and takes. */
export const QUEUE_WAITING = 'Espera';
export const QUEUE_ATTENDING = 'Em Atendimento';

/** The events that carry a chat after its change (`data.chat`). */
export const CHAT_EVENTS = [
  'chat.new',
  'chat.update',
  'chat.queue',
  'chat.capture',
  'chat.transfer',
  'chat.close',
  'chat.labels',
  'chat.reopen',
  'chat.snoozed',
  'chat.unsnoozed',
  'sla.breached',
] as const satisfies readonly EventName[];
export type ChatEvent = (typeof CHAT_EVENTS)[number];

/** The list a chat belongs in for this user, after any change; null = in neither (a snoozed one too). */
export function listOf(chat: Chat, me: string, myTeamIds: readonly string[]): ListName | null {
  if (chat.status !== 'open' || chat.snooze) return null;
  if (chat.queue === QUEUE_ATTENDING && chat.userId === me) return 'mine';
  if (chat.queue === QUEUE_WAITING && chat.userId === null && myTeamIds.includes(chat.teamId))
    return 'waiting';
  return null;
}

/** When the chat last moved: its last message, else its last change. */
export const activityOf = (c: Chat) => c.lastMessage?.createdAt ?? c.updatedAt;

/** Most recent activity first; ties by id so the order is stable. */
export function sortChats(chats: Chat[]): Chat[] {
  return [...chats].sort((a, b) => {
    const d = activityOf(b).localeCompare(activityOf(a));
    return d !== 0 ? d : b.id.localeCompare(a.id);
  });
}

/** The newer of two copies of a chat (events may overtake a REST answer, or come twice). */
export function newerChat(current: Chat | undefined, incoming: Chat): Chat {
  if (!current) return incoming;
  return incoming.updatedAt >= current.updatedAt ? incoming : current;
}

const RANK: Record<string, number> = { queued: 0, sent: 1, delivered: 2, read: 3 };

/**
 * The copy of a message to keep. Statuses only move forward (queued → sent → delivered → read);
 * `failed` replaces queued or sent, and only `read` comes after it — the server's own rule, applied
 * again here because a REST answer may arrive after a newer event.
 */
export function newerMessage(current: Message | undefined, incoming: Message): Message {
  if (!current) return incoming;
  if (current.status === incoming.status) return incoming.updatedAt > current.updatedAt ? incoming : current;
  if (current.status === 'failed') return incoming.status === 'read' ? incoming : current;
  if (incoming.status === 'failed') return (RANK[current.status] ?? 0) <= 1 ? incoming : current;
  return (RANK[incoming.status] ?? -1) >= (RANK[current.status] ?? -1) ? incoming : current;
}

/** Oldest first, as a conversation reads. */
export function sortMessages(messages: Iterable<Message>): Message[] {
  return [...messages].sort((a, b) => {
    const d = a.createdAt.localeCompare(b.createdAt);
    return d !== 0 ? d : a.id.localeCompare(b.id);
  });
}

/** `current` itself when nothing changes, so a reload of what is shown renders nothing. */
export function mergeMessages(current: Message[], incoming: Message[]): Message[] {
  const byId = new Map(current.map((m) => [m.id, m]));
  let changed = false;
  for (const m of incoming) {
    const before = byId.get(m.id);
    const kept = newerMessage(before, m);
    if (kept !== before) {
      byId.set(m.id, kept);
      changed = true;
    }
  }
  return changed ? sortMessages(byId.values()) : current;
}

/** A message's text for a bubble: its text, or its media caption. */
export function messageText(m: Message): string {
  if (typeof m.content.text === 'string') return m.content.text;
  const caption = mediaOf(m)?.caption;
  if (caption) return caption;
  return '';
}

/** Messages the customer did not write: agents', the API's, the system's. */
export const isOutgoing = (m: Message) => m.origin !== 'contact';

/** The queue every list leaves out unless it is asked for by name (as the server does). */
export const QUEUE_HIDDEN = 'Observação';

/** The supervisors' view of every open conversation: '' leaves a filter out. */
export interface AllOpenFilter {
  queue: string;
  teamId: string;
  channelId: string;
  q: string;
}

/** Accents and case dropped, as the server's `search_fold` compares names. */
export const foldSearch = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * The server's reading of a search: written like a phone number, its digits anywhere in the number;
 * otherwise text in the name (accents and case ignored) or the address. Null: no search.
 */
export function searchOf(q: string): { digits: string } | { text: string } | null {
  const term = q.trim();
  if (term === '') return null;
  if (/^[\d\s+().-]+$/.test(term) && /\d/.test(term)) return { digits: term.replace(/\D/g, '') };
  return { text: foldSearch(term) };
}

/** Whether a chat belongs in the all-open view with this filter (for chats events bring). */
export function matchesAllOpen(chat: Chat, f: AllOpenFilter): boolean {
  if (chat.status !== 'open' || chat.snooze) return false;
  if (f.queue ? chat.queue !== f.queue : chat.queue === QUEUE_HIDDEN) return false;
  if (f.teamId && chat.teamId !== f.teamId) return false;
  if (f.channelId && chat.channelId !== f.channelId) return false;
  const search = searchOf(f.q);
  if (!search) return true;
  if ('digits' in search) return chat.contact.value.includes(search.digits);
  return foldSearch(chat.contact.name).includes(search.text) || chat.contact.value.includes(search.text);
}
