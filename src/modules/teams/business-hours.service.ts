import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import type { AuditService } from '../audit/index.js';
import type { EventsService } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import { badRequest, notFound } from '../../http/errors.js';
import { en } from '../../http/language.js';
import {
  canonicalTimeZone,
  DEFAULT_TIME_ZONE,
  isOpenAt,
  nextChange,
  problemsOf,
  type BusinessHours,
} from './business-hours.js';
import type { BusinessHoursRepo, BusinessHoursRow } from './business-hours.repo.js';
import {
  TEAM_BUSINESS_HOURS,
  type BusinessHoursT,
  type UpdateBusinessHoursInput,
} from './business-hours.schemas.js';
import type { TeamsRepo } from './teams.repo.js';

/** The configuration the domain functions read, from a stored row (none: always open). */
const hoursOfRow = (row: BusinessHoursRow | undefined): BusinessHours | null =>
  row ? { timeZone: row.time_zone, weekly: row.weekly, holidays: row.holidays } : null;

/**
 * Business hours per team (docs/adr/0084-team-business-hours.md): any user of the account reads a
 * team's; admins (`teams:manage`) set them, and the change is an event to the account. Other modules
 * ask `hoursOf`/`isOpen` (menus, SLAs, assignment) and apply the pure functions of business-hours.ts.
 */
export class BusinessHoursService {
  constructor(
    private readonly repo: BusinessHoursRepo,
    private readonly teams: TeamsRepo,
    private readonly events: EventsService,
    private readonly audit: AuditService,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The team's hours, or null when it has none (always open); undefined when the account has no such team. */
  async hoursOf(accountId: string, teamId: string): Promise<BusinessHours | null | undefined> {
    const [team, row] = await Promise.all([
      this.teams.find(accountId, teamId),
      this.repo.find(accountId, teamId),
    ]);
    return team ? hoursOfRow(row) : undefined;
  }

  /** Whether the account's team attends at `at` (a team without hours, or unknown, counts as open). */
  async isOpen(accountId: string, teamId: string, at: Date = this.now()): Promise<boolean> {
    return isOpenAt(await this.hoursOf(accountId, teamId), at);
  }

  async get(actor: UserActor, teamId: string): Promise<BusinessHoursT> {
    const [team, row] = await Promise.all([
      this.teams.find(actor.accountId, teamId),
      this.repo.find(actor.accountId, teamId),
    ]);
    if (!team) throw notFound();
    return this.present(teamId, row);
  }

  async update(actor: UserActor, teamId: string, input: UpdateBusinessHoursInput): Promise<BusinessHoursT> {
    requirePermission(actor, 'teams:manage');
    const requested: BusinessHours = {
      timeZone: input.timeZone ?? DEFAULT_TIME_ZONE,
      weekly: input.weekly,
      holidays: [...(input.holidays ?? [])].sort(),
    };
    const problems = problemsOf(requested);
    if (problems.length > 0) throw badRequest(problems.map((p) => en(p.en, p.pt)));
    const timeZone = canonicalTimeZone(requested.timeZone) ?? requested.timeZone;
    return this.events.transaction(async (tx, events) => {
      if (!(await this.teams.find(actor.accountId, teamId, tx))) throw notFound();
      const row = await this.repo.upsert(tx, {
        team_id: teamId,
        account_id: actor.accountId,
        time_zone: timeZone,
        weekly: requested.weekly,
        holidays: requested.holidays,
        updated_by: actor.userId,
      });
      // Which days are open and how many holidays, not the hours themselves: a line to find, small.
      await this.audit.record(tx, actor, {
        action: 'team.set_hours',
        target: { type: 'team', id: teamId },
        details: {
          timeZone,
          // Days with open hours, 0 Sunday; null: no weekly hours (open every day).
          openDays: requested.weekly?.flatMap((spans, day) => (spans.length > 0 ? [day] : [])) ?? null,
          holidays: requested.holidays.length,
        },
      });
      const businessHours = this.present(teamId, row);
      events.add(actor.accountId, TEAM_BUSINESS_HOURS, { businessHours }, targets.account(actor.accountId));
      return businessHours;
    });
  }

  private present(teamId: string, row: BusinessHoursRow | undefined): BusinessHoursT {
    const hours = hoursOfRow(row);
    const now = this.now();
    return {
      teamId,
      configured: row !== undefined,
      timeZone: row?.time_zone ?? DEFAULT_TIME_ZONE,
      weekly: row?.weekly ?? null,
      holidays: row?.holidays ?? [],
      openNow: isOpenAt(hours, now),
      nextChange: nextChange(hours, now)?.toISOString() ?? null,
      updatedAt: row?.updated_at.toISOString() ?? null,
    };
  }
}
