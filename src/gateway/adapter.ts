import { createAdapter } from '@socket.io/redis-streams-adapter';
import { Redis, type Command, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { Server, ServerOptions } from 'socket.io';
import type { RedisLink } from '../events/tail.js';
import { failFastOptions } from '../lib/redis.js';

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

/** Idle blocking reads end this often; a closing node waits for the current one to end. */
const BLOCK_MS = 1_000;

/**
 * The adapter's publishing client fails fast (`failFastOptions`): while Redis is away, a packet
 * reaches this node's clients at once instead of after seconds of retries (the adapter publishes
 * first and delivers locally after, whatever the outcome), and other nodes miss it.
 * The adapter makes its reading connections with `duplicate()`; those must wait instead: a blocking
 * read may not be cut by the command timeout, a read refused at once would be retried in a tight
 * loop (the adapter polls again as soon as a read fails), and the subscription to the adapter's
 * channels, made once at start, must survive Redis starting after the node. So a duplicate queues
 * its commands while disconnected, and a blocking read ends (empty) a little after its BLOCK time
 * even on a connection that silently died.
 * The adapter also stores a dropped client's session with a command it never awaits: while Redis is
 * away that rejection would go unhandled and end the process. Every command's failure is therefore
 * marked handled here; the callers that await one (publishing, recovery) still see it.
 */
class AdapterClient extends Redis {
  /** The adapter's reading connections: a node hears other nodes only while they are up too. */
  readonly readers: Redis[] = [];
  private readonly readerListeners: (() => void)[] = [];

  /** Calls `fn` whenever this connection or one of its readers connects or loses its connection. */
  onLinkChange(fn: () => void): void {
    this.readerListeners.push(fn);
    for (const c of [this, ...this.readers]) for (const e of LINK_EVENTS) c.on(e, fn);
  }

  get linkReady(): boolean {
    return this.status === 'ready' && this.readers.every((r) => r.status === 'ready');
  }

  override sendCommand(command: Command, stream?: Parameters<Redis['sendCommand']>[1]): unknown {
    command.promise.catch(() => undefined);
    return super.sendCommand(command, stream);
  }

  override duplicate(override?: Partial<RedisOptions>): Redis {
    const reader = new Redis({
      ...this.options,
      commandTimeout: undefined,
      enableOfflineQueue: true,
      maxRetriesPerRequest: null,
      autoResendUnfulfilledCommands: true,
      blockingTimeout: BLOCK_MS + 1_000,
      ...override,
    });
    this.readers.push(reader);
    for (const fn of this.readerListeners) for (const e of LINK_EVENTS) reader.on(e, fn);
    return reader;
  }
}

const LINK_EVENTS = ['ready', 'close', 'end', 'reconnecting'];

/** The Redis Streams adapter on a connection of its own (it duplicates it for its blocking reads). */
export function redisAdapter(redisUrl: string, logger: Logger): RedisAdapter {
  const client = new AdapterClient(redisUrl, { ...failFastOptions, connectionName: 'atende-gateway' });
  // Repeats on every reconnect attempt; the outage itself is reported once by the Redis health monitor.
  client.on('error', (err: Error) => logger.debug({ err: err.message }, 'gateway redis error'));
  const adapter = createAdapter(client, {
    ...STREAM,
    sessionKeyPrefix: 'atende:sio:session:',
    maxLen: MAX_LEN,
    blockTimeInMs: BLOCK_MS,
  }) as NonNullable<ServerOptions['adapter']>;
  return {
    adapter,
    link: {
      // Ready only once the reading connections are back too: until then the stream's entries would
      // not reach this node's clients, so this node keeps sending to them itself (the tail's fallback).
      ready: () => client.linkReady,
      onChange: (fn) => client.onLinkChange(fn),
    },
    close: async () => {
      await client.quit().catch(() => client.disconnect());
    },
  };
}

/**
 * The gateway's recovery options, so packets carry recovery offsets.
 * Within the window (`config.gatewayRecoveryMs`, the contract's 2 minutes) rooms and missed packets
 * come back. The auth middleware still runs on recovery: the handshake's token is checked again, and
 * must be the restored identity's (src/gateway/gateway.ts); `guardRecovery` decides earlier.
 */
export const recoveryOptions = (windowMs: number): Partial<ServerOptions> => ({
  connectionStateRecovery: { maxDisconnectionDuration: windowMs, skipMiddlewares: false },
});

/** A session as the adapter restores it. */
export interface RestoredSession {
  data: unknown;
  rooms: readonly string[];
}

/**
 * Socket.IO sends a restored session's missed packets as soon as it restores it, before any
 * middleware runs, so whether a session may come back is decided here, on the adapter of the main
 * namespace (the in-memory one or Redis's alike): a session refused (or that cannot be checked) is
 * treated as expired, and the client connects afresh.
 */
export function guardRecovery(
  io: Server,
  may: (session: RestoredSession) => Promise<boolean>,
  logger: Logger,
): void {
  const adapter = io.of('/').adapter;
  const restore = adapter.restoreSession.bind(adapter);
  adapter.restoreSession = async (pid, offset) => {
    const session = await restore(pid, offset);
    if (!session) return session;
    const allowed = await may(session).catch((err: unknown) => {
      logger.warn({ err }, 'gateway: could not check a session to recover');
      return false;
    });
    // The adapter's own "no session" (Socket.IO then connects afresh).
    return allowed ? session : (null as unknown as typeof session);
  };
}
