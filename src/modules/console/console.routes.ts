import { stat } from 'node:fs/promises';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import { Type } from '@sinclair/typebox';
import type { Config } from '../../config.js';
import type { App } from '../../http/app-type.js';
import { errorBody } from '../../http/errors.js';

/**
 * Paths that belong to the API: an unknown one answers the contract's JSON 404, never the console's
 * page, so a client calling a wrong URL sees an error rather than HTML.
 */
const API_PREFIXES = [
  '/api',
  '/auth',
  '/channel-api',
  '/webhooks',
  '/docs',
  '/healthz',
  '/readyz',
  '/metrics',
  '/console.json',
  '/bench',
];

export function isApiPath(urlPath: string): boolean {
  return API_PREFIXES.some((p) => urlPath === p || urlPath.startsWith(`${p}/`));
}

/** Vite names bundled files after their content, so they never change under the same name. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html names the current bundles: always revalidated, so a new build is picked up at once. */
const REVALIDATE = 'no-cache';
/** Other public files (the icon): short-lived, they keep their names across builds. */
const SHORT = 'public, max-age=3600';

const ConsoleConfigSchema = Type.Object({
  gatewayUrl: Type.Union([Type.String(), Type.Null()], {
    description: 'Full gateway address when one is configured (ATENDE_PUBLIC_GATEWAY_URL), else null',
  }),
  gatewayPort: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Gateway port on the host the console was loaded from, used when gatewayUrl is null',
  }),
  gatewayPath: Type.String(),
});

const WildcardParams = Type.Object({ '*': Type.String() });

/**
 * The web console: `GET /console.json` tells it where the gateway is, and every other GET outside
 * the API serves `config.consoleDir` (web/dist) — a file when one exists, else `index.html` for
 * pages (requests that accept HTML), so the console's own paths (`/inbox/…`) survive a reload.
 */
export async function consoleRoutes(
  app: App,
  config: Config,
  gateway: { port: number | null },
): Promise<void> {
  const root = config.consoleDir;
  // Only `reply.sendFile` (ranges, ETag, content type); the route below decides what to serve.
  await app.register(fastifyStatic, { root, serve: false, cacheControl: false });

  app.get(
    '/console.json',
    {
      schema: {
        operationId: 'getConsoleConfig',
        tags: ['Console'],
        summary: 'Where the web console finds the real-time gateway',
        response: { 200: ConsoleConfigSchema },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', REVALIDATE);
      return {
        gatewayUrl: config.publicGatewayUrl,
        gatewayPort: config.publicGatewayUrl ? null : gateway.port,
        gatewayPath: '/socket.io',
      };
    },
  );

  app.get('/*', { schema: { hide: true, params: WildcardParams } }, async (request, reply) => {
    const urlPath = request.url.split('?')[0] ?? '/';
    if (isApiPath(urlPath)) return reply.callNotFound();
    const file = normalise(request.params['*']);
    // Source maps are never published (they would hand out the console's source), even when a build
    // made with them is deployed.
    if (file === null || file.endsWith('.map')) return reply.callNotFound();

    if (!(await isFile(path.join(root, 'index.html')))) {
      return reply
        .status(503)
        .header('cache-control', 'no-store')
        .send(errorBody(503, 'The web console is not built: run `npm run build`'));
    }
    if (file !== '' && (await isFile(path.join(root, file)))) {
      reply.header('cache-control', file.startsWith('assets/') ? IMMUTABLE : SHORT);
      return reply.sendFile(file);
    }
    const accept = request.headers.accept ?? '';
    // A console page (`/`, `/inbox/…`): the app, which routes in the browser. Anything else missing
    // (a stale asset, a script's typo) gets the JSON 404 like any unknown path.
    if (file === '' || accept.includes('text/html')) {
      reply.header('cache-control', REVALIDATE);
      return reply.type('text/html; charset=utf-8').sendFile('index.html');
    }
    return reply.callNotFound();
  });
}

/** The path inside the console directory, or null for anything that could leave it. */
function normalise(raw: string): string | null {
  if (raw.includes('\u0000') || raw.includes('\\')) return null;
  const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => p === '..')) return null;
  return parts.join('/');
}

async function isFile(p: string): Promise<boolean> {
  try {
    return (await stat(p)).isFile();
  } catch {
    return false;
  }
}
