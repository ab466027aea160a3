import type { Db } from '../../db/index.js';
import type { EventsService } from '../../events/events.service.js';
import type { UsersRepo } from '../users/index.js';
import { BusinessHoursRepo } from './business-hours.repo.js';
import { BusinessHoursService } from './business-hours.service.js';
import type { TeamsRepo } from './teams.repo.js';
import { TeamsService } from './teams.service.js';

/** The teams module's services as the platform wires them: the teams and their business hours. */
export function createTeamsServices(db: Db, repo: TeamsRepo, users: UsersRepo, events: EventsService) {
  return {
    teams: new TeamsService(db, repo, users, events),
    businessHours: new BusinessHoursService(new BusinessHoursRepo(db), repo, events),
  };
}
