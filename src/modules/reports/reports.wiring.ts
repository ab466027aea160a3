import type { Logger } from 'pino';
import type { Db } from '../../db/index.js';
import type { Doorbell } from '../../db/doorbell.js';
import type { EventHorizon } from '../../events/horizon.js';
import type { AuditService } from '../audit/index.js';
import type { TeamsRepo } from '../teams/index.js';
import { ReportsRepo } from './reports.repo.js';
import { ReportsService } from './reports.service.js';
import { RollupRepo } from './rollup.repo.js';
import { RollupService } from './rollup.service.js';
import { RollupWorker } from './rollup.worker.js';

/**
 * Reports as the platform wires them (docs/adr/0089-reports-and-rollups.md): the service that reads
 * the rollups, and the worker role's consumer of the event log that keeps them (started in
 * src/workers.ts).
 */
export function createReportsServices(
  db: Db,
  repos: { teams: TeamsRepo },
  parts: { horizon: EventHorizon; doorbell: Doorbell; audit: AuditService },
  config: { pollMs: number; batch: number },
  logger: Logger,
) {
  const rollups = new RollupService(new RollupRepo(db), parts.horizon, config.batch, logger);
  return {
    reports: new ReportsService(new ReportsRepo(db), repos.teams, parts.audit),
    rollups,
    rollupWorker: (databaseUrl: string) =>
      new RollupWorker(rollups, parts.doorbell, databaseUrl, config.pollMs, logger),
  };
}
