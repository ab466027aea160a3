// The reports module's public entry: reports over the rollups, and the consumer that keeps them.
export { reportsRoutes } from './reports.routes.js';
export { ReportsService } from './reports.service.js';
export { RollupService } from './rollup.service.js';
export { RollupWorker } from './rollup.worker.js';
export { createReportsServices } from './reports.wiring.js';
export { binOf, BINS_PER_DOUBLING } from './figures.js';
export { GRAINS } from './grains.js';
