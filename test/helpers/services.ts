import { pino, type Logger } from 'pino';
import { Registry } from 'prom-client';
import { loadConfig, type Config } from '../../src/config.js';
import { createDb, type Db } from '../../src/db/index.js';
import { JobQueue } from '../../src/jobs/queue.js';
import { Metrics } from '../../src/metrics/metrics.js';
import { createServices, type Services } from '../../src/services.js';
import { registerWorkers } from '../../src/workers.js';
import { createTestDatabase } from './db.js';

/** The JWT secret of test servers and services, so tokens of one verify on the other. */
export const TEST_JWT_SECRET = 'test-secret-test-secret-test-secret-0123456789';

/**
 * The medium tier: the platform's services, wired by `createServices` as a server wires them, on a
 * fresh migrated database — no HTTP, no gateway. For tests of service rules and stored state; what a
 * client sees (status codes, bodies, headers, the OpenAPI contract) is tested over HTTP (startTestApp).
 */
export interface TestServices {
  services: Services;
  db: Db;
  databaseUrl: string;
  close(): Promise<void>;
}

export async function startTestServices(
  opts: {
    env?: Record<string, string>;
    /** Also run the background workers (send queue, webhooks, jobs), as a node with the worker role. */
    workers?: boolean;
    configure?: (config: Config) => void;
    logger?: Logger;
  } = {},
): Promise<TestServices> {
  const database = await createTestDatabase({ migrated: true });
  const logger = opts.logger ?? pino({ level: 'silent' });
  const config = loadConfig({
    DATABASE_URL: database.url,
    LOG_LEVEL: 'silent',
    ATENDE_JWT_SECRET: TEST_JWT_SECRET,
    ...opts.env,
  });
  opts.configure?.(config);
  const { db } = createDb(database.url, config.dbPoolSize, { logger });
  const jobs = new JobQueue({ connectionString: database.url, supervise: !!opts.workers, logger });
  const stops: (() => Promise<unknown>)[] = [() => database.drop(), () => db.destroy()];
  const close = async () => {
    for (const stop of stops.reverse()) await stop();
    stops.length = 0;
  };
  try {
    await jobs.start();
    stops.push(() => jobs.stop());
    const services = createServices({
      db,
      config,
      jwtSecret: TEST_JWT_SECRET,
      redis: null,
      jobs,
      logger,
      metrics: new Metrics(new Registry()),
    });
    stops.push(() => services.doorbell.close());
    if (opts.workers) {
      const workers = await registerWorkers(services, database.url, logger);
      stops.push(() => workers.stop());
    }
    return { services, db, databaseUrl: database.url, close };
  } catch (err) {
    await close();
    throw err;
  }
}
