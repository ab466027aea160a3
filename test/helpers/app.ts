import { pino, type Logger } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import { createTestDatabase } from './db.js';
import { TEST_JWT_SECRET } from './services.js';

export interface TestApp {
  server: RunningServer;
  url: string;
  /** Socket.IO gateway base URL (null when the process runs without the gateway role). */
  gatewayUrl: string | null;
  databaseUrl: string;
  /** JSON request against the running server over real HTTP. */
  request(
    method: string,
    path: string,
    opts?: { headers?: Record<string, string>; body?: unknown; raw?: string },
  ): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: unknown;
  // Convenience for assertions on JSON objects.
  json: Record<string, unknown>;
}

export { TEST_JWT_SECRET };

/**
 * Starts the real server (HTTP on 127.0.0.1, random port) on a fresh database. `env` overrides the
 * configuration, e.g. REDIS_URL or the rate-limit numbers.
 */
export async function startTestApp(
  opts: {
    env?: Record<string, string>;
    databaseUrl?: string;
    /** Settings the environment does not reach (e.g. the gateway's recovery window). */
    configure?: (config: Config) => void;
    /** The server's logger, for a test that checks what is logged; silent by default. */
    logger?: Logger;
  } = {},
): Promise<TestApp> {
  const fresh = opts.databaseUrl ? null : await createTestDatabase({ migrated: true });
  const databaseUrl = opts.databaseUrl ?? fresh!.url;
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    HOST: '127.0.0.1',
    PORT: '0',
    GATEWAY_PORT: '0',
    LOG_LEVEL: 'silent',
    ATENDE_JWT_SECRET: TEST_JWT_SECRET,
    ...opts.env,
  });
  opts.configure?.(config);
  const server = await startServer(config, opts.logger ?? pino({ level: 'silent' }));
  const url = server.url!;
  return {
    server,
    url,
    gatewayUrl: server.gatewayUrl,
    databaseUrl,
    request: (method, path, o = {}) => httpRequest(url, method, path, o),
    close: async () => {
      await server.close();
      if (fresh) await fresh.drop();
    },
  };
}

export async function httpRequest(
  base: string,
  method: string,
  path: string,
  opts: { headers?: Record<string, string>; body?: unknown; raw?: string } = {},
): Promise<TestResponse> {
  const headers: Record<string, string> = { ...opts.headers };
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text so the assertion shows it
  }
  return {
    status: res.status,
    headers: res.headers,
    body: parsed,
    json: (parsed && typeof parsed === 'object' ? parsed : {}) as Record<string, unknown>,
  };
}
