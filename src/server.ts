import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { buildApp } from './app.js';
import type { Config } from './config.js';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './db/embedded.js';
import { createDb, type Db } from './db/index.js';
import { migrateToLatest } from './db/migrate.js';
import type { App } from './http/app-type.js';
import { createServices, type Services } from './services.js';

export interface RunningServer {
  app: App | null;
  services: Services;
  /** Base URL of the HTTP API when the api role runs. */
  url: string | null;
  databaseUrl: string;
  close(): Promise<void>;
}

/** The JWT secret: from configuration, or generated once and kept in the database for every node. */
async function jwtSecret(db: Db, configured: string | null): Promise<string> {
  if (configured) return configured;
  await db
    .insertInto('settings')
    .values({ key: 'jwt_secret', value: randomBytes(48).toString('base64url') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db
    .selectFrom('settings')
    .select('value')
    .where('key', '=', 'jwt_secret')
    .executeTakeFirstOrThrow();
  return row.value;
}

/**
 * Starts the platform: database (embedded when DATABASE_URL is unset), migrations, first admin, and
 * the roles this process runs. `close()` stops them in reverse order, the database last.
 */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const cleanups: Array<() => Promise<unknown>> = [];
  const close = async () => {
    for (const fn of cleanups.reverse()) {
      await fn().catch((err: unknown) => logger.error({ err }, 'error during shutdown'));
    }
    cleanups.length = 0;
  };

  try {
    let embedded: EmbeddedDatabase | null = null;
    let databaseUrl = config.databaseUrl;
    if (!databaseUrl) {
      embedded = await startEmbeddedPostgres(config.dataDir, logger);
      cleanups.push(() => embedded!.stop());
      databaseUrl = embedded.url;
    }
    const { db } = createDb(databaseUrl);
    cleanups.push(() => db.destroy());
    await migrateToLatest(db);

    let redis: Redis | null = null;
    if (config.redisUrl) {
      redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 2, enableOfflineQueue: true });
      redis.on('error', (err) => logger.warn({ err: err.message }, 'redis error'));
      cleanups.push(() => redis!.quit());
    }

    const services = createServices({ db, config, jwtSecret: await jwtSecret(db, config.jwtSecret), redis });
    if (config.adminEmail && config.adminPassword) {
      const created = await services.accounts.bootstrapFirstAdmin(config.adminEmail, config.adminPassword);
      if (created) logger.info({ email: config.adminEmail }, 'created the first account and its admin');
    }

    let app: App | null = null;
    let url: string | null = null;
    if (config.roles.includes('api')) {
      app = await buildApp({ config, services, logger });
      const server = app;
      cleanups.push(() => server.close());
      await app.listen({ host: config.host, port: config.port });
      const addr = app.server.address();
      const port = typeof addr === 'object' && addr ? addr.port : config.port;
      const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
      url = `http://${host}:${port}`;
    }
    return { app, services, url, databaseUrl, close };
  } catch (err) {
    await close();
    throw err;
  }
}
