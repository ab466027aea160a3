/**
 * Failures that mean "the database cannot be reached right now" — it is down, restarting, failing
 * over, or a DBA ended the connection — as opposed to a query it refused. Requests that meet one answer
 * 503 with Retry-After (src/http/errors.ts) instead of a 500, and the node carries on: the pool opens
 * new connections once the database is back.
 */

/** Socket-level failures on the way to the server. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server going away or not taking connections: admin_shutdown (a restart, a
 * pg_terminate_backend), crash_shutdown, cannot_connect_now (starting up or shutting down),
 * too_many_connections, and class 08 (connection exception).
 */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** node-postgres's own words for a lost or unobtainable connection. */
const MESSAGES = [
  /^Connection terminated/,
  /is not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Client was closed/,
];

/** Whether `err` (from pg or the socket under it) says the database is unreachable. */
export function isConnectionFailure(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message, errors } = err as { code?: unknown; message?: unknown; errors?: unknown };
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true;
  }
  if (typeof message === 'string' && MESSAGES.some((m) => m.test(message))) return true;
  // Connecting to a name with several addresses fails with one error per address.
  return Array.isArray(errors) && errors.length > 0 && errors.every(isConnectionFailure);
}

const unavailable = new WeakSet<object>();

/** Marks an error met on the platform's database connection as "database unavailable". */
export function markUnavailable(err: unknown): void {
  if (typeof err === 'object' && err !== null) unavailable.add(err);
}

/** Whether `err` (or an error it was caused by) was marked by `markUnavailable`. */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; typeof e === 'object' && e !== null && depth < 5; depth++) {
    if (unavailable.has(e)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
