import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import type { Services } from '../../services.js';

const EchoQuery = Type.Object(
  { n: Type.Integer({ minimum: 0, maximum: 1_000_000 }) },
  { additionalProperties: false },
);
const Echo = Type.Object({ n: Type.Integer() });

/**
 * Reference routes for `npm run bench`, registered only with ATENDE_BENCH_ROUTES=1 (never in a normal
 * installation, and absent from its OpenAPI document). `/bench/echo` is the baseline: routing,
 * querystring validation and response serialization, nothing else. `/bench/limited` adds only the
 * Channel API rate limiter's `consume` (memory or Redis store, whichever the server runs with), so
 * the difference between the two is the limiter's own cost.
 */
export function benchRoutes(app: App, services: Services): void {
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
}
