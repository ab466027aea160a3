import os from 'node:os';
import path from 'node:path';
import { isSupportedCountry, type CountryCode } from 'libphonenumber-js/max';
import { defaultConsoleDir, isAddressOrRange } from './lib/config-values.js';
import type { TracingConfig } from './lib/tracing.js';

export type Role = 'api' | 'gateway' | 'worker';

export interface Config {
  host: string;
  port: number;
  gatewayPort: number;
  databaseUrl: string | null;
  /** Connections of the node's PostgreSQL pool (`ATENDE_DB_POOL_SIZE`; default `defaultPoolSize()`). */
  dbPoolSize: number;
  redisUrl: string | null;
  dataDir: string;
  jwtSecret: string | null;
  jwtTtlSeconds: number;
  adminEmail: string | null;
  adminPassword: string | null;
  logLevel: string;
  roles: Role[];
  /** Channel API budget per account API key. */
  rateLimit: { points: number; durationSeconds: number };
  /** Send-message budget per channel key (`x-channel-api-key`). */
  channelKeyRateLimit: { points: number; durationSeconds: number };
  /** Agent/admin API budget per signed-in user. */
  userRateLimit: { points: number; durationSeconds: number };
  /**
   * Failed logins allowed per email from one client IP, and per client IP over all emails, within
   * the window, before 429. Past `maxFailuresPerEmail` failures of an email from all IPs together,
   * its logins are slowed, never refused (see LoginRateLimiter).
   */
  loginRateLimit: { maxFailuresPerEmail: number; maxFailuresPerIp: number; windowSeconds: number };
  /**
   * Fastify's `trustProxy`: which peers may set X-Forwarded-For (the client IP) and X-Forwarded-Proto.
   * false (default): none; a number: that many hops; a string: addresses and CIDR ranges.
   */
  trustProxy: boolean | number | string;
  /** `Secure` on the session cookie: always, never, or when the request came over HTTPS ('auto'). */
  cookieSecure: boolean | 'auto';
  /** Largest JSON body of the API's routes; login takes less, the media routes more (413 beyond). */
  bodyLimitBytes: number;
  /**
   * HTTP timeouts of the API and gateway servers: the whole request (headers and body) must arrive
   * within `requestTimeoutMs` and its headers within `headersTimeoutMs` (408 and closed otherwise); an
   * idle keep-alive connection is closed after `keepAliveTimeoutMs`, and an API socket silent for
   * `connectionTimeoutMs` (the gateway's WebSockets are watched by Socket.IO's pings instead).
   */
  http: {
    requestTimeoutMs: number;
    headersTimeoutMs: number;
    connectionTimeoutMs: number;
    keepAliveTimeoutMs: number;
  };
  /**
   * The country a phone written without its country code is read in, on the Channel API and the
   * sandbox (`ATENDE_PHONE_DEFAULT_COUNTRY`: a two-letter code, default BR; `none`: such phones are
   * refused). Only after the number failed as an international one; never for a provider's address
   * (docs/channel-api.md "How phone numbers are read").
   */
  phoneDefaultCountry: CountryCode | null;
  /** WhatsApp Cloud API: Graph base URL (a local fake in tests), version, per-request timeout. */
  whatsapp: { graphBaseUrl: string; graphVersion: string; timeoutMs: number };
  /**
   * Browser origins the gateway accepts (every transport, and CORS): a list, `*` (any), or null: the
   * console's own origin (src/gateway/origins.ts).
   */
  gatewayOrigins: string[] | '*' | null;
  /** Days the event log keeps events for resync (`GET /api/events`). */
  eventRetentionDays: number;
  /** Days the log keeps a conversation's activity events (captures, transfers…): its timeline's lines. */
  activityRetentionDays: number;
  /** How often each worker node looks for snoozed chats whose time has come (besides its own timers). */
  snoozePollMs: number;
  /** How often the worker looks for bots' overdue answers besides its own timers (docs/adr/0087-bots.md). */
  botPollMs: number;
  /** How often the worker role looks for flows' due timers: unanswered menus, expired ratings, idle chats. */
  flowPollMs: number;
  /** How often the breach loop looks for SLA due instants that passed (a timer covers those it knows of). */
  slaPollMs: number;
  /**
   * Automatic assignment and availability (docs/adr/0085-availability-and-auto-assignment.md): how often
   * each worker node looks for waiting chats without a wake-up (`ATENDE_ASSIGNMENT_POLL_MS`), and how
   * long after a user's last gateway connection went they become offline (`ATENDE_AVAILABILITY_GRACE_MS`,
   * a minute; gateway nodes renew their connections every third of it).
   */
  assignment: { pollMs: number; availabilityGraceMs: number };
  /**
   * Outgoing webhooks: per-attempt timeout, first retry delay (doubling, with jitter) and how long a
   * delivery is retried — also how long an endpoint may fail before it is disabled. Endpoints on
   * private, loopback or link-local addresses are refused unless `allowPrivateNetworks`.
   */
  webhooks: {
    timeoutMs: number;
    retryBaseMs: number;
    retryWindowSeconds: number;
    /** Attempts in flight to one endpoint at most, across the nodes. */
    endpointConcurrency: number;
    allowPrivateNetworks: boolean;
  };
  /**
   * The gateway's session-recovery window: the contract's 2 minutes. Not read from the environment;
   * only tests shorten it, to see a client come back after it.
   */
  gatewayRecoveryMs: number;
  /**
   * How often each node tells Redis it is alive (and learns how many nodes share the rate limits).
   * Not read from the environment; only tests shorten it.
   */
  redisHeartbeatMs: number;
  /**
   * The gateway address the web console connects to, when a load balancer or proxy serves it
   * elsewhere; null = the gateway port on the host the console was loaded from.
   */
  publicGatewayUrl: string | null;
  /**
   * The built console (`web/dist`, made by `npm run build`). Not read from the environment; tests
   * point it elsewhere.
   */
  consoleDir: string;
  /**
   * Prometheus metrics (src/metrics): on their own port when `port` is set (0 = any free port), else
   * at `/metrics` of the API port. With `token` set, scrapes must send it as a bearer token; without
   * it, the API port answers loopback and private addresses only (docs/adr/0041-metrics.md).
   */
  metrics: { port: number | null; token: string | null };
  /**
   * OpenTelemetry traces (src/lib/tracing.ts): exported over OTLP/HTTP to `OTEL_EXPORTER_OTLP_ENDPOINT`
   * when set, as `OTEL_SERVICE_NAME` (default `atende`); off otherwise (docs/adr/0098-traces.md).
   */
  tracing: TracingConfig;
}

export class ConfigError extends Error {
  constructor(public readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const ROLES: Role[] = ['api', 'gateway', 'worker'];

/** Reads the environment once; every problem is reported together so an operator fixes them in one go. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];

  const int = (name: string, def: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return def;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
      return def;
    }
    return n;
  };
  const str = (name: string): string | null => {
    const raw = env[name];
    return raw === undefined || raw.trim() === '' ? null : raw.trim();
  };
  const bool = (name: string, def: boolean): boolean => {
    const raw = str(name);
    if (raw === null) return def;
    if (raw === 'true' || raw === 'false') return raw === 'true';
    problems.push(`${name} must be true or false (got "${raw}")`);
    return def;
  };
  const url = (name: string, protocols: string[]): string | null => {
    const raw = str(name);
    if (raw === null) return null;
    try {
      const u = new URL(raw);
      if (!protocols.includes(u.protocol)) {
        problems.push(`${name} must use one of ${protocols.join(', ')} (got "${u.protocol}")`);
      }
    } catch {
      problems.push(`${name} is not a valid URL`);
    }
    return raw;
  };

  const logLevel = str('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const jwtSecret = str('ATENDE_JWT_SECRET');
  if (jwtSecret !== null && jwtSecret.length < 32) {
    problems.push('ATENDE_JWT_SECRET must be at least 32 characters long');
  }

  const adminEmail = str('ATENDE_ADMIN_EMAIL');
  const adminPassword = str('ATENDE_ADMIN_PASSWORD');
  if ((adminEmail === null) !== (adminPassword === null)) {
    problems.push('ATENDE_ADMIN_EMAIL and ATENDE_ADMIN_PASSWORD must be set together');
  }
  if (adminEmail !== null && !/^[^\s@]+@[^\s@]+$/.test(adminEmail)) {
    problems.push('ATENDE_ADMIN_EMAIL is not an email address');
  }
  if (adminPassword !== null && adminPassword.length < 8) {
    problems.push('ATENDE_ADMIN_PASSWORD must be at least 8 characters long');
  }

  const rolesRaw = str('ATENDE_ROLES');
  let roles: Role[] = [...ROLES];
  if (rolesRaw !== null) {
    const parts = rolesRaw.split(',').map((r) => r.trim());
    const bad = parts.filter((r) => !ROLES.includes(r as Role));
    if (bad.length > 0 || parts.length === 0) {
      problems.push(`ATENDE_ROLES must be a comma-separated list of ${ROLES.join(', ')}`);
    } else {
      roles = [...new Set(parts as Role[])];
    }
  }

  // Only proxies we trust may name the client IP (the login limits' key) and the protocol (the
  // cookie's Secure flag). Trusting a range by default would let any client there pick its own IP;
  // the operator names the proxy in front, or nothing is trusted.
  const trustRaw = str('ATENDE_TRUST_PROXY');
  let trustProxy: boolean | number | string = false;
  if (trustRaw === 'true' || trustRaw === 'false') trustProxy = trustRaw === 'true';
  else if (trustRaw !== null && /^\d+$/.test(trustRaw)) {
    trustProxy = Number(trustRaw);
    if (trustProxy < 1 || trustProxy > 10) problems.push('ATENDE_TRUST_PROXY as a hop count must be 1 to 10');
  } else if (trustRaw !== null) {
    const named = ['loopback', 'linklocal', 'uniquelocal'];
    const bad = trustRaw
      .split(',')
      .map((p) => p.trim())
      .filter((p) => !named.includes(p) && !isAddressOrRange(p));
    if (bad.length > 0) {
      problems.push(
        `ATENDE_TRUST_PROXY must be false, true, a hop count or a comma-separated list of IPs, CIDR ranges, ${named.join(', ')} (got "${bad.join('", "')}")`,
      );
    } else trustProxy = trustRaw;
  }

  const cookieRaw = str('ATENDE_COOKIE_SECURE') ?? 'auto';
  let cookieSecure: boolean | 'auto' = 'auto';
  if (cookieRaw === 'true' || cookieRaw === 'false') cookieSecure = cookieRaw === 'true';
  else if (cookieRaw !== 'auto')
    problems.push(`ATENDE_COOKIE_SECURE must be true, false or auto (got "${cookieRaw}")`);

  const graphVersion = str('WHATSAPP_GRAPH_VERSION') ?? 'v23.0';
  if (!/^v\d+\.\d+$/.test(graphVersion)) {
    problems.push(`WHATSAPP_GRAPH_VERSION must look like v23.0 (got "${graphVersion}")`);
  }

  const countryRaw = str('ATENDE_PHONE_DEFAULT_COUNTRY')?.toUpperCase() ?? 'BR';
  let phoneDefaultCountry: CountryCode | null = 'BR';
  if (countryRaw === 'NONE') phoneDefaultCountry = null;
  else if (/^[A-Z]{2}$/.test(countryRaw) && isSupportedCountry(countryRaw)) phoneDefaultCountry = countryRaw;
  else
    problems.push(
      `ATENDE_PHONE_DEFAULT_COUNTRY must be a two-letter country code such as BR, or none (got "${countryRaw}")`,
    );

  const originsRaw = str('ATENDE_GATEWAY_ORIGINS');
  let gatewayOrigins: string[] | '*' | null = originsRaw === '*' ? '*' : null;
  if (originsRaw !== null && originsRaw !== '*') {
    gatewayOrigins = originsRaw.split(',').map((o) => o.trim().replace(/\/$/, ''));
    const bad = gatewayOrigins.filter((o) => !/^https?:\/\/[^/\s]+$/.test(o));
    if (bad.length > 0) {
      problems.push(
        `ATENDE_GATEWAY_ORIGINS must be * or a comma-separated list of origins like https://console.example.com (got "${bad.join('", "')}")`,
      );
    }
  }

  const metricsToken = str('ATENDE_METRICS_TOKEN');
  if (metricsToken !== null && metricsToken.length < 16) {
    problems.push('ATENDE_METRICS_TOKEN must be at least 16 characters long');
  }

  const config: Config = {
    host: str('HOST') ?? '0.0.0.0',
    port: int('PORT', 3000, 0, 65535),
    gatewayPort: int('GATEWAY_PORT', 3001, 0, 65535),
    databaseUrl: url('DATABASE_URL', ['postgres:', 'postgresql:']),
    dbPoolSize: int('ATENDE_DB_POOL_SIZE', defaultPoolSize(), 1, 1_000),
    redisUrl: url('REDIS_URL', ['redis:', 'rediss:']),
    dataDir: path.resolve(str('ATENDE_DATA_DIR') ?? './.data'),
    jwtSecret,
    jwtTtlSeconds: int('ATENDE_JWT_TTL_SECONDS', 12 * 3600, 60, 30 * 24 * 3600),
    adminEmail: adminEmail?.toLowerCase() ?? null,
    adminPassword,
    logLevel,
    roles,
    rateLimit: {
      points: int('ATENDE_RATE_LIMIT_POINTS', 120, 1, 100_000_000),
      durationSeconds: int('ATENDE_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
    },
    channelKeyRateLimit: {
      points: int('ATENDE_CHANNEL_KEY_RATE_LIMIT_POINTS', 6000, 1, 100_000_000),
      durationSeconds: int('ATENDE_CHANNEL_KEY_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
    },
    userRateLimit: {
      points: int('ATENDE_USER_RATE_LIMIT_POINTS', 1200, 1, 100_000_000),
      durationSeconds: int('ATENDE_USER_RATE_LIMIT_WINDOW_SECONDS', 60, 1, 86_400),
    },
    loginRateLimit: {
      maxFailuresPerEmail: int('ATENDE_LOGIN_MAX_FAILURES', 10, 1, 1_000_000),
      maxFailuresPerIp: int('ATENDE_LOGIN_MAX_FAILURES_PER_IP', 50, 1, 1_000_000),
      windowSeconds: int('ATENDE_LOGIN_WINDOW_SECONDS', 15 * 60, 1, 86_400),
    },
    trustProxy,
    cookieSecure,
    bodyLimitBytes: int('ATENDE_BODY_LIMIT_BYTES', 64 * 1024, 1024, 200 * 1024 * 1024),
    http: {
      requestTimeoutMs: int('ATENDE_REQUEST_TIMEOUT_MS', 60_000, 500, 3_600_000),
      headersTimeoutMs: int('ATENDE_HEADERS_TIMEOUT_MS', 15_000, 500, 3_600_000),
      connectionTimeoutMs: int('ATENDE_CONNECTION_TIMEOUT_MS', 120_000, 500, 3_600_000),
      keepAliveTimeoutMs: int('ATENDE_KEEP_ALIVE_TIMEOUT_MS', 72_000, 500, 3_600_000),
    },
    phoneDefaultCountry,
    whatsapp: {
      graphBaseUrl: url('WHATSAPP_GRAPH_BASE_URL', ['https:', 'http:']) ?? 'https://graph.facebook.com',
      graphVersion,
      timeoutMs: int('WHATSAPP_TIMEOUT_MS', 15_000, 100, 600_000),
    },
    gatewayOrigins,
    eventRetentionDays: int('ATENDE_EVENT_RETENTION_DAYS', 7, 1, 3650),
    activityRetentionDays: int('ATENDE_ACTIVITY_RETENTION_DAYS', 365, 1, 3650),
    snoozePollMs: int('ATENDE_SNOOZE_POLL_MS', 30_000, 100, 3_600_000),
    botPollMs: int('ATENDE_BOT_POLL_MS', 5_000, 100, 3_600_000),
    flowPollMs: int('ATENDE_FLOW_POLL_MS', 10_000, 100, 3_600_000),
    slaPollMs: int('ATENDE_SLA_POLL_MS', 30_000, 100, 3_600_000),
    assignment: {
      pollMs: int('ATENDE_ASSIGNMENT_POLL_MS', 5_000, 100, 3_600_000),
      availabilityGraceMs: int('ATENDE_AVAILABILITY_GRACE_MS', 60_000, 300, 86_400_000),
    },
    webhooks: {
      timeoutMs: int('ATENDE_WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
      retryBaseMs: int('ATENDE_WEBHOOK_RETRY_BASE_MS', 10_000, 10, 3_600_000),
      retryWindowSeconds: int('ATENDE_WEBHOOK_RETRY_WINDOW_SECONDS', 24 * 3600, 1, 7 * 24 * 3600),
      endpointConcurrency: int('ATENDE_WEBHOOK_ENDPOINT_CONCURRENCY', 16, 1, 256),
      allowPrivateNetworks: bool('ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    },
    gatewayRecoveryMs: 2 * 60 * 1000,
    redisHeartbeatMs: 5_000,
    publicGatewayUrl: url('ATENDE_PUBLIC_GATEWAY_URL', ['http:', 'https:'])?.replace(/\/$/, '') ?? null,
    consoleDir: defaultConsoleDir(),
    metrics: {
      port: str('ATENDE_METRICS_PORT') === null ? null : int('ATENDE_METRICS_PORT', 0, 0, 65535),
      token: metricsToken,
    },
    tracing: {
      endpoint: url('OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']),
      serviceName: str('OTEL_SERVICE_NAME') ?? 'atende',
    },
  };
  // A delivery is removed with its event, so it must be settled before the event log lets it go.
  if (config.webhooks.retryWindowSeconds > config.eventRetentionDays * 24 * 3600) {
    problems.push('ATENDE_WEBHOOK_RETRY_WINDOW_SECONDS must not exceed ATENDE_EVENT_RETENTION_DAYS');
  }
  if (config.activityRetentionDays < config.eventRetentionDays) {
    problems.push('ATENDE_ACTIVITY_RETENTION_DAYS must not be less than ATENDE_EVENT_RETENTION_DAYS');
  }
  // One port cannot serve both: the second listener would fail only after the database had started.
  if (config.port !== 0 && config.port === config.gatewayPort) {
    problems.push(`PORT and GATEWAY_PORT must differ (both are ${config.port})`);
  }
  const metricsPort = config.metrics.port;
  if (metricsPort !== null && metricsPort !== 0) {
    for (const [name, port] of [
      ['PORT', config.port],
      ['GATEWAY_PORT', config.gatewayPort],
    ] as const) {
      if (port === metricsPort)
        problems.push(`ATENDE_METRICS_PORT and ${name} must differ (both are ${port})`);
    }
  }
  // The headers are part of the request: Node refuses a headers timeout longer than the request's.
  config.http.headersTimeoutMs = Math.min(config.http.headersTimeoutMs, config.http.requestTimeoutMs);
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * Connections a node opens to PostgreSQL unless ATENDE_DB_POOL_SIZE says: about two per core plus a
 * few, at most 20. More backends than the cores can run spend the CPU on contention (measured on 2
 * cores: transfers +20 % with 8 connections instead of 20, lists unchanged; bench/README.md).
 */
export function defaultPoolSize(cores = os.availableParallelism()): number {
  return Math.min(20, 2 * cores + 4);
}
