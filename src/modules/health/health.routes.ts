import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { App } from '../../http/app-type.js';
import { migrationsApplied } from '../../db/migrate.js';
import type { Db } from '../../db/index.js';

const Health = Type.Object({ status: Type.String() });

export function healthRoutes(app: App, db: Db): void {
  app.get(
    '/healthz',
    { schema: { tags: ['Health'], summary: 'The process is up', response: { 200: Health } } },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      schema: {
        tags: ['Health'],
        summary: 'The database is reachable and migrated',
        response: { 200: Health, 503: Type.Object({ status: Type.String(), reason: Type.String() }) },
      },
    },
    async (_request, reply) => {
      try {
        await sql`SELECT 1`.execute(db);
        if (!(await migrationsApplied(db)))
          return reply.status(503).send({ status: 'unavailable', reason: 'migrations pending' });
        return { status: 'ok' };
      } catch {
        return reply.status(503).send({ status: 'unavailable', reason: 'database unreachable' });
      }
    },
  );
}
