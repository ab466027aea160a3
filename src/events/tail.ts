import pg from 'pg';
import type { Logger } from 'pino';
import type { Envelope } from './catalogue.js';
import { EVENTS_CHANNEL, TAIL_BATCH, type EventsRepo, type TailRow } from './events.repo.js';
import { toEnvelope } from './events.service.js';

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
 * Sends committed events to Socket.IO rooms by tailing the event log: a writer only notifies
 * EVENTS_CHANNEL in its transaction, so an event is sent even when its writer dies right after commit,
 * and a node without the gateway needs nothing but the database. An account's seqs are contiguous
 * and commit in order, so reading `seq > cursor` per account never skips an event.
 *
 * Notifications only say which accounts to read; a sweep every second catches up whatever a lost
 * notification or a lost connection hid. Delivery is at least once: a new leader, or a node falling
 * back while Redis is down, may send an event again (clients de-duplicate by seq). On start or
 * takeover nothing older than the recovery window is sent: a client away that long resyncs through
 * `GET /api/events`.
 */
export class EventTail {
  private client: pg.Client | null = null;
  private locked = false;
  private mode: Mode = 'off';
  private cursors = new Map<string, number>();
  private readonly dirty = new Set<string>();
  /** Each account's last seq as last read: committed, so every event up to it is readable. */
  private heads = new Map<string, number>();
  private sweepAll = true;
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private sweepTimer: NodeJS.Timeout | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private failing = false;
  /** Writers in this process waiting until their events are sent (`sent`). */
  private waiters: { seqs: ReadonlyMap<string, number>; done: () => void }[] = [];

  constructor(
    private readonly opts: {
      connectionString: string;
      repo: EventsRepo;
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
    opts.redis?.onChange(() => this.kick(true));
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
    this.sweepTimer = setInterval(() => this.kick(true), SWEEP_MS);
    this.sweepTimer.unref();
    this.kick(true);
    await this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
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
   * `seqs`, at once when it does not send them (another node leads), and after SENT_WAIT_MS at most.
   */
  sent(seqs: ReadonlyMap<string, number>): Promise<void> {
    if (this.closed || this.mode === 'off' || this.reached(seqs)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => waiter.done(), SENT_WAIT_MS);
      const waiter = {
        seqs,
        done: () => {
          clearTimeout(timer);
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve();
        },
      };
      this.waiters.push(waiter);
      for (const id of seqs.keys()) this.dirty.add(id);
      this.kick(false);
    });
  }

  private reached(seqs: ReadonlyMap<string, number>): boolean {
    for (const [id, seq] of seqs) if ((this.cursors.get(id) ?? 0) < seq) return false;
    return true;
  }

  /** Lets go of the writers whose events are out (or that this node no longer sends). */
  private release(): void {
    const all = this.closed || this.mode === 'off';
    for (const w of [...this.waiters]) if (all || this.reached(w.seqs)) w.done();
  }

  /**
   * Resolves once every event committed before the call has been sent by this node, or at once when
   * this node does not send (another node leads).
   */
  async settled(): Promise<void> {
    const heads = await this.opts.repo.heads();
    for (;;) {
      const behind = [...heads].filter(([id, seq]) => (this.cursors.get(id) ?? 0) < seq);
      if (this.closed || this.mode === 'off' || behind.length === 0) return;
      this.kick(true);
      await this.running;
      if (this.failing) await new Promise((r) => setTimeout(r, 50));
    }
  }

  private async connect(): Promise<void> {
    this.reconnectTimer = null;
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.opts.connectionString, keepAlive: true });
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
      this.kick(true);
    };
    // A dropped connection must never end the process: it is replaced, and the sweep covers the gap.
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (msg) => {
      const [accountId, last] = (msg.payload ?? '').split(':');
      const seq = Number(last);
      if (msg.channel !== EVENTS_CHANNEL || !accountId || !Number.isSafeInteger(seq)) return;
      // Sent already when a writer in this process asked for it first.
      if ((this.cursors.get(accountId) ?? 0) >= seq) return;
      if ((this.heads.get(accountId) ?? 0) < seq) this.heads.set(accountId, seq);
      this.dirty.add(accountId);
      this.kick(false);
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
    // Notifications sent while no connection listened are lost: look at every account.
    this.kick(true);
  }

  /** Runs the loop, or asks the running one to go round again; `sweep` looks at every account. */
  private kick(sweep: boolean): void {
    if (sweep) this.sweepAll = true;
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
        // The database away: the sweep tries again; cursors have not moved past what was sent.
        if (!this.failing) this.opts.logger.warn({ err }, 'event tail: reading the event log failed');
        this.failing = true;
        return;
      }
    } while (this.again);
  }

  private async step(): Promise<void> {
    const mode = await this.wanted();
    if (mode !== this.mode) await this.enter(mode);
    if (this.mode === 'off') {
      this.dirty.clear();
      this.release();
      return;
    }
    if (this.sweepAll) {
      this.sweepAll = false;
      this.heads = await this.opts.repo.heads();
      for (const [id, seq] of this.heads) {
        if ((this.cursors.get(id) ?? 0) < seq) this.dirty.add(id);
      }
    }
    while (this.dirty.size > 0 && !this.closed) await this.sendBatch();
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

  /** Where each account's cursor starts in `mode`. */
  private async enter(mode: Mode): Promise<void> {
    const { repo, logger, windowMs } = this.opts;
    const cursors = new Map<string, number>();
    if (mode === 'solo') {
      for (const [id, seq] of await repo.heads()) cursors.set(id, seq);
    } else if (mode === 'leader') {
      // From where the previous leader stopped, but nothing older than the recovery window.
      for (const s of await repo.tailStart(windowMs))
        cursors.set(s.accountId, Math.max(s.stored ?? 0, s.older));
    } else if (mode === 'fallback') {
      const recent = new Map((await repo.tailStart(FALLBACK_REWIND_MS)).map((s) => [s.accountId, s]));
      for (const s of await repo.tailStart(windowMs)) {
        const rewound = Math.min(s.stored ?? s.head, recent.get(s.accountId)?.older ?? s.head);
        cursors.set(s.accountId, Math.max(rewound, s.older));
      }
    }
    this.cursors = cursors;
    this.sweepAll = true;
    if (mode !== this.mode) logger.info({ from: this.mode, to: mode }, 'event tail: mode changed');
    this.mode = mode;
  }

  /** Reads the next events of the accounts marked, sends them in seq order, moves the cursors. */
  private async sendBatch(): Promise<void> {
    const ids = [...this.dirty];
    this.dirty.clear();
    const at = new Map(ids.map((id) => [id, this.cursors.get(id) ?? 0]));
    let rows: TailRow[];
    try {
      rows = await this.opts.repo.tail(at);
    } catch (err) {
      for (const id of ids) this.dirty.add(id);
      throw err;
    }
    const byAccount = new Map<string, TailRow[]>();
    for (const r of rows) {
      const list = byAccount.get(r.account_id);
      if (list) list.push(r);
      else byAccount.set(r.account_id, [r]);
    }
    const outlet = this.mode === 'fallback' ? this.opts.here : this.opts.everywhere;
    const moved = new Map<string, number>();
    for (const [accountId, list] of byAccount) {
      list.sort((a, b) => Number(a.seq) - Number(b.seq));
      for (const row of list) {
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
      const last = Number(list.at(-1)!.seq);
      this.cursors.set(accountId, last);
      moved.set(accountId, last);
      // A full batch: more may follow.
      if (list.length >= TAIL_BATCH) this.dirty.add(accountId);
    }
    for (const id of ids) {
      // Nothing past the cursor although the account's head is further: retention deleted those events.
      const head = this.heads.get(id) ?? 0;
      if (!byAccount.has(id) && (this.cursors.get(id) ?? 0) < head) this.cursors.set(id, head);
    }
    if (moved.size === 0) return this.release();
    if (this.mode === 'leader') {
      try {
        await this.opts.repo.storeCursors(moved);
      } catch (err) {
        // Sent already; the next batch records further, and a new leader at worst sends these again.
        this.opts.logger.warn({ err }, 'event tail: recording the cursor failed');
      }
    }
    // Writers answer after the after-send steps, so a transfer's answer comes after the eviction.
    this.release();
  }
}
