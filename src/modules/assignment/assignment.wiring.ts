import type { Logger } from 'pino';
import type { Config } from '../../config.js';
import type { Db } from '../../db/index.js';
import type { AuditService } from '../audit/index.js';
import type { Doorbell } from '../../db/doorbell.js';
import type { EventsService } from '../../events/events.service.js';
import type { ChatsRepo } from '../chats/index.js';
import type { NotificationsService } from '../notifications/index.js';
import type { TeamsRepo } from '../teams/index.js';
import { AssignmentRepo } from './assignment.repo.js';
import { AssignmentService, AvailabilityService, TeamAssignmentService } from './assignment.service.js';
import { AssignmentWorker, AvailabilitySweeper } from './assignment.worker.js';
import { GatewayConnections } from './connections.js';

/**
 * Availability and automatic assignment as the platform wires them
 * (docs/adr/0085-availability-and-auto-assignment.md): the services, the worker role's loops (started
 * in src/workers.ts) and the gateway's record of its connections (started with the gateway).
 */
export function createAssignmentServices(
  db: Db,
  repos: { chats: ChatsRepo; teams: TeamsRepo },
  parts: {
    events: EventsService;
    notifications: NotificationsService;
    doorbell: Doorbell;
    audit: AuditService;
  },
  config: Pick<Config, 'assignment'>,
  logger: Logger,
) {
  const deps = { ...repos, ...parts, config, logger };
  const repo = new AssignmentRepo(db);
  const assignment = new AssignmentService(repo, deps.chats, deps.events, deps.notifications);
  const graceMs = deps.config.assignment.availabilityGraceMs;
  const availability = new AvailabilityService(repo, assignment, deps.events, graceMs, deps.logger);
  return {
    teamAssignment: new TeamAssignmentService(repo, deps.teams, deps.events, deps.audit),
    assignment,
    availability,
    // Woken by every committed change (the event log's doorbell), with a poll as backstop.
    assignmentWorker: (databaseUrl: string) =>
      new AssignmentWorker(
        assignment,
        deps.doorbell,
        databaseUrl,
        deps.config.assignment.pollMs,
        deps.logger,
      ),
    // Users whose last gateway connection has been gone for the grace become offline.
    availabilitySweeper: new AvailabilitySweeper(availability, Math.min(10_000, graceMs / 3), deps.logger),
    // This node's gateway connections per user, renewed every third of the grace.
    gatewayConnections: new GatewayConnections(repo, availability, graceMs / 3, deps.logger),
  };
}
