import { createAdapter } from '@socket.io/redis-streams-adapter';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Server, type ServerOptions } from 'socket.io';

/**
 * Every packet a gateway emits to a room goes through this Redis stream; every node reads it, and a
 * reconnecting client's missed packets are read back from it, so recovery works on any node. The
 * stream is trimmed to about MAX_LEN entries: a burst larger than that within the recovery window
 * makes recovery fail, and the client resyncs through `GET /api/events` instead.
 */
const STREAM = { streamName: 'atende:socket.io', channelPrefix: 'atende:socket.io' };
const MAX_LEN = 50_000;

export interface RedisAdapter {
  adapter: NonNullable<ServerOptions['adapter']>;
  close(): Promise<void>;
}

/** The Redis Streams adapter on a connection of its own (it duplicates it for its blocking reads). */
export function redisAdapter(redisUrl: string, logger: Logger): RedisAdapter {
  const client = new Redis(redisUrl, { maxRetriesPerRequest: 2 });
  client.on('error', (err) => logger.warn({ err: err.message }, 'gateway redis error'));
  const adapter = createAdapter(client, {
    ...STREAM,
    sessionKeyPrefix: 'atende:sio:session:',
    maxLen: MAX_LEN,
    // Idle blocking reads end this often; a closing node waits for the current one to end.
    blockTimeInMs: 1_000,
  }) as NonNullable<ServerOptions['adapter']>;
  return {
    adapter,
    close: async () => {
      await client.quit().catch(() => client.disconnect());
    },
  };
}

/**
 * Options shared by the gateway and the broadcast-only server, so packets carry recovery offsets.
 * Within the window (`config.gatewayRecoveryMs`, the contract's 2 minutes) rooms and missed packets
 * come back. Auth middleware is skipped on recovery: the identity comes back with the session.
 */
export const recoveryOptions = (windowMs: number): Partial<ServerOptions> => ({
  connectionStateRecovery: { maxDisconnectionDuration: windowMs, skipMiddlewares: true },
});

/**
 * For processes without the gateway role but with Redis (API-only or worker-only nodes): a Socket.IO
 * server that never listens, whose emits go into the Redis stream for the gateway nodes to deliver.
 */
export function startBroadcaster(
  redisUrl: string,
  windowMs: number,
  logger: Logger,
): { io: Server; close(): Promise<void> } {
  const redis = redisAdapter(redisUrl, logger);
  const io = new Server({ ...recoveryOptions(windowMs), adapter: redis.adapter });
  return {
    io,
    close: async () => {
      // Server.close() expects an attached engine; this server has none, only the adapter to stop.
      await io.of('/').adapter.close();
      await redis.close();
    },
  };
}
