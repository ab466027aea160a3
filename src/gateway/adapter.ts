import { createAdapter } from '@socket.io/redis-streams-adapter';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { ServerOptions } from 'socket.io';
import type { RedisLink } from '../events/tail.js';

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
  /** Whether the adapter's connection is up, for the event tail (src/events/tail.ts). */
  link: RedisLink;
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
    link: {
      ready: () => client.status === 'ready',
      onChange: (fn) => {
        for (const e of ['ready', 'close', 'end', 'reconnecting']) client.on(e, fn);
      },
    },
    close: async () => {
      await client.quit().catch(() => client.disconnect());
    },
  };
}

/**
 * The gateway's recovery options, so packets carry recovery offsets.
 * Within the window (`config.gatewayRecoveryMs`, the contract's 2 minutes) rooms and missed packets
 * come back. Auth middleware is skipped on recovery: the identity comes back with the session.
 */
export const recoveryOptions = (windowMs: number): Partial<ServerOptions> => ({
  connectionStateRecovery: { maxDisconnectionDuration: windowMs, skipMiddlewares: true },
});
