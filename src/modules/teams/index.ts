// The teams module's public entry: what other modules, the gateway and the wiring may use of it.
export { TeamsRepo } from './teams.repo.js';
export { teamsRoutes } from './teams.routes.js';
export { TeamSchema } from './teams.schemas.js';
export { TEAM_NOT_FOUND, TeamsService } from './teams.service.js';
export {
  DEFAULT_TIME_ZONE,
  canonicalTimeZone,
  isCalendarDate,
  isOpenAt,
  nextChange,
  problemsOf,
  type BusinessHours,
  type Interval,
} from './business-hours.js';
export { BusinessHoursRepo } from './business-hours.repo.js';
export { businessHoursRoutes } from './business-hours.routes.js';
export {
  BusinessHoursSchema,
  HoursSchema,
  TEAM_BUSINESS_HOURS,
  type BusinessHoursT,
  type HoursInput,
} from './business-hours.schemas.js';
export { BusinessHoursService } from './business-hours.service.js';
export { addBusinessMinutes, businessMsBetween } from './business-time.js';
export { TeamSlaRepo } from './sla.repo.js';
export { teamSlaRoutes } from './sla.routes.js';
export { TEAM_SLA, TeamSlaSchema, type TeamSlaT } from './sla.schemas.js';
export { slaDue, TeamSlaService, type SlaTargets } from './sla.service.js';
export { createTeamsServices } from './teams.wiring.js';
