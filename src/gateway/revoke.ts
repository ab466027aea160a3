import { ACCESS_CHANGE, type AccessChangeData } from '../events/catalogue.js';
import { room } from '../events/rooms.js';
import type { Routed } from '../events/tail.js';
import type { UserActor } from '../access/actors.js';
import type { GatewayAccess } from './access.js';

/** A connection as `fetchSockets` gives it, on this node or another. */
export interface FetchedSocket {
  data: unknown;
  rooms: Set<string>;
  leave(room: string): unknown;
  disconnect(close?: boolean): unknown;
}

/** What withdrawing access needs of a Socket.IO server (through the adapter, or this node only). */
export interface SocketsOfUser {
  in(rooms: string | string[]): {
    fetchSockets(): Promise<FetchedSocket[]>;
    disconnectSockets(close?: boolean): void;
  };
}

/** The identity a connection carries (src/gateway/gateway.ts), plain data so it survives recovery. */
export interface Identity {
  userId: string;
  accountId: string;
  /** The token's session version: a logout, new password, cancel or new role ends the session. */
  tokenVersion: number;
  /** When the handshake's token expires (ms since the epoch): the connection ends then. */
  expiresAt: number;
}

export const identityOf = (data: unknown): Identity | null =>
  (data as { user?: Identity | null } | undefined)?.user ?? null;

/**
 * Rooms are checked when a client subscribes; a user cancelled, given another role or taken out of a
 * team keeps their connections. Once the change's ACCESS_CHANGE entry of the log is out, every
 * connection of those users (found through their `uid:` room, on every node, or on this node's while
 * Redis is down) is checked again: a user who may no longer sign in is disconnected, anyone else
 * leaves the team, chat and attendance rooms they may no longer see. The tail sends the events after
 * the entry only once this is done.
 */
export function revokeLostAccess(io: SocketsOfUser, access: GatewayAccess) {
  return async (events: readonly Routed[]): Promise<void> => {
    let failure: unknown = null;
    for (const { envelope } of events) {
      if ((envelope.event as string) !== ACCESS_CHANGE) continue;
      const { userIds } = envelope.data as unknown as AccessChangeData;
      for (const userId of userIds) {
        const owner = io.in(room.owner(userId));
        try {
          const sockets = await owner.fetchSockets();
          if (sockets.length === 0) continue;
          // Connections opened with different tokens may hold different session versions.
          const actors = new Map<number, Promise<UserActor | null>>();
          for (const s of sockets) {
            const identity = identityOf(s.data);
            const version = identity?.tokenVersion ?? -1;
            let actor = actors.get(version);
            if (!actor) {
              actor = identity ? access.actor(identity) : Promise.resolve(null);
              actors.set(version, actor);
            }
            const now = await actor;
            if (!now) {
              s.disconnect(true);
              continue;
            }
            const lost = await access.lostRooms(now, new Set(s.rooms));
            for (const r of s.rooms) if (lost.has(r)) s.leave(r);
          }
        } catch (err) {
          // A node that does not answer, the database away: access must not outlive the change, so
          // the user's connections end (a client connects again, and subscribes, afresh).
          owner.disconnectSockets(true);
          failure ??= err;
        }
      }
    }
    // Reported (logged by the tail) once every user has been dealt with.
    if (failure !== null) throw failure;
  };
}

/**
 * Whether a session may be recovered (checked before Socket.IO restores it, since the packets missed
 * meanwhile are sent as soon as it is): the token it was opened with has not expired, its user may
 * still sign in, and may still be in every room it had. Otherwise the client connects afresh (its
 * handshake checked again) and resyncs through `GET /api/events`, which shows only what it may see.
 */
export async function mayRecover(
  access: GatewayAccess,
  session: { data: unknown; rooms: readonly string[] },
): Promise<boolean> {
  const identity = identityOf(session.data);
  if (identity === null) return session.rooms.every((r) => !r.includes(':'));
  if (identity.expiresAt <= Date.now()) return false;
  const actor = await access.actor(identity);
  if (!actor) return false;
  return (await access.lostRooms(actor, session.rooms)).size === 0;
}
