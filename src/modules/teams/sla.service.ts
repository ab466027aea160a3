import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import type { AuditService } from '../audit/index.js';
import type { EventsService } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import { notFound } from '../../http/errors.js';
import type { BusinessHours } from './business-hours.js';
import { addBusinessMinutes } from './business-time.js';
import type { TeamSlaRepo, TeamSlaRow } from './sla.repo.js';
import { TEAM_SLA, type TeamSlaT, type UpdateTeamSlaInput } from './sla.schemas.js';
import type { TeamsRepo } from './teams.repo.js';

/** A team's targets as the clocks read them, in business minutes (null: none). */
export interface SlaTargets {
  firstResponseMinutes: number | null;
  resolutionMinutes: number | null;
}

/**
 * A conversation's due instants for a clock started at `start`: each target added in the team's open
 * time (no hours: always open). Null for a target the team does not have, or one never reached
 * because the team is closed every day.
 */
export function slaDue(
  sla: SlaTargets,
  hours: BusinessHours | null,
  start: Date,
): { firstResponseDueAt: Date | null; resolutionDueAt: Date | null } {
  const due = (minutes: number | null) =>
    minutes === null ? null : addBusinessMinutes(hours, start, minutes);
  return { firstResponseDueAt: due(sla.firstResponseMinutes), resolutionDueAt: due(sla.resolutionMinutes) };
}

/**
 * SLA targets per team (docs/adr/0088-slas.md): any user of the account reads a team's; `teams:manage`
 * sets them, and the change is an event to the account. The clocks of conversations are the chats
 * module's (ChatSlaService); they read the targets with the customer's first message.
 */
export class TeamSlaService {
  constructor(
    private readonly repo: TeamSlaRepo,
    private readonly teams: TeamsRepo,
    private readonly events: EventsService,
    private readonly audit: AuditService,
  ) {}

  async get(actor: UserActor, teamId: string): Promise<TeamSlaT> {
    const [team, row] = await Promise.all([
      this.teams.find(actor.accountId, teamId),
      this.repo.find(actor.accountId, teamId),
    ]);
    if (!team) throw notFound();
    return present(teamId, row);
  }

  async update(actor: UserActor, teamId: string, input: UpdateTeamSlaInput): Promise<TeamSlaT> {
    requirePermission(actor, 'teams:manage');
    return this.events.transaction(async (tx, events) => {
      if (!(await this.teams.find(actor.accountId, teamId, tx))) throw notFound();
      const row = await this.repo.upsert(tx, {
        team_id: teamId,
        account_id: actor.accountId,
        first_response_minutes: input.firstResponseMinutes ?? null,
        resolution_minutes: input.resolutionMinutes ?? null,
        updated_by: actor.userId,
      });
      await this.audit.record(tx, actor, {
        action: 'team.set_sla',
        target: { type: 'team', id: teamId },
        details: {
          firstResponseMinutes: row.first_response_minutes,
          resolutionMinutes: row.resolution_minutes,
        },
      });
      const sla = present(teamId, row);
      events.add(actor.accountId, TEAM_SLA, { sla }, targets.account(actor.accountId));
      return sla;
    });
  }
}

function present(teamId: string, row: TeamSlaRow | undefined): TeamSlaT {
  return {
    teamId,
    firstResponseMinutes: row?.first_response_minutes ?? null,
    resolutionMinutes: row?.resolution_minutes ?? null,
    updatedAt: row?.updated_at.toISOString() ?? null,
  };
}
