import pg from 'pg';
import type { Logger } from 'pino';
import type { Envelope } from './catalogue.js';
import { EVENTS_CHANNEL, TAIL_BATCH, type EventsRepo, type TailRow } from './events.repo.js';
import { toEnvelope } from './events.service.js';
import { HORIZON_POLL_MS, type EventHorizon } from './horizon.js';

/** What sending needs of a Socket.IO server (or of its `local` operator). */
export interface RoomEmitter {
  to(rooms: string | string[]): { emit(event: string, payload: Envelope): boolean };
}

/** An envelope and the rooms it goes to. */
export interface Routed {
  envelope: Envelope;
  rooms: string[];
}

/** Work after an event is out, before the next one, e.g. dropping watchers who may no longer see a chat. */
export type AfterSend = (events: readonly Routed[]) => Promise<void>;

/** Where events go: through the adapter (every node) or to this node's sockets only. */
export interface Outlet {
  emitter: RoomEmitter;
  after: AfterSend | null;
}

/** Redis as the tail sees it: whether the adapter's connection is up, and word when that changes. */
export interface RedisLink {
  ready(): boolean;
  onChange(fn: () => void): void;
}

/**
 * - `solo`: no Redis; this process sends to its own sockets, from the seq current at start.
 * - `leader`: Redis up and this node holds the tail lock: it sends for every node, through Redis,
 *   and records its cursors so the next leader continues from them.
 * - `fallback`: Redis down (for this node); it sends to its own sockets and lets go of the lock.
 * - `off`: Redis up and another node leads (or the tail is closed).
 */
type Mode = 'solo' | 'leader' | 'fallback' | 'off';

/** Advisory lock held, on the listening connection, by the one node that tails for every node. */
const LOCK_KEY = 0x61746e64; // 'atnd'

/** How often the tail checks the log (and leadership) without a notification. */
const SWEEP_MS = 1_000;

/** How long a starting node waits for Redis before tailing for itself. */
const START_WAIT_MS = 2_000;

/** Longest a writer in the gateway's process waits for its events to be sent before answering. */
const SENT_WAIT_MS = 1_000;

/** Wait before connecting again after the listening connection is lost. */
const RECONNECT_MS = 1_000;

/**
 * Entering fallback, events of the last few seconds are sent again to this node's sockets: the
 * leader may have sent them only to its own while Redis was failing, before anyone noticed.
 */
const FALLBACK_REWIND_MS = 5_000;

/**
 * Sends committed events to Socket.IO rooms by tailing the event log: a writer only rings the doorbell
 * after its commit (src/db/doorbell.ts), so an event is sent even when its writer dies right after
 * commit, and a node without the gateway needs nothing but the database. The log is read in seq order
 * from one cursor, up to the horizon (src/events/horizon.ts): every seq up to it is committed or never
 * will be, so reading `seq > cursor` never skips an event that commits late.
 *
 * Wake-ups only say "read now"; a sweep every second catches up whatever a lost one hid. Delivery is
 * at least once: a new leader, or a node falling back while Redis is down, may send an event again
 * (clients de-duplicate by seq). On start or takeover nothing older than the recovery window is sent:
 * a client away that long resyncs through `GET /api/events`.
 */
export class EventTail {
  private client: pg.Client | null = null;
  private locked = false;
  private mode: Mode = 'off';
  /** The last seq sent (every event up to it is sent, or was never to be). */
  private cursor = 0;
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private sweepTimer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private failing = false;
  /** Writers in this process waiting until their events are sent (`sent`). */
  private waiters: { seq: number; done: () => void }[] = [];

  constructor(
    private readonly opts: {
      connectionString: string;
      repo: EventsRepo;
      /** Shared with this process's resync feed. */
      horizon: EventHorizon;
      /** Sends through the adapter: to every node's sockets when Redis is up. */
      everywhere: Outlet;
      /** Sends to this node's sockets only (fallback while Redis is down). */
      here: Outlet;
      /** Null without Redis: the process tails for itself. */
      redis: RedisLink | null;
      windowMs: number;
      logger: Logger;
    },
  ) {
    opts.redis?.onChange(() => this.kick());
  }

  async start(): Promise<void> {
    const { redis } = this.opts;
    if (redis && !redis.ready()) {
      // Connecting at start-up is not an outage: give Redis a moment before falling back.
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, START_WAIT_MS);
        redis.onChange(() => {
          if (!redis.ready()) return;
          clearTimeout(timer);
          resolve();
        });
      });
    }
    await this.connect();
    this.sweepTimer = setInterval(() => this.kick(), SWEEP_MS);
    this.sweepTimer.unref();
    this.kick();
    await this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    if (this.pollTimer) clearTimeout(this.pollTimer);
    await this.running;
    this.release();
    const client = this.client;
    this.client = null;
    this.locked = false;
    await client?.end().catch(() => undefined);
  }

  /** Whether this node sends events now, and how. */
  get state(): Mode {
    return this.mode;
  }

  /**
   * For a writer in this process (EventsService): resolves once this node has sent the events up to
   * `seq`, at once when it does not send them (another node leads), and after SENT_WAIT_MS at most.
   */
  sent(seq: number): Promise<void> {
    if (this.closed || this.mode === 'off' || this.cursor >= seq) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => waiter.done(), SENT_WAIT_MS);
      const waiter = {
        seq,
        done: () => {
          clearTimeout(timer);
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve();
        },
      };
      this.waiters.push(waiter);
      this.kick();
    });
  }

  /** Lets go of the writers whose events are out (or that this node no longer sends). */
  private release(): void {
    const all = this.closed || this.mode === 'off';
    for (const w of [...this.waiters]) if (all || this.cursor >= w.seq) w.done();
  }

  /**
   * Resolves once every event committed before the call has been sent by this node, or at once when
   * this node does not send (another node leads).
   */
  async settled(): Promise<void> {
    const upTo = await this.opts.horizon.fresh();
    for (;;) {
      if (this.closed || this.mode === 'off' || this.cursor >= upTo) return;
      this.kick();
      await this.running;
      if (this.failing) await new Promise((r) => setTimeout(r, 50));
    }
  }

  private async connect(): Promise<void> {
    this.reconnectTimer = null;
    if (this.closed) return;
    // Named, so that operators (and tests) can tell the tail's connection from the workers' listeners.
    const client = new pg.Client({
      connectionString: this.opts.connectionString,
      keepAlive: true,
      application_name: 'atende-event-tail',
    });
    let gone = false;
    const lost = (err?: Error) => {
      if (gone) return;
      gone = true;
      if (this.client === client) {
        this.client = null;
        this.locked = false;
        this.opts.logger.warn({ err: err?.message }, 'event tail: database connection lost');
      }
      void client.end().catch(() => undefined);
      if (!this.closed && !this.reconnectTimer) {
        this.reconnectTimer = setTimeout(() => void this.connect(), RECONNECT_MS);
        this.reconnectTimer.unref();
      }
      this.kick();
    };
    // A dropped connection must never end the process: it is replaced, and the sweep covers the gap.
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (msg) => {
      if (msg.channel === EVENTS_CHANNEL) this.kick();
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    } catch (err) {
      lost(err as Error);
      return;
    }
    if (this.closed || gone) {
      void client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // Wake-ups sent while no connection listened are lost: look now.
    this.kick();
  }

  /** Runs the loop, or asks the running one to go round again. */
  private kick(): void {
    if (this.closed && this.mode === 'off') return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
    });
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.step();
        this.failing = false;
      } catch (err) {
        // The database away: the sweep tries again; the cursor has not moved past what was sent.
        if (!this.failing) this.opts.logger.warn({ err }, 'event tail: reading the event log failed');
        this.failing = true;
        return;
      }
    } while (this.again);
    // Writers still running hold the horizon back: look again shortly rather than at the next sweep.
    if (this.opts.horizon.waiting && !this.closed && this.mode !== 'off' && !this.pollTimer) {
      this.pollTimer = setTimeout(() => {
        this.pollTimer = null;
        this.kick();
      }, HORIZON_POLL_MS);
      this.pollTimer.unref();
    }
  }

  private async step(): Promise<void> {
    const mode = await this.wanted();
    if (mode !== this.mode) await this.enter(mode);
    if (this.mode === 'off') {
      this.release();
      return;
    }
    while (!this.closed && (await this.sendBatch()));
  }

  /** The mode this node should be in; takes the tail lock when Redis is up and nobody holds it. */
  private async wanted(): Promise<Mode> {
    const { redis } = this.opts;
    if (this.closed) return 'off';
    if (!redis) return 'solo';
    const client = this.client;
    if (!redis.ready()) {
      // Let a node that still reaches Redis lead: this one may be the only one cut off from it.
      if (this.locked && client) {
        this.locked = false;
        await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]);
      }
      return 'fallback';
    }
    if (!this.locked && client) {
      const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [
        LOCK_KEY,
      ]);
      // The connection may have been lost (and the lock with it) while asking.
      this.locked = rows[0]?.ok === true && this.client === client;
    }
    return this.locked ? 'leader' : 'off';
  }

  /** Where the cursor starts in `mode`. */
  private async enter(mode: Mode): Promise<void> {
    const { repo, logger, windowMs, horizon } = this.opts;
    if (mode === 'solo') {
      this.cursor = await horizon.fresh();
    } else if (mode === 'leader') {
      // From where the previous leader stopped, but nothing older than the recovery window.
      const s = await repo.tailStart(windowMs, FALLBACK_REWIND_MS);
      this.cursor = Math.max(s.stored, s.older);
    } else if (mode === 'fallback') {
      const s = await repo.tailStart(windowMs, FALLBACK_REWIND_MS);
      this.cursor = Math.max(Math.min(s.stored, s.recent), s.older);
    }
    if (mode !== this.mode) logger.info({ from: this.mode, to: mode }, 'event tail: mode changed');
    this.mode = mode;
  }

  /**
   * Reads the next events up to the horizon, sends them in seq order and moves the cursor; answers
   * whether more may be waiting (a full batch).
   */
  private async sendBatch(): Promise<boolean> {
    const { horizon, repo } = this.opts;
    if (this.cursor >= horizon.settled) await horizon.step();
    const upTo = horizon.settled;
    if (upTo <= this.cursor) {
      this.release();
      return false;
    }
    const rows: TailRow[] = await repo.tail(this.cursor, upTo);
    const outlet = this.mode === 'fallback' ? this.opts.here : this.opts.everywhere;
    for (const row of rows) {
      const routed = { envelope: toEnvelope({ ...row, seq: Number(row.seq) }), rooms: row.rooms };
      if (routed.rooms.length > 0) {
        try {
          outlet.emitter.to(routed.rooms).emit(routed.envelope.event, routed.envelope);
        } catch (err) {
          this.opts.logger.error({ err, event: routed.envelope.event }, 'event send failed');
        }
      }
      // Before the next event: one that follows a change of access must not reach rooms lost by it.
      try {
        await outlet.after?.([routed]);
      } catch (err) {
        this.opts.logger.error({ err }, 'after-send step failed');
      }
    }
    const full = rows.length >= TAIL_BATCH;
    // Not full: every event up to the horizon is sent (gaps are other writers' rollbacks or retention).
    this.cursor = full ? Number(rows.at(-1)!.seq) : upTo;
    if (this.mode === 'leader') {
      try {
        await repo.storeCursor(this.cursor);
      } catch (err) {
        // Sent already; the next batch records further, and a new leader at worst sends these again.
        this.opts.logger.warn({ err }, 'event tail: recording the cursor failed');
      }
    }
    // Writers answer after the after-send steps, so a transfer's answer comes after the eviction.
    this.release();
    return full;
  }
}
