// The assignment module's public entry: agents' availability and automatic assignment per team.
export { planAssignments, type Candidate } from './assignment.js';
export { AssignmentRepo } from './assignment.repo.js';
export { assignmentRoutes } from './assignment.routes.js';
export {
  AvailabilitySchema,
  MyAvailabilitySchema,
  TEAM_ASSIGNMENT,
  TeamAssignmentSchema,
  USER_AVAILABILITY,
  type AvailabilityT,
} from './assignment.schemas.js';
export {
  AGENT_OFFLINE_REASON,
  AUTO_ASSIGNED_REASON,
  AssignmentService,
  AvailabilityService,
  TeamAssignmentService,
} from './assignment.service.js';
export { AssignmentWorker, AvailabilitySweeper } from './assignment.worker.js';
export { GatewayConnections } from './connections.js';
export { createAssignmentServices } from './assignment.wiring.js';
