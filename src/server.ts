import { randomBytes, randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { assertPortsFree, localUrl, namePortError } from './http/ports.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
import { createDb, type Db } from './db/index.js';
import { startGateway, type Gateway } from './gateway/gateway.js';
import { migrateToLatest } from './db/migrate.js';
import { SettingsRepo } from './modules/settings/index.js';
import type { App } from './http/app-type.js';
import { JobQueue } from './jobs/queue.js';
import { failFastRedis } from './lib/redis.js';
import { RedisHealth } from './lib/redis-health.js';
import { Tracing } from './lib/tracing.js';
import type { SharedStore } from './lib/shared-rate-limit.js';
import { registerWorkers } from './workers.js';
import { startMetricsServer } from './metrics/endpoint.js';
import { Metrics } from './metrics/metrics.js';
import { watchDatabase, watchGateway } from './metrics/sources.js';
import { createServices, type Services } from './services.js';

export interface RunningServer {
  app: App | null;
  services: Services;
  /** Base URL of the HTTP API when the api role runs. */
  url: string | null;
  /** Base URL of the Socket.IO gateway when the gateway role runs. */
  gatewayUrl: string | null;
  /** The gateway itself (its Socket.IO server), when the gateway role runs. */
  gateway: Gateway | null;
  /** Base URL of the metrics' own port, when `ATENDE_METRICS_PORT` is set. */
  metricsUrl: string | null;
  databaseUrl: string;
  close(): Promise<void>;
}

/** The database, migrated: embedded when DATABASE_URL is unset. `close()` ends the pool, then the server. */
export interface OpenDatabase {
  db: Db;
  /** The pool under `db`, for its metrics. */
  pool: pg.Pool;
  databaseUrl: string;
  close(): Promise<void>;
}

/** Everything but the roles: database, migrations, Redis, services and the first admin. */
export interface Core {
  services: Services;
  databaseUrl: string;
  close(): Promise<void>;
}

/** How often a closing API closes the connections that went idle since the close began. */
const IDLE_REAP_MS = 50;

/**
 * Closes the HTTP API: no new connection, every request in flight answered. A keep-alive connection
 * whose request was in flight when the close began goes idle only once it is answered, and Node's own
 * close leaves it open until its keep-alive timeout (72 s by default), holding up the whole stop
 * behind it: it is closed as soon as it is idle.
 */
async function closeApi(app: App): Promise<void> {
  const reaper = setInterval(() => app.server.closeIdleConnections(), IDLE_REAP_MS);
  try {
    await app.close();
  } finally {
    clearInterval(reaper);
  }
}

/** Runs `fn`s in reverse order of registration, logging (not throwing) what fails on the way. */
function cleanupStack(logger: Logger) {
  const fns: Array<() => Promise<unknown>> = [];
  return {
    push: (fn: () => Promise<unknown>) => fns.push(fn),
    run: async () => {
      for (const fn of fns.reverse()) {
        await fn().catch((err: unknown) => logger.error({ err }, 'error during shutdown'));
      }
      fns.length = 0;
    },
  };
}

export async function openDatabase(config: Config, logger: Logger): Promise<OpenDatabase> {
  const cleanups = cleanupStack(logger);
  try {
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      const embedded: EmbeddedDatabase = await startEmbeddedPostgres(config.dataDir, logger);
      cleanups.push(() => embedded.stop());
      databaseUrl = embedded.url;
    }
    const { db, pool } = createDb(databaseUrl, config.dbPoolSize, { logger });
    cleanups.push(() => db.destroy());
    await migrateToLatest(db, { logger });
    return { db, pool, databaseUrl, close: cleanups.run };
  } catch (err) {
    await cleanups.run();
    throw err;
  }
}

/**
 * Starts what every role needs — database, migrations, Redis, services, the first admin — without
 * serving anything; `atende demo` uses it alone, `startServer` adds the roles on top.
 */
export async function startCore(config: Config, logger: Logger): Promise<Core> {
  const cleanups = cleanupStack(logger);
  try {
    // First, so that it stops last: the spans of everything stopping before it are exported.
    const tracing = Tracing.start(config.tracing);
    cleanups.push(() => tracing.shutdown());
    const database = await openDatabase(config, logger);
    cleanups.push(() => database.close());
    const { db, databaseUrl } = database;

    // Redis is optional at every moment: a node starts, serves and recovers without it (degraded).
    let redis: SharedStore | null = null;
    if (config.redisUrl) {
      const client = failFastRedis(config.redisUrl, logger, 'core');
      cleanups.push(() => client.quit().catch(() => client.disconnect()));
      const health = new RedisHealth(client, logger, {
        nodeId: randomUUID(),
        sharesBudgets: config.roles.includes('api'),
        heartbeatMs: config.redisHeartbeatMs,
      });
      await health.start();
      cleanups.push(() => health.stop());
      redis = { client, health };
    }

    const jobs = new JobQueue({
      connectionString: databaseUrl,
      supervise: config.roles.includes('worker'),
      logger,
    });
    await jobs.start();
    cleanups.push(() => jobs.stop());

    // This server's metrics: a registry of its own (src/metrics), served by `startServer`.
    const metrics = new Metrics(new Registry());
    watchDatabase(metrics, db, database.pool, logger);

    const services = createServices({
      db,
      metrics,
      config,
      // The JWT secret: from configuration, or generated once and kept in the database for every node.
      jwtSecret:
        config.jwtSecret || (await new SettingsRepo(db).jwtSecret(randomBytes(48).toString('base64url'))),
      redis,
      jobs,
      logger,
      tracing,
    });
    cleanups.push(() => services.doorbell.close());
    // A release's new built-in permissions reach every account, also those created meanwhile by a
    // node of the previous release during a rolling upgrade (and again by housekeeping).
    const granted = await services.accounts.grantBuiltInPermissions();
    if (granted > 0) logger.info({ roles: granted }, 'built-in roles given their new permissions');
    if (config.adminEmail && config.adminPassword) {
      const created = await services.accounts.bootstrapFirstAdmin(config.adminEmail, config.adminPassword);
      if (created) logger.info({ email: config.adminEmail }, 'created the first account and its admin');
    }
    return { services, databaseUrl, close: cleanups.run };
  } catch (err) {
    await cleanups.run();
    throw err;
  }
}

export const FIRST_ADMIN_HINT =
  'No user exists yet, so nobody can log in. Create the first admin: run ' +
  '`npm run admin:create -- --email you@example.com` (the `atende admin create` command; it asks for ' +
  'the password; with the embedded PostgreSQL, stop the server first), ' +
  'or start the server with ATENDE_ADMIN_EMAIL and ATENDE_ADMIN_PASSWORD set. ' +
  '(`npm run demo` creates a demo account with its own logins.)';

/**
 * Starts the platform: the core (database — embedded when DATABASE_URL is unset —, migrations, first
 * admin) and the roles this process runs. `close()` stops them in reverse order, the database last.
 */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  await assertPortsFree(config);
  const cleanups = cleanupStack(logger);
  try {
    const core = await startCore(config, logger);
    cleanups.push(() => core.close());
    const { services, databaseUrl } = core;
    // Without it nobody can log in, and the login page alone would only say the password is wrong.
    if (!(await services.repos.users.anyUser())) logger.warn(FIRST_ADMIN_HINT);

    if (config.roles.includes('worker')) {
      const workers = await registerWorkers(services, databaseUrl, logger);
      cleanups.push(() => workers.stop());
    }

    // Events reach clients through the gateway nodes, which tail the event log: a node without the
    // gateway role only writes events (and notifies them) in its transactions.
    let gatewayUrl: string | null = null;
    let gateway: Gateway | null = null;
    // The port the console is served on, for the gateway's default origin policy: known once the
    // API listens (after the gateway, which the API's console route describes).
    let apiPort = config.port;
    if (config.roles.includes('gateway')) {
      const started = await startGateway(config, databaseUrl, services, logger, () => apiPort);
      cleanups.push(() => started.close());
      gateway = started;
      gatewayUrl = started.url;
      watchGateway(services.metrics, started.io);
    }

    let app: App | null = null;
    let url: string | null = null;
    if (config.roles.includes('api')) {
      app = await buildApp({ config, services, logger, gateway });
      const server = app;
      cleanups.push(() => closeApi(server));
      await app
        .listen({ host: config.host, port: config.port })
        .catch((err: unknown) => Promise.reject(namePortError(err, 'PORT', config.port, config.host)));
      const addr = app.server.address();
      const port = typeof addr === 'object' && addr ? addr.port : config.port;
      apiPort = port;
      url = localUrl(config.host, port);
      // `atende demo`, run with no PORT of its own, prints this address in its examples: the port this
      // server really uses, wherever its PORT came from (also PORT=0).
      await services.repos.settings
        .recordApiUrl(url)
        .catch((err: unknown) => logger.warn({ err }, 'could not record the API address for atende demo'));
    }
    let metricsUrl: string | null = null;
    if (config.metrics.port !== null) {
      const metricsServer = await startMetricsServer(
        services.metrics,
        { host: config.host, port: config.metrics.port, token: config.metrics.token },
        logger,
      );
      cleanups.push(() => metricsServer.close());
      metricsUrl = metricsServer.url;
    }
    return { app, services, url, gatewayUrl, gateway, metricsUrl, databaseUrl, close: cleanups.run };
  } catch (err) {
    await cleanups.run();
    throw err;
  }
}
