import { pino } from 'pino';
import { Registry } from 'prom-client';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { createDb } from './db/index.js';
import type { App } from './http/app-type.js';
import { JobQueue } from './jobs/queue.js';
import { Metrics } from './metrics/metrics.js';
import { createServices } from './services.js';

/**
 * The HTTP app as the server builds it, with services wired to a database that is never contacted:
 * the connection pool and the job queue connect only when first used, and building the app or
 * answering `/docs/json` uses neither. So the OpenAPI document can be produced and checked with no
 * database and no network (`npm run openapi`, `npm run openapi:check`, the tests). Close it after use.
 */
export async function appWithoutDatabase(): Promise<{ app: App; close(): Promise<void> }> {
  const logger = pino({ level: 'silent' });
  // Port 1 on the loopback: nothing listens there, should anything ever try.
  const url = 'postgres://unused@127.0.0.1:1/unused';
  const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent' });
  const { db } = createDb(url);
  const jobs = new JobQueue({ connectionString: url, supervise: false, logger });
  const metrics = new Metrics(new Registry(), { processMetrics: false });
  const services = createServices({
    db,
    config,
    jwtSecret: 'unused'.repeat(8),
    redis: null,
    jobs,
    logger,
    metrics,
  });
  const app = await buildApp({ config, services, logger });
  await app.ready();
  return {
    app,
    close: async () => {
      await app.close();
      await db.destroy();
    },
  };
}

/** The OpenAPI document the server serves at `/docs/json` (whose route answers `app.swagger()`). */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const { app, close } = await appWithoutDatabase();
  try {
    return JSON.parse(JSON.stringify(app.swagger())) as Record<string, unknown>;
  } finally {
    await close();
  }
}
