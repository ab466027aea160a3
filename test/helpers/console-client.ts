import { io, type Socket } from 'socket.io-client';
import { http } from './fault-cluster.js';

/**
 * A gateway client that behaves like the web console (web/src/session/gateway-client.ts): it
 * reconnects by itself, subscribes again after every connect, and when a connection's session was not
 * recovered it catches up through `GET /api/events?after=<last seq>`. It keeps every envelope it got,
 * live or by resync.
 */

export interface Envelope {
  id: string;
  event: string;
  seq: number;
  data: Record<string, unknown>;
}

export class ConsoleClient {
  readonly socket: Socket;
  /** Envelopes by id, with how each arrived. */
  readonly events = new Map<string, { envelope: Envelope; via: 'live' | 'resync'; at: number }>();
  lastSeq: number | null = null;
  /** Connections so far (reconnections included). */
  connects = 0;
  private readonly waiters = new Set<() => void>();

  private constructor(
    gatewayUrl: string,
    private readonly apiUrl: string,
    private readonly token: string,
    private readonly subscribe: { userId: string; teamIds: string[]; attendance?: string },
    transports: Array<'websocket' | 'polling'>,
  ) {
    this.socket = io(gatewayUrl, {
      path: '/socket.io',
      transports,
      forceNew: true,
      auth: { token },
      reconnectionDelay: 200,
      reconnectionDelayMax: 1000,
    });
    this.socket.on('session.ready', (ready: { seq?: unknown }) => {
      if (typeof ready?.seq === 'number' && this.lastSeq === null) this.lastSeq = ready.seq;
    });
    this.socket.onAny((event: string, payload: unknown) => {
      if (event === 'session.ready' || !payload || typeof payload !== 'object') return;
      this.add(payload as Envelope, 'live');
    });
    this.socket.on('connect', () => {
      const first = this.connects++ === 0;
      const recovered = this.socket.recovered;
      void this.resubscribe().then(() => (first || recovered ? undefined : this.resync()));
    });
  }

  /** Connects, subscribes, and resolves once the subscriptions are acknowledged. */
  static async open(
    gatewayUrl: string,
    apiUrl: string,
    token: string,
    subscribe: { userId: string; teamIds: string[]; attendance?: string },
    /** WebSocket only by default; `['polling']` is HTTP long-polling only (sticky sessions needed). */
    transports: Array<'websocket' | 'polling'> = ['websocket'],
  ): Promise<ConsoleClient> {
    const client = new ConsoleClient(gatewayUrl, apiUrl, token, subscribe, transports);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no gateway connection to ${gatewayUrl}`)), 30_000);
      client.socket.once('connect', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    await client.resubscribe();
    return client;
  }

  private async resubscribe(): Promise<void> {
    const ack = (event: string, arg: unknown) =>
      this.socket
        .timeout(10_000)
        .emitWithAck(event, arg)
        .catch(() => null);
    await ack('user_logged_in', this.subscribe.userId);
    await ack('user_join_team', this.subscribe.teamIds);
    if (this.subscribe.attendance) await ack('user_start_attendance', this.subscribe.attendance);
  }

  /** What the console does after a connection that was not recovered: read the missed events. */
  private async resync(): Promise<void> {
    let after = this.lastSeq ?? 0;
    for (let page = 0; page < 100; page++) {
      const res = await http(this.apiUrl, 'GET', `/api/events?after=${after}&limit=100`, {
        headers: { authorization: `Bearer ${this.token}` },
        timeoutMs: 10_000,
      }).catch(() => null);
      if (!res || res.status !== 200) return;
      for (const e of res.json.events as Envelope[]) this.add(e, 'resync');
      if (!res.json.hasMore) return;
      after = res.json.nextAfter as number;
    }
  }

  private add(envelope: Envelope, via: 'live' | 'resync'): void {
    if (typeof envelope.seq === 'number' && (this.lastSeq === null || envelope.seq > this.lastSeq)) {
      this.lastSeq = envelope.seq;
    }
    if (!this.events.has(envelope.id)) this.events.set(envelope.id, { envelope, via, at: Date.now() });
    for (const w of [...this.waiters]) w();
  }

  /** The first envelope for which `match` holds, past or future; null after `boundMs` (a hang detector). */
  waitFor(match: (e: Envelope) => boolean, boundMs: number): Promise<Envelope | null> {
    return new Promise((resolve) => {
      const look = () => {
        for (const { envelope } of this.events.values()) {
          if (match(envelope)) {
            finish(envelope);
            return;
          }
        }
      };
      const timer = setTimeout(() => finish(null), boundMs);
      const finish = (e: Envelope | null) => {
        clearTimeout(timer);
        this.waiters.delete(look);
        resolve(e);
      };
      this.waiters.add(look);
      look();
    });
  }

  close(): void {
    this.socket.disconnect();
  }
}
