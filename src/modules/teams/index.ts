// The teams module's public entry: what other modules, the gateway and the wiring may use of it.
export { TeamsRepo } from './teams.repo.js';
export { teamsRoutes } from './teams.routes.js';
export { TeamSchema } from './teams.schemas.js';
export { TEAM_NOT_FOUND, TeamsService } from './teams.service.js';
