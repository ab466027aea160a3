// The reports' shapes, as the API's generated types give them (models.ts).
export type { MyReport, Report, ReportMetrics as Metrics } from '../models';
