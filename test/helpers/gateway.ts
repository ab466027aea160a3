import { io, type Socket } from 'socket.io-client';

export interface Received {
  event: string;
  payload: unknown;
}

export interface GatewayClient {
  socket: Socket;
  /** Every event received so far, in arrival order (session.ready included). */
  received: Received[];
  /** Resolves with the next event named `event` (matching `pred`) not taken yet, past or future. */
  next(event: string, pred?: (payload: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
  /** Envelopes of log events received (everything but session.ready). */
  events(): Record<string, unknown>[];
  /** Emits a client event and resolves with its acknowledgement. */
  ack(event: string, arg: unknown): Promise<Record<string, unknown>>;
  /**
   * A round trip to the server on this connection. An event the server sent before it answers
   * arrives before the answer (one ordered connection, in-memory adapter), so after the gateway's
   * `tail.settled()` (every committed event sent) and `barrier()`, the absence of an event means it
   * was not sent to this client.
   */
  barrier(): Promise<void>;
  close(): void;
}

export interface ConnectOptions {
  token?: string;
  header?: string;
  cookie?: string;
  /** Manager options for the recovery tests. */
  reconnection?: boolean;
  reconnectionDelay?: number;
}

function options(o: ConnectOptions) {
  const extraHeaders: Record<string, string> = {};
  if (o.header !== undefined) extraHeaders.authorization = o.header;
  if (o.cookie !== undefined) extraHeaders.cookie = o.cookie;
  return {
    path: '/socket.io',
    transports: ['websocket'],
    forceNew: true,
    extraHeaders,
    auth: o.token !== undefined ? { token: o.token } : {},
    reconnection: o.reconnection ?? false,
    reconnectionDelay: o.reconnectionDelay ?? 100,
    reconnectionDelayMax: o.reconnectionDelay ?? 100,
  };
}

/** Connects and waits for `session.ready`; rejects with the connect_error. */
export async function connect(url: string, o: ConnectOptions = {}): Promise<GatewayClient> {
  const socket = io(url, options(o));
  const received: Received[] = [];
  const taken = new Set<number>();
  const waiters: (() => void)[] = [];
  socket.onAny((event: string, payload: unknown) => {
    received.push({ event, payload });
    for (const w of waiters.splice(0)) w();
  });
  const client: GatewayClient = {
    socket,
    received,
    next: (event, pred = () => true) =>
      new Promise((resolve) => {
        const look = () => {
          const i = received.findIndex(
            (r, idx) => !taken.has(idx) && r.event === event && pred(r.payload as Record<string, unknown>),
          );
          if (i >= 0) {
            taken.add(i);
            resolve(received[i]!.payload as Record<string, unknown>);
          } else waiters.push(look);
        };
        look();
      }),
    events: () =>
      received.filter((r) => r.event !== 'session.ready').map((r) => r.payload as Record<string, unknown>),
    ack: (event, arg) => socket.timeout(10_000).emitWithAck(event, arg) as Promise<Record<string, unknown>>,
    barrier: async () => {
      await client.ack('user_join_team', []);
    },
    close: () => {
      socket.disconnect();
    },
  };
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (err) => {
      socket.disconnect();
      reject(err);
    });
  });
  await client.next('session.ready');
  return client;
}

/** The connect_error a handshake gets (the connection is refused). */
export async function connectError(url: string, o: ConnectOptions = {}): Promise<Error> {
  const socket = io(url, options(o));
  try {
    return await new Promise<Error>((resolve, reject) => {
      socket.once('connect', () => reject(new Error('connected, but a refusal was expected')));
      socket.once('connect_error', resolve);
    });
  } finally {
    socket.disconnect();
  }
}

/** The recovery id socket.io-client keeps for a connection (sent back on reconnection). */
export const pidOf = (socket: Socket): string | undefined => (socket as unknown as { _pid?: string })._pid;
