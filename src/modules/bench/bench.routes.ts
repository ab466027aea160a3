import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { App } from '../../http/app-type.js';
import type { Db } from '../../db/index.js';
import type { RequestRateLimiter } from '../../http/rate-limit.js';

const EchoQuery = Type.Object(
  { n: Type.Integer({ minimum: 0, maximum: 1_000_000 }) },
  { additionalProperties: false },
);
const Echo = Type.Object({ n: Type.Integer() });

const InsertBody = Type.Object(
  {
    contact: Type.String({ minLength: 1, maxLength: 64 }),
    text: Type.String({ minLength: 1, maxLength: 4096 }),
  },
  { additionalProperties: false },
);
const Inserted = Type.Object({ id: Type.String() });

const Memory = Type.Object({
  gc: Type.Boolean(),
  rss: Type.Integer(),
  heapTotal: Type.Integer(),
  heapUsed: Type.Integer(),
  external: Type.Integer(),
  arrayBuffers: Type.Integer(),
});

/** What these routes use of the services. */
export type BenchRoutesDeps = {
  db: Db;
  rateLimiter: RequestRateLimiter;
};

/**
 * Reference routes for `npm run bench`, registered only with ATENDE_BENCH_ROUTES=1 (never in a normal
 * installation, and absent from its OpenAPI document). `/bench/echo` is the baseline: routing,
 * querystring validation and response serialization, nothing else. `/bench/limited` adds only the
 * Channel API rate limiter's `consume` (memory or Redis store, whichever the server runs with), so
 * the difference between the two is the limiter's own cost. `/bench/insert` is the send pipeline's
 * baseline: a validated JSON body written with one `INSERT` (into `bench_insert`, a table the
 * benchmark creates) before the 201. `/bench/memory` reports the process's memory, after a full
 * collection when the process runs with `--expose-gc`, for the gateway's memory per socket.
 */
export function benchRoutes(app: App, services: BenchRoutesDeps): void {
  const schema = { hide: true, querystring: EchoQuery, response: { 200: Echo } };
  app.get('/bench/echo', { schema }, async (request) => ({ n: request.query.n }));
  app.get(
    '/bench/limited',
    {
      schema,
      onRequest: async (_request, reply) => {
        const { headers } = await services.rateLimiter.consume('bench');
        reply.headers(headers);
      },
    },
    async (request) => ({ n: request.query.n }),
  );
  app.post(
    '/bench/insert',
    { schema: { hide: true, body: InsertBody, response: { 201: Inserted } } },
    async (request, reply) => {
      const id = randomUUID();
      await sql`INSERT INTO bench_insert (id, body) VALUES (${id}, ${JSON.stringify(request.body)}::jsonb)`.execute(
        services.db,
      );
      return reply.status(201).send({ id });
    },
  );
  app.post('/bench/memory', { schema: { hide: true, response: { 200: Memory } } }, async () => {
    const collect = globalThis.gc;
    if (collect) {
      // Twice: the first pass can leave objects that only a second one frees (weak references).
      collect();
      collect();
    }
    return { gc: collect !== undefined, ...process.memoryUsage() };
  });
}
