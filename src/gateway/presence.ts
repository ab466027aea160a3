import type { Logger } from 'pino';
import type { Server, Socket } from 'socket.io';
import { room } from '../events/rooms.js';
import { isObjectId } from '../lib/ids.js';
import type { UserActor } from '../access/actors.js';
import type { Identity } from './revoke.js';

/**
 * Who else is in a conversation. A connection that watches the presence of the chat it attends
 * (`user_start_attendance`, then `user_watch_presence`: an agent's screen of the conversation, not a
 * client that only follows its messages) views it, and gets the chat's viewers as `presence.update` on
 * every change; while its agent types (`user_typing`) it is typing, until it says it stopped or for
 * TYPING_TTL_MS after its last signal (a closed laptop stops typing by itself). The state lives
 * in the connections themselves (their rooms and `data`), read through the adapter with fetchSockets,
 * so it is the same on every node and a node that dies takes its viewers with it. These packets are
 * the gateway's own: not in the event log, not sent to webhooks.
 */
export const PRESENCE_UPDATE = 'presence.update';

/** How long a typing signal lasts; the console renews it every few seconds while its agent types. */
export const TYPING_TTL_MS = 8_000;

export interface PresenceData {
  user: Identity | null;
  /** The chat its agent is typing in, and until when (ms since the epoch). */
  typing?: { chatId: string; until: number } | null;
}

export interface Viewer {
  userId: string;
  typing: boolean;
}

export interface PresenceUpdate {
  chatId: string;
  viewers: Viewer[];
}

type Events = Record<string, (...args: unknown[]) => void>;
type PresenceServer = Server<Events, Events, Events, PresenceData>;
type PresenceSocket = Socket<Events, Events, Events, PresenceData>;

/** What presence uses of the services: the customer hears of a reply being typed (WhatsApp). */
export interface PresenceServices {
  typingIndicator: { agentTyping(actor: UserActor, chatId: string): Promise<boolean> };
}

const watchedChats = (rooms: Iterable<string>) =>
  [...rooms].filter((r) => r.startsWith('presence:')).map((r) => r.slice('presence:'.length));

/** The chat's viewers now, one per user (typing when any of their connections is), on every node. */
export async function viewersOf(io: PresenceServer, chatId: string): Promise<Viewer[]> {
  const sockets = await io.in(room.presence(chatId)).fetchSockets();
  const now = Date.now();
  const byUser = new Map<string, Viewer>();
  for (const s of sockets) {
    const userId = s.data.user?.userId;
    if (!userId) continue;
    const typing = s.data.typing?.chatId === chatId && s.data.typing.until > now;
    const seen = byUser.get(userId);
    byUser.set(userId, { userId, typing: typing || (seen?.typing ?? false) });
  }
  return [...byUser.values()].sort((a, b) => (a.userId < b.userId ? -1 : 1));
}

/**
 * The presence of one connection: the subscriptions it adds (given the gateway's `on`, which answers
 * them one at a time) and the updates its changes cause.
 */
export function installPresence(
  io: PresenceServer,
  socket: PresenceSocket,
  on: (
    event: string,
    handler: (
      actor: UserActor,
      arg: unknown,
    ) => Promise<Record<string, unknown> | 'not_found' | 'invalid_argument'>,
  ) => void,
  services: PresenceServices,
  logger: Logger,
): {
  /** After the connection left presence rooms (or its conversation): tells those chats' watchers. */
  changed(chatIds: Iterable<string>): void;
} {
  // A recovered session comes back with its data, not its timer.
  socket.data.typing = null;
  let typingTimer: NodeJS.Timeout | null = null;

  const publish = (chatIds: Iterable<string>) => {
    for (const chatId of new Set(chatIds)) {
      viewersOf(io, chatId).then(
        (viewers) => {
          const update: PresenceUpdate = { chatId, viewers };
          io.to(room.presence(chatId)).emit(PRESENCE_UPDATE, update);
        },
        // A node that does not answer in time: the next change tells again.
        (err: unknown) => logger.debug({ err, chatId }, 'presence not published'),
      );
    }
  };

  const stopTyping = (): string | null => {
    const was = socket.data.typing?.chatId ?? null;
    socket.data.typing = null;
    if (typingTimer) clearTimeout(typingTimer);
    typingTimer = null;
    return was;
  };

  const leavePresence = async (keep: string | null) => {
    const left: string[] = [];
    for (const r of [...socket.rooms])
      if (r.startsWith('presence:') && r !== keep) {
        await socket.leave(r);
        left.push(r.slice('presence:'.length));
      }
    return left;
  };

  on('user_watch_presence', async (_actor, chatId) => {
    if (chatId === null) {
      changed(await leavePresence(null));
      return { chatId: null };
    }
    if (typeof chatId !== 'string') return 'invalid_argument';
    // Only the conversation it attends, whose access was checked when it joined.
    if (!socket.rooms.has(room.attendance(chatId))) return 'not_found';
    const target = room.presence(chatId);
    const left = await leavePresence(target);
    const joined = !socket.rooms.has(target);
    await socket.join(target);
    changed(joined ? [...left, chatId] : left);
    return { chatId, viewers: await viewersOf(io, chatId) };
  });

  on('user_typing', async (actor, arg) => {
    const a = typeof arg === 'object' && arg !== null ? (arg as Record<string, unknown>) : null;
    const chatId = a?.chatId;
    if (!a || typeof chatId !== 'string' || !isObjectId(chatId) || typeof a.typing !== 'boolean') {
      return 'invalid_argument';
    }
    if (a.note !== undefined && typeof a.note !== 'boolean') return 'invalid_argument';
    if (!socket.rooms.has(room.attendance(chatId))) return 'not_found';
    if (!a.typing) {
      if (stopTyping() === chatId) publish([chatId]);
      return { chatId, typing: false };
    }
    const before = socket.data.typing?.chatId ?? null;
    socket.data.typing = { chatId, until: Date.now() + TYPING_TTL_MS };
    if (typingTimer) clearTimeout(typingTimer);
    typingTimer = setTimeout(() => {
      if (stopTyping() === chatId) publish([chatId]);
    }, TYPING_TTL_MS);
    typingTimer.unref();
    // A renewal changes nothing others see.
    if (before !== chatId) publish(before ? [before, chatId] : [chatId]);
    // A private note is not a reply: the customer is not told. Answered once decided, so a client
    // (and a test) knows the indicator's claim is settled.
    if (a.note !== true) {
      await services.typingIndicator
        .agentTyping(actor, chatId)
        .catch((err: unknown) => logger.warn({ err, chatId }, 'typing indicator not queued'));
    }
    return { chatId, typing: true };
  });

  let watched: string[] = [];
  socket.on('disconnecting', () => {
    watched = watchedChats(socket.rooms);
    stopTyping();
  });
  // Rooms are left by now (on this node, where the adapter keeps them): the others see it.
  socket.on('disconnect', () => publish(watched));

  /** After the connection left or joined presence rooms (or its conversation): tells their watchers. */
  function changed(chatIds: Iterable<string>) {
    const typing = socket.data.typing?.chatId;
    if (typing && !socket.rooms.has(room.attendance(typing))) stopTyping();
    publish(chatIds);
  }
  return { changed };
}
