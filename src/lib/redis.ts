import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';

/**
 * How long a Redis command may take before it fails. Every Redis use on a request's path (rate
 * limits, the gateway's publish) has a fallback, so a dead or hung Redis costs a request at most this.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 500;

/**
 * Options for a client used while serving requests: fail at once instead of waiting for Redis.
 * - `enableOfflineQueue: false`: while disconnected, commands are refused on the spot rather than
 *   queued until a reconnect (ioredis's default made a login wait seconds on a stopped Redis).
 * - `commandTimeout`: a connection that is up but gets no answer (a hung or paused Redis) fails too.
 * - `maxRetriesPerRequest: 0`, `autoResendUnfulfilledCommands: false`: a command cut by a dropped
 *   connection fails rather than being sent again later, when its caller has long moved on (a rate
 *   limit counted twice).
 * - `connectTimeout`: a connection attempt to an unreachable host ends within a second (default 10 s).
 * - `retryStrategy`: reconnect forever, at most every 2 s, so the node comes back with Redis by itself.
 */
export const failFastOptions: RedisOptions = {
  enableOfflineQueue: false,
  commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
  maxRetriesPerRequest: 0,
  autoResendUnfulfilledCommands: false,
  connectTimeout: 1_000,
  retryStrategy: (times) => Math.min(times * 100, 2_000),
};

/**
 * A fail-fast client (see `failFastOptions`). Connection errors repeat on every reconnect attempt,
 * so they are logged at debug level only: the Redis health monitor reports the outage once.
 */
export function failFastRedis(url: string, logger: Logger, name: string): Redis {
  const client = new Redis(url, { ...failFastOptions, connectionName: `atende-${name}` });
  client.on('error', (err: Error) => logger.debug({ err: err.message, client: name }, 'redis error'));
  return client;
}
