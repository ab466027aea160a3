import type { UserActor } from '../access/actors.js';
import { sessionValid, toActor } from '../modules/auth/index.js';
import type { TeamsRepo } from '../modules/teams/index.js';
import type { UsersRepo } from '../modules/users/index.js';
import type { GatewayRepo } from './gateway.repo.js';

/**
 * Who may join which room. The user is read again for every subscription, so a cancelled user or a
 * changed role counts at once, not only at the next handshake. Who may see a chat: its attendant,
 * members of its team, and users with chats:read_all (as `ChatsService.canSee`, but for many chats in
 * one query).
 */
export class GatewayAccess {
  constructor(
    private readonly repo: GatewayRepo,
    private readonly users: UsersRepo,
    private readonly teams: TeamsRepo,
  ) {}

  /**
   * The connection's user as it is now; null when cancelled, deleted, moved out of the account or
   * when the session the connection was opened with has ended (logout, password or role change).
   */
  async actor(identity: {
    userId: string;
    accountId: string;
    tokenVersion: number;
  }): Promise<UserActor | null> {
    const row = await this.users.findForAuth({ id: identity.userId });
    if (!row || !sessionValid(row, { accountId: identity.accountId, version: identity.tokenVersion })) {
      return null;
    }
    return toActor(row);
  }

  /** Teams the user may follow: those they belong to, or every team of the account with read_all. */
  async teamsFor(actor: UserActor, ids: readonly string[]): Promise<Set<string>> {
    if (actor.permissions.has('chats:read_all')) return new Set(await this.repo.teams(actor.accountId, ids));
    const mine = new Set(await this.teams.teamsOf(actor.userId));
    return new Set(ids.filter((id) => mine.has(id)));
  }

  /**
   * Those of `rooms` (a connection's) the user may no longer be in: teams they left, chats they may
   * no longer see, another user's room. Rooms of no kind known here (the connection's own) are kept.
   */
  async lostRooms(actor: UserActor, rooms: Iterable<string>): Promise<Set<string>> {
    const teams = new Map<string, string>();
    const chats = new Map<string, string>();
    const lost = new Set<string>();
    for (const r of rooms) {
      const [kind, id = ''] = r.split(':', 2);
      if (kind === 'team') teams.set(r, id);
      else if (kind === 'chat' || kind === 'attendance' || kind === 'presence') chats.set(r, id);
      else if ((kind === 'user' || kind === 'uid') && id !== actor.userId) lost.add(r);
      else if (kind === 'account' && id !== actor.accountId) lost.add(r);
    }
    const allowedTeams = await this.teamsFor(actor, [...new Set(teams.values())]);
    const visible = await this.chatsFor(actor, [...new Set(chats.values())]);
    for (const [r, id] of teams) if (!allowedTeams.has(id)) lost.add(r);
    for (const [r, id] of chats) if (!visible.has(id)) lost.add(r);
    return lost;
  }

  /** Chats of `ids` the user may see. */
  async chatsFor(actor: UserActor, ids: readonly string[]): Promise<Set<string>> {
    const chats = await this.repo.chats(actor.accountId, ids);
    if (actor.permissions.has('chats:read_all')) return new Set(chats.map((c) => c.id));
    const mine = new Set(await this.teams.teamsOf(actor.userId));
    return new Set(chats.filter((c) => c.user_id === actor.userId || mine.has(c.team_id)).map((c) => c.id));
  }
}
