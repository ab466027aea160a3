// The teams module's public entry: what other modules, the gateway and the wiring may use of it.
export { TeamsRepo } from './teams.repo.js';
export { teamsRoutes } from './teams.routes.js';
export { TeamSchema } from './teams.schemas.js';
export { TEAM_NOT_FOUND, TeamsService } from './teams.service.js';
export {
  DEFAULT_TIME_ZONE,
  isOpenAt,
  nextChange,
  type BusinessHours,
  type Interval,
} from './business-hours.js';
export { BusinessHoursRepo } from './business-hours.repo.js';
export { businessHoursRoutes } from './business-hours.routes.js';
export { BusinessHoursSchema, TEAM_BUSINESS_HOURS, type BusinessHoursT } from './business-hours.schemas.js';
export { BusinessHoursService } from './business-hours.service.js';
export { createTeamsServices } from './teams.wiring.js';
