import type { Routed } from '../events/tail.js';
import { room } from '../events/rooms.js';
import type { ChatT } from '../modules/chats/index.js';
import type { GatewayRepo } from './gateway.repo.js';

/** What eviction needs of a Socket.IO server (through the adapter, or this node's sockets only). */
export interface SocketsInRooms {
  in(rooms: string[]): { fetchSockets(): Promise<{ data: unknown; leave(room: string): void }[]> };
}

/** Events after which some watchers of a chat may no longer see it. */
const VISIBILITY_CHANGES = new Set(['chat.transfer', 'chat.queue']);

/**
 * Room checks happen when a client subscribes; a transfer can take a chat away from someone already
 * watching or attending it. Once the transfer's own event is out (so they learn the chat left), the
 * connections of users who may no longer see the chat leave its `chat:`, `attendance:` and `presence:` rooms, on
 * every node (fetchSockets goes through the adapter), or on this node's while Redis is down. The tail
 * sends the next events only after this step.
 */
export function evictStaleWatchers(io: SocketsInRooms, repo: GatewayRepo) {
  return async (events: readonly Routed[]): Promise<void> => {
    for (const { envelope } of events) {
      if (!VISIBILITY_CHANGES.has(envelope.event)) continue;
      const chat = (envelope.data as { chat: ChatT }).chat;
      const rooms = [room.chat(chat.id), room.attendance(chat.id), room.presence(chat.id)];
      const sockets = await io.in(rooms).fetchSockets();
      if (sockets.length === 0) continue;
      const userOf = (data: unknown) =>
        (data as { user?: { userId: string } | null } | undefined)?.user?.userId ?? null;
      const userIds = [...new Set(sockets.map((s) => userOf(s.data)).filter((u) => u !== null))];
      const allowed = await repo.usersWhoSee(envelope.accountId, chat, userIds);
      for (const s of sockets) {
        const user = userOf(s.data);
        if (user === null || !allowed.has(user)) for (const r of rooms) s.leave(r);
      }
    }
  };
}
