import type { AuditService } from '../audit/index.js';
import type { Db } from '../../db/index.js';
import type { EventsService } from '../../events/events.service.js';
import type { UsersRepo } from '../users/index.js';
import { BusinessHoursRepo } from './business-hours.repo.js';
import { BusinessHoursService } from './business-hours.service.js';
import { TeamSlaRepo } from './sla.repo.js';
import { TeamSlaService } from './sla.service.js';
import type { TeamsRepo } from './teams.repo.js';
import { TeamsService } from './teams.service.js';

/** The teams module's services as the platform wires them: the teams, their business hours and SLA targets. */
export function createTeamsServices(
  db: Db,
  repo: TeamsRepo,
  users: UsersRepo,
  events: EventsService,
  audit: AuditService,
) {
  return {
    teams: new TeamsService(db, repo, users, events, audit),
    businessHours: new BusinessHoursService(new BusinessHoursRepo(db), repo, events, audit),
    teamSla: new TeamSlaService(new TeamSlaRepo(db), repo, events, audit),
  };
}
