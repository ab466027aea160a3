import type { Logger } from 'pino';
import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import type { Tx } from '../../db/index.js';
import type { AuditService } from '../audit/index.js';
import type { UserAvailability } from '../../db/types.js';
import type { EventBuffer, EventsService } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import { badRequest, notFound } from '../../http/errors.js';
import { en } from '../../http/language.js';
import { CHAT_CAPTURE, CHAT_TRANSFER, type ChatsRepo, toChat } from '../chats/index.js';
import type { NotificationsService } from '../notifications/index.js';
import type { TeamsRepo } from '../teams/index.js';
import { maxOf, planAssignments } from './assignment.js';
import type { AssignmentRepo, TeamAssignmentRow } from './assignment.repo.js';
import {
  TEAM_ASSIGNMENT,
  USER_AVAILABILITY,
  type MyAvailabilityT,
  type TeamAssignmentT,
  type UpdateTeamAssignmentInput,
} from './assignment.schemas.js';

/** The reason code of a conversation given back to the queue because its agent went offline. */
export const AGENT_OFFLINE_REASON = 'agent_offline';
/** The reason code of the notification of a conversation automatic assignment gave. */
export const AUTO_ASSIGNED_REASON = 'auto_assignment';

/** Conversations one team gets per transaction at most; a full batch runs again at once. */
export const ASSIGN_BATCH = 250;

export const CAPACITY_NEEDS_MAX = en(
  'maxOpen is required for mode capacity',
  'maxOpen é obrigatório no modo capacity',
);
const overrideNotMember = (i: number) =>
  en(`overrides.${i}.userId is not a member of the team`, `overrides.${i}.userId não é membro da equipe`);
const overrideTwice = (i: number) =>
  en(`overrides.${i}.userId appears more than once`, `overrides.${i}.userId aparece mais de uma vez`);

const presentConfig = (teamId: string, row: TeamAssignmentRow | undefined): TeamAssignmentT => ({
  teamId,
  mode: row?.mode ?? 'off',
  maxOpen: row?.max_open ?? null,
  overrides: Object.entries(row?.overrides ?? {})
    .map(([userId, maxOpen]) => ({ userId, maxOpen }))
    .sort((a, b) => (a.userId < b.userId ? -1 : 1)),
  releaseOnOffline: row?.release_on_offline ?? true,
  updatedAt: row?.updated_at.toISOString() ?? null,
});

/**
 * A team's automatic assignment (docs/adr/0085-availability-and-auto-assignment.md): any user of the
 * account reads it; `teams:manage` sets it, and the change is an event to the account.
 */
export class TeamAssignmentService {
  constructor(
    private readonly repo: AssignmentRepo,
    private readonly teams: TeamsRepo,
    private readonly events: EventsService,
    private readonly audit: AuditService,
  ) {}

  async get(actor: UserActor, teamId: string): Promise<TeamAssignmentT> {
    const [team, row] = await Promise.all([
      this.teams.find(actor.accountId, teamId),
      this.repo.find(actor.accountId, teamId),
    ]);
    if (!team) throw notFound();
    return presentConfig(teamId, row);
  }

  async update(actor: UserActor, teamId: string, input: UpdateTeamAssignmentInput): Promise<TeamAssignmentT> {
    requirePermission(actor, 'teams:manage');
    const maxOpen = input.maxOpen ?? null;
    if (input.mode === 'capacity' && maxOpen === null) throw badRequest(CAPACITY_NEEDS_MAX);
    const overrides = input.overrides ?? [];
    return this.events.transaction(async (tx, events) => {
      if (!(await this.teams.find(actor.accountId, teamId, tx))) throw notFound();
      const members = await this.repo.members(
        teamId,
        overrides.map((o) => o.userId),
        tx,
      );
      const problems = [];
      const seen = new Set<string>();
      for (const [i, o] of overrides.entries()) {
        if (!members.has(o.userId)) problems.push(overrideNotMember(i));
        else if (seen.has(o.userId)) problems.push(overrideTwice(i));
        seen.add(o.userId);
      }
      if (problems.length > 0) throw badRequest(problems);
      const row = await this.repo.upsert(tx, {
        team_id: teamId,
        account_id: actor.accountId,
        mode: input.mode,
        max_open: maxOpen,
        overrides: Object.fromEntries(overrides.map((o) => [o.userId, o.maxOpen])),
        release_on_offline: input.releaseOnOffline ?? true,
        updated_by: actor.userId,
      });
      await this.audit.record(tx, actor, {
        action: 'team.set_assignment',
        target: { type: 'team', id: teamId },
        details: {
          mode: input.mode,
          maxOpen,
          releaseOnOffline: row.release_on_offline,
          overrides: overrides.length,
        },
      });
      const assignment = presentConfig(teamId, row);
      events.add(actor.accountId, TEAM_ASSIGNMENT, { assignment }, targets.account(actor.accountId));
      return assignment;
    });
  }
}

/**
 * Gives waiting conversations to online agents (the worker role's AssignmentWorker calls it on every
 * committed change and on its poll). Per account, under the account's assignment lock: the teams
 * that assign and have waiting chats, each team's online members with their open conversations, the
 * team's oldest waiting chats (row-locked, held ones skipped), the plan (assignment.ts), and the same
 * change as Capturar with its events, an automatic `chat.capture` and a notification to the agent.
 */
export class AssignmentService {
  constructor(
    private readonly repo: AssignmentRepo,
    private readonly chats: ChatsRepo,
    private readonly events: EventsService,
    private readonly notifications: NotificationsService,
  ) {}

  /** One round over the accounts with work; how many conversations it assigned, and whether a batch was full. */
  async assignWaiting(): Promise<{ assigned: number; more: boolean }> {
    let assigned = 0;
    let more = false;
    for (const accountId of await this.repo.accountsToAssign(100)) {
      const r = await this.assignAccount(accountId);
      assigned += r.assigned;
      more ||= r.more;
    }
    return { assigned, more };
  }

  /** The account's waiting conversations of every team that assigns, in one transaction. */
  async assignAccount(accountId: string): Promise<{ assigned: number; more: boolean }> {
    return this.events.transaction(async (tx, events) => {
      await this.repo.lockAccount(tx, accountId);
      let assigned = 0;
      let more = false;
      for (const team of await this.repo.teamsWaiting(tx, accountId)) {
        if (team.mode === 'off') continue;
        const r = await this.assignTeam(tx, events, team, team.mode);
        assigned += r.assigned;
        more ||= r.full;
      }
      return { assigned, more };
    });
  }

  private async assignTeam(
    tx: Tx,
    events: EventBuffer,
    team: TeamAssignmentRow,
    mode: 'round_robin' | 'capacity',
  ): Promise<{ assigned: number; full: boolean }> {
    const members = await this.repo.candidates(tx, team.account_id, team.team_id);
    const candidates = members.map((m) => ({
      userId: m.user_id,
      open: m.open,
      max: maxOf(team, m.user_id),
      lastAssignedAt: m.last_assigned_at?.getTime() ?? null,
    }));
    const room = candidates.some((c) => c.max === null)
      ? ASSIGN_BATCH
      : candidates.reduce((n, c) => n + Math.max(0, (c.max ?? 0) - c.open), 0);
    if (room === 0) return { assigned: 0, full: false };
    const waiting = await this.repo.waitingChats(tx, team.team_id, Math.min(room, ASSIGN_BATCH));
    const plan = planAssignments(mode, candidates, waiting);
    const changed = new Set(await this.repo.assign(tx, plan));
    const done = plan.filter((p) => changed.has(p.chatId));
    if (done.length === 0) return { assigned: 0, full: false };
    await this.repo.assigned(
      tx,
      team.team_id,
      done.map((p) => p.userId),
    );
    const rows = await this.chats.findMany(
      team.account_id,
      done.map((p) => p.chatId),
      tx,
    );
    const notes = [];
    for (const row of rows) {
      const c = toChat(row);
      events.add(team.account_id, CHAT_CAPTURE, { chat: c, assignment: { mode } }, targets.chatCapture(c));
      notes.push({
        accountId: team.account_id,
        userIds: [row.user_id ?? ''],
        data: {
          chatId: c.id,
          by: null,
          contact: { name: c.contact.name, value: c.contact.value },
          reasonCode: AUTO_ASSIGNED_REASON,
          reason: null,
        },
      });
    }
    await this.notifications.notifyEach(tx, events, 'chat.assigned', notes);
    return { assigned: done.length, full: waiting.length === ASSIGN_BATCH };
  }

  /**
   * The user went offline: their conversations that teams with `releaseOnOffline` give back, not yet
   * answered by them, go back to the team's `Espera` (a transfer to the team with the reason code
   * `agent_offline` and no `by`), where assignment finds them.
   */
  async releaseOf(tx: Tx, events: EventBuffer, accountId: string, userId: string): Promise<number> {
    const ids = await this.repo.unanswered(tx, accountId, userId);
    if (ids.length === 0) return 0;
    await this.repo.release(tx, ids);
    for (const row of await this.chats.findMany(accountId, ids, tx)) {
      const c = toChat(row);
      const from = { teamId: c.teamId, userId };
      events.add(
        accountId,
        CHAT_TRANSFER,
        {
          chat: c,
          from,
          to: { teamId: c.teamId, userId: null },
          reasonCode: AGENT_OFFLINE_REASON,
          reason: null,
        },
        targets.chatTransfer(c, from),
      );
    }
    return ids.length;
  }
}

/**
 * Agents' availability: set by the user (`setMyAvailability`), offline by the platform once their
 * last gateway connection has been gone for `graceMs` on every node (`sweep`, the worker role), and
 * back to what it was at their next connection (`connected`, the gateway).
 */
export class AvailabilityService {
  constructor(
    private readonly repo: AssignmentRepo,
    private readonly assignment: AssignmentService,
    private readonly events: EventsService,
    private readonly graceMs: number,
    private readonly logger: Logger,
  ) {}

  async get(actor: UserActor): Promise<MyAvailabilityT> {
    const row = await this.repo.availability(actor.accountId, actor.userId);
    if (!row) throw notFound();
    return { userId: actor.userId, availability: row.availability, since: row.availability_at.toISOString() };
  }

  async set(actor: UserActor, availability: UserAvailability): Promise<MyAvailabilityT> {
    return this.events.transaction(async (tx, events) => {
      const row = await this.repo.setAvailability(tx, actor.accountId, actor.userId, availability);
      if (!row) throw notFound();
      const since = row.availability_at.toISOString();
      if (row.before !== availability) {
        this.changed(events, actor.accountId, actor.userId, availability, since, false);
        if (availability === 'offline')
          await this.assignment.releaseOf(tx, events, actor.accountId, actor.userId);
      }
      return { userId: actor.userId, availability, since };
    });
  }

  /**
   * Sets offline the users whose connections have been gone for the grace period (at most `limit`),
   * giving back their unanswered conversations; how many.
   */
  async sweep(limit = 100): Promise<number> {
    return this.events.transaction(async (tx, events) => {
      const gone = await this.repo.sweepOffline(tx, this.graceMs, limit);
      for (const u of gone) {
        this.changed(events, u.account_id, u.id, 'offline', u.availability_at.toISOString(), true);
        await this.assignment.releaseOf(tx, events, u.account_id, u.id);
      }
      return gone.length;
    });
  }

  /** A user connected to the gateway: an availability the sweep took comes back. */
  async connected(userId: string): Promise<void> {
    await this.events.transaction(async (tx, events) => {
      const row = await this.repo.resume(tx, userId);
      if (row)
        this.changed(
          events,
          row.account_id,
          userId,
          row.availability,
          row.availability_at.toISOString(),
          true,
        );
    });
  }

  private changed(
    events: EventBuffer,
    accountId: string,
    userId: string,
    availability: UserAvailability,
    since: string,
    auto: boolean,
  ): void {
    events.add(
      accountId,
      USER_AVAILABILITY,
      { userId, availability, since, auto },
      targets.account(accountId),
    );
    this.logger.debug({ userId, availability, auto }, 'availability changed');
  }

  /** Connection rows nobody needs any more (a day past the grace). */
  async purge(): Promise<void> {
    await this.repo.purgeConnections(this.graceMs + 24 * 3600 * 1000);
  }
}
