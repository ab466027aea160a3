// The privacy module's public entry: data subjects' rights (export, erasure), for the wiring.
export { ErasureRepo } from './erasure.repo.js';
export { contactErasureWorker, ErasureService } from './erasure.service.js';
export { DataExportService } from './export.service.js';
export { PrivacyRepo } from './privacy.repo.js';
export { privacyRoutes } from './privacy.routes.js';
export { RetentionService } from './retention.js';
