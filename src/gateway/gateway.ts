import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import type { Logger } from 'pino';
import { Server, type Socket } from 'socket.io';
import type { Config } from '../config.js';
import { SESSION_READY, type AckError, type SessionReadyT } from '../events/catalogue.js';
import { room } from '../events/rooms.js';
import { EventTail } from '../events/tail.js';
import { bearerFrom } from '../http/auth.js';
import { AppError } from '../http/errors.js';
import { namePortError } from '../http/ports.js';
import { httpServerOptions } from '../http/timeouts.js';
import { isObjectId } from '../lib/ids.js';
import type { UserActor } from '../access/actors.js';
import type { EventsRepo } from '../events/events.repo.js';
import type { EventsService } from '../events/events.service.js';
import type { AuthService } from '../modules/auth/index.js';
import type { GatewayConnections } from '../modules/assignment/index.js';
import type { GatewayAccess } from './access.js';
import type { GatewayRepo } from './gateway.repo.js';
import { guardRecovery, recoveryOptions, redisAdapter, type RedisAdapter } from './adapter.js';
import { evictStaleWatchers } from './eviction.js';
import { originAllowed, type OriginPolicy } from './origins.js';
import { installPresence, type PresenceData, type PresenceServices } from './presence.js';
import { mayRecover, revokeLostAccess } from './revoke.js';

/** What the gateway uses of the services (built in src/services.ts). */
export interface GatewayServices extends PresenceServices {
  auth: Pick<AuthService, 'session'>;
  gatewayAccess: GatewayAccess;
  gatewayRepo: GatewayRepo;
  events: EventsService;
  eventsRepo: EventsRepo;
  /** The node's connections per user, for availability (absent: not recorded). */
  gatewayConnections?: Pick<GatewayConnections, 'opened' | 'closed' | 'start' | 'stop'>;
}

/** What a connection carries (restored with the session on recovery, so plain data only). */
export type SocketData = PresenceData;

/** Longest delay setTimeout takes; a later expiry is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

type Ack = (answer: Record<string, unknown>) => void;
type Events = Record<string, (...args: unknown[]) => void>;
type GatewaySocket = Socket<Events, Events, Events, SocketData>;
export type GatewayServer = Server<Events, Events, Events, SocketData>;

/** Most ids one subscription may name; a console shows far fewer. */
const MAX_IDS = 1_000;

export interface Gateway {
  io: Server;
  url: string;
  /** The tail of the event log that sends events to this gateway's clients. */
  tail: EventTail;
  close(): Promise<void>;
}

/**
 * The token of a handshake, from the first source present, in the contract's order: header
 * `Authorization: Bearer`, then `auth.token`, then the `access_token` cookie. A source that is present
 * decides, valid or not: a bad header is not saved by a good cookie.
 */
export function handshakeToken(handshake: {
  headers: Record<string, string | string[] | undefined>;
  auth: Record<string, unknown>;
}): string | null {
  const header = handshake.headers.authorization;
  const bearer = bearerFrom(header);
  if (bearer) return bearer;
  const token = handshake.auth.token;
  if (typeof token === 'string' && token !== '') return token;
  const cookie = handshake.headers.cookie;
  if (typeof cookie === 'string') {
    for (const part of cookie.split(';')) {
      const eq = part.indexOf('=');
      if (eq > 0 && part.slice(0, eq).trim() === 'access_token') {
        const value = part.slice(eq + 1).trim();
        try {
          return decodeURIComponent(value) || null;
        } catch {
          return value || null;
        }
      }
    }
  }
  return null;
}

/**
 * Starts the Socket.IO gateway on `config.gatewayPort`, and the tail of the event log that sends
 * committed events to its rooms (src/events/tail.ts). `apiPort` is the port the console is served
 * on, for the default origin policy (src/gateway/origins.ts).
 */
export async function startGateway(
  config: Config,
  databaseUrl: string,
  services: GatewayServices,
  logger: Logger,
  apiPort: () => number = () => config.port,
): Promise<Gateway> {
  const redis: RedisAdapter | null = config.redisUrl ? redisAdapter(config.redisUrl, logger) : null;
  // Request timeouts only: an upgraded WebSocket leaves them, and Socket.IO's pings watch it.
  const http = createServer(httpServerOptions(config.http));
  const origins: OriginPolicy = {
    configured: config.gatewayOrigins,
    apiPort,
    publicGatewayUrl: config.publicGatewayUrl,
  };
  const io: GatewayServer = new Server(http, {
    path: '/socket.io',
    ...recoveryOptions(config.gatewayRecoveryMs),
    ...(redis ? { adapter: redis.adapter } : {}),
    // Every transport's handshake (a WebSocket is not subject to CORS); CORS then lets the same
    // origins read polling answers, with credentials.
    allowRequest: (req, done) => {
      if (originAllowed(origins, req.headers)) done(null, true);
      else done('origin not allowed', false);
    },
    cors: (req, done) => {
      done(null, { origin: originAllowed(origins, req.headers), credentials: true });
    },
  });
  guardRecovery(io, (session) => mayRecover(services.gatewayAccess, session), logger);
  installGateway(io, services, logger);
  try {
    await new Promise<void>((resolve, reject) => {
      http.once('error', (err) =>
        reject(namePortError(err, 'GATEWAY_PORT', config.gatewayPort, config.host)),
      );
      http.listen(config.gatewayPort, config.host, () => {
        http.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    await io.close();
    await redis?.close();
    throw err;
  }
  const port = (http.address() as AddressInfo).port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const tail = new EventTail({
    connectionString: databaseUrl,
    repo: services.eventsRepo,
    horizon: services.events.horizon,
    everywhere: { emitter: io, after: afterSend(io, services) },
    here: { emitter: io.local, after: afterSend(io.local, services) },
    redis: redis?.link ?? null,
    windowMs: config.gatewayRecoveryMs,
    logger,
  });
  try {
    await tail.start();
    services.events.attachSender(tail);
    services.gatewayConnections?.start();
  } catch (err) {
    await tail.close();
    await io.close();
    await redis?.close();
    throw err;
  }
  return {
    io,
    url: `http://${host}:${port}`,
    tail,
    close: async () => {
      services.events.attachSender(null);
      await services.gatewayConnections?.stop();
      await tail.close();
      await io.close();
      await redis?.close();
    },
  };
}

/** What the tail does once events are out: rooms that transfers and access changes take away. */
function afterSend(io: GatewayServer | GatewayServer['local'], services: GatewayServices) {
  const watchers = evictStaleWatchers(io, services.gatewayRepo);
  const access = revokeLostAccess(io, services.gatewayAccess);
  return async (events: Parameters<typeof watchers>[0]) => {
    await watchers(events);
    await access(events);
  };
}

/** The expiry (ms since the epoch) of a token `authenticate` accepted. */
function expiryOf(token: string): number {
  const exp = decodeJwt(token).exp;
  return typeof exp === 'number' ? exp * 1000 : Number.POSITIVE_INFINITY;
}

/** Auth middleware, the four client events and `session.ready`, on any Socket.IO server. */
export function installGateway(io: GatewayServer, services: GatewayServices, logger: Logger): void {
  const access = services.gatewayAccess;

  io.use((socket, next) => {
    // On recovery the session's identity is back already (checked by guardRecovery): the handshake
    // must still carry a valid token of that same user.
    const restored = socket.recovered ? socket.data.user : null;
    const token = handshakeToken(socket.handshake);
    if (token === null) {
      if (restored) return next(new Error('unauthorized'));
      // Accepted without identity: every subscription is refused, so nothing is ever delivered.
      socket.data.user = null;
      return next();
    }
    services.auth.session(token).then(
      ({ actor, tokenVersion }) => {
        if (socket.recovered && actor.userId !== restored?.userId) return next(new Error('unauthorized'));
        socket.data.user = {
          userId: actor.userId,
          accountId: actor.accountId,
          tokenVersion,
          expiresAt: expiryOf(token),
        };
        next();
      },
      (err: unknown) => {
        // A refused token is the client's problem; anything else (the database away) is logged too.
        if (!(err instanceof AppError)) logger.error({ err }, 'gateway handshake failed');
        next(new Error('unauthorized'));
      },
    );
  });

  io.on('connection', (socket: GatewaySocket) => {
    const identity = socket.data.user;
    if (identity) {
      // Found by the user's id when their access changes (src/gateway/revoke.ts); on every node.
      // ...and its account's room, where what the whole account shares changes (labels).
      void Promise.resolve(
        socket.join([room.owner(identity.userId), room.account(identity.accountId)]),
      ).catch((err: unknown) => logger.warn({ err }, 'gateway: joining the user room failed'));
      // The connection lives no longer than its token: a client with a new token connects again.
      let timer: NodeJS.Timeout | null = null;
      const arm = () => {
        const left = identity.expiresAt - Date.now();
        if (left <= 0) {
          socket.disconnect(true);
          return;
        }
        timer = setTimeout(arm, Math.min(left, MAX_TIMER_MS));
        timer.unref();
      };
      arm();
      // Availability: a user with no connection left on any node goes offline after a while.
      services.gatewayConnections?.opened(identity.userId);
      socket.once('disconnect', () => {
        if (timer) clearTimeout(timer);
        services.gatewayConnections?.closed(identity.userId);
      });
    }

    // One subscription at a time per connection, in the order they were sent.
    let queue: Promise<void> = Promise.resolve();
    const on = (
      event: string,
      handler: (actor: UserActor, arg: unknown) => Promise<Record<string, unknown> | AckError>,
    ) => {
      socket.on(event, (arg: unknown, ack?: unknown) => {
        const reply: Ack = typeof ack === 'function' ? (ack as Ack) : () => undefined;
        queue = queue.then(async () => {
          try {
            const identity = socket.data.user;
            const actor = identity ? await access.actor(identity) : null;
            if (!actor) return reply({ ok: false, error: 'unauthenticated' });
            const answer = await handler(actor, arg);
            reply(typeof answer === 'string' ? { ok: false, error: answer } : { ok: true, ...answer });
          } catch (err) {
            logger.error({ err, event }, 'gateway subscription failed');
            reply({ ok: false, error: 'internal_error' });
          }
        });
      });
    };

    on('user_logged_in', async (actor, userId) => {
      if (typeof userId !== 'string') return 'invalid_argument';
      if (userId !== actor.userId) return 'forbidden';
      await socket.join(room.user(actor.userId));
      return { userId };
    });

    on('user_join_team', async (actor, arg) => {
      const ids = idList(arg);
      if (!ids) return 'invalid_argument';
      const allowed = await access.teamsFor(actor, ids.filter(isObjectId));
      const joined = ids.filter((id) => allowed.has(id));
      await socket.join(joined.map(room.team));
      return { joined, refused: ids.filter((id) => !allowed.has(id)) };
    });

    on('user_start_watch_chats', async (actor, arg) => {
      const ids = idList(arg);
      if (!ids) return 'invalid_argument';
      const visible = await access.chatsFor(actor, ids.filter(isObjectId));
      const watching = ids.filter((id) => visible.has(id));
      const next = new Set(watching.map(room.chat));
      // The new list replaces the old one: items no longer shown stop getting updates.
      for (const r of [...socket.rooms]) if (r.startsWith('chat:') && !next.has(r)) await socket.leave(r);
      await socket.join([...next]);
      return { watching, refused: ids.filter((id) => !visible.has(id)) };
    });

    const presence = installPresence(io, socket, on, services, logger);

    on('user_start_attendance', async (actor, chatId) => {
      if (typeof chatId !== 'string') return 'invalid_argument';
      if (!isObjectId(chatId) || !(await access.chatsFor(actor, [chatId])).has(chatId)) return 'not_found';
      // One conversation open at a time; leaving one leaves its presence too.
      presence.changed(await leaveConversations(socket, chatId));
      await socket.join(room.attendance(chatId));
      return { chatId };
    });

    on('user_stop_attendance', async () => {
      const left = await leaveConversations(socket, null);
      presence.changed(left);
      return { left };
    });

    void sendReady(io, socket, services).catch((err: unknown) =>
      logger.warn({ err }, 'session.ready not sent'),
    );
  });
}

/**
 * Socket.IO recovers only a client that has received a packet with an offset, and only packets
 * emitted to rooms carry one, so the first packet of every connection is emitted to its own room.
 */
async function sendReady(io: GatewayServer, socket: GatewaySocket, services: GatewayServices): Promise<void> {
  const user = socket.data.user;
  const ready: SessionReadyT = {
    userId: user?.userId ?? null,
    accountId: user?.accountId ?? null,
    seq: user ? await services.events.resumeSeq() : null,
    recovered: socket.recovered,
  };
  io.to(socket.id).emit(SESSION_READY, ready);
}

/**
 * Leaves the `attendance:` and `presence:` rooms of every conversation but `keep`; the chats whose
 * presence it left, whose watchers must hear of it.
 */
async function leaveConversations(socket: GatewaySocket, keep: string | null): Promise<string[]> {
  const presenceLeft: string[] = [];
  for (const r of [...socket.rooms]) {
    const [kind, id] = r.split(':', 2);
    if ((kind !== 'attendance' && kind !== 'presence') || id === keep) continue;
    await socket.leave(r);
    if (kind === 'presence' && id) presenceLeft.push(id);
  }
  return presenceLeft;
}

function idList(arg: unknown): string[] | null {
  if (!Array.isArray(arg) || arg.length > MAX_IDS) return null;
  if (!arg.every((x): x is string => typeof x === 'string')) return null;
  return [...new Set(arg)];
}
