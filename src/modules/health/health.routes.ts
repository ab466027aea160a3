import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { App } from '../../http/app-type.js';
import { migrationsApplied } from '../../db/migrate.js';
import type { Db } from '../../db/index.js';
import type { RedisHealth } from '../../lib/redis-health.js';

const Health = Type.Object({ status: Type.String() });
const Ready = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  reason: Type.Optional(Type.String()),
});

/**
 * `/readyz`: 503 while this node cannot serve (database unreachable, migrations pending); 200
 * `degraded` with a reason while it serves without Redis. A Redis outage hits every node alike, so
 * it must not take them all out of a load balancer: they go on with per-node rate limits and live
 * events delivered on the node that caused them only.
 */
export function healthRoutes(app: App, db: Db, redis: RedisHealth | null): void {
  app.get(
    '/healthz',
    {
      schema: {
        operationId: 'checkLiveness',
        tags: ['Health'],
        summary: 'The process is up',
        response: { 200: Health },
      },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'checkReadiness',
        tags: ['Health'],
        summary: 'The database is reachable and migrated (200 degraded: serving without Redis)',
        response: { 200: Ready, 503: Type.Object({ status: Type.String(), reason: Type.String() }) },
      },
    },
    async (_request, reply) => {
      try {
        await sql`SELECT 1`.execute(db);
        if (!(await migrationsApplied(db)))
          return reply.status(503).send({ status: 'unavailable', reason: 'migrations pending' });
      } catch {
        return reply.status(503).send({ status: 'unavailable', reason: 'database unreachable' });
      }
      if (redis && !redis.isUp()) return { status: 'degraded' as const, reason: 'redis unreachable' };
      return { status: 'ok' as const };
    },
  );
}
