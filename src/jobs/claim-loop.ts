import type { Logger } from 'pino';
import type { Doorbell } from '../db/doorbell.js';
import { Listener, type ListenerOptions } from '../db/listener.js';
import { OneAtATime } from '../lib/one-at-a-time.js';
import { settleWithin } from '../lib/settle.js';

/**
 * The loop every queue of the worker role runs on: the job queue's runner of each pg-boss queue
 * (`queue.ts`), the send queue's dispatcher (`send-dispatcher.ts`) and the webhook deliverer
 * (`modules/webhooks/webhooks.worker.ts`). Each brings its own claim (a statement that takes due work
 * under a lease), how an item runs, and what its stop leaves behind; the loop is the rest:
 *
 * - **Wake.** Sources of wake-ups (`wakeUps`): a LISTEN connection of its own (`listenFor`; the send
 *   queue on `atende_send`, the webhooks on `atende_webhooks`), one shared by several loops (the job
 *   queue's `atende_jobs`, whose payload names the queue), the doorbell rung by writers of this
 *   process (`doorbellRings`; the webhooks). A lost LISTEN connection is opened again after a delay
 *   (db/listener.ts); the poll covers the gap.
 * - **Poll.** Every `pollMs` (the send queue and the webhooks 1 s, each job queue 2–5 s): retries
 *   and delayed work coming due, a lost notification.
 * - **Claim, one at a time.** A wake-up during a claim folds into one more claim after it
 *   (`OneAtATime`), whatever that claim's outcome. A claim asks for the free room (`concurrency`
 *   minus the items in flight; the capability may take less per statement: 250 sends, 128
 *   deliveries), starts what it got, and claims again at once while a full batch came. With items
 *   in flight, it waits for `minRoom` free slots first (the send queue: 125, one statement for many
 *   sends under load). Once a claim finds no full batch, `caughtUp` runs (the send queue prunes
 *   empty lanes there, at most once a minute).
 * - **Claim error** (the database down). Logged at warn — each time (`send queue: fetching jobs
 *   failed`, `job queue: fetching jobs failed`), or once until a claim works again, which is said at
 *   info (`webhook deliveries: claiming failed` … `claiming works again`). Nothing else: the next
 *   wake-up or poll claims again. (pg-boss's fetch answers nothing rather than throw when the
 *   database is away; its own errors are logged by the job queue.)
 * - **In-flight limit.** At most `concurrency` items at once on this node (the send queue 500 lanes,
 *   the webhooks 256 attempts — and each endpoint its cap, in the claim's SQL —, each job queue its
 *   worker's concurrency, 1 to 16). An item that finishes frees its slot and wakes the loop — for
 *   independent items (`finishWakes: 'heldBack'`) only when the last claim left due work behind.
 * - **Lease renewal** (`renew`; the send queue only: pg-boss 10 has no heartbeats, and a delivery's
 *   claim outlasts its attempt's time limit). Every `everyMs` while items are in flight, one renewal
 *   at a time; a failure is logged once until a renewal works again. Renewal goes on through the stop's
 *   wait, so no other node takes work this one is still finishing.
 * - **Stop, bounded.** No more claims; the poll and the wake-ups end; then, within `stopWaitMs`
 *   (10 s; the send queue 25 s), a claim still running is waited for and what it claimed runs — or,
 *   for a loop with `giveBack` (the send queue), is given back unstarted: an item never started
 *   cannot be done twice by a stop that runs out of time —, then every item in flight is waited for,
 *   and a renewal in progress; then `stopped` deals with what is left (the job queue fails its jobs
 *   still running, so they run again soon elsewhere; the send queue frees its leases, or logs the
 *   jobs it could not finish; the webhooks close their connections). The loop starts nothing after
 *   `stop()` resolves, so the pool can be closed next: a claim that answers
 *   only after the bound (a database that stalls) starts none of what it took, which comes back when
 *   its lease ends (logged at warn). Items still running past the bound are left to themselves.
 *
 * Per item the loop adds nothing to what the capability does but its in-flight bookkeeping.
 */
export interface ClaimLoopOptions<T> {
  /** What its log lines start with (`send queue`). */
  name: string;
  /** Fields added to its log lines (the job queue's `queue`). */
  logFields?: Record<string, unknown>;
  /** Items in flight on this node at most. */
  concurrency: number;
  /** With items in flight, claim only once this many slots are free. Default 1. */
  minRoom?: number;
  /** Look for due work this often without a wake-up. */
  pollMs: number;
  wakeUps?: readonly WakeUp[];
  /**
   * Given, wake-ups within this long of a first one fold into one claim after it: for a loop woken by
   * every commit, where one commit rings twice (this process's doorbell at once, its NOTIFY a moment
   * later) and commits come in bursts. Default: each wake-up claims at once.
   */
  gatherMs?: number;
  /**
   * Claims due work for up to `room` free slots: the items to start (they may be fewer than it took,
   * e.g. one already running here), and whether it found a full batch, so that more may be due.
   */
  claim(room: number): Promise<Claimed<T>>;
  /** Runs after a claim that found no full batch (the queue caught up); fails like a claim. */
  caughtUp?(): Promise<void>;
  /**
   * When an item finishing wakes the loop. `always` (default): for claims that hold due work back
   * while related work runs (a send lane's next message, an endpoint's cap), which a finish releases.
   * `heldBack`: only when the last claim left due work unclaimed for want of room — for independent
   * items (a pg-boss queue of the `standard` policy), where a finish makes nothing else due and a
   * claim after each would find nothing.
   */
  finishWakes?: 'always' | 'heldBack';
  /** Starts the items of one claim: one promise per item, settled once that item is finished. */
  run(items: readonly T[]): Promise<void>[];
  /** Renews the leases of the items in flight, every `everyMs` while any are. */
  renew?: { everyMs: number; run(): Promise<void> };
  /** How long a stop waits for the claim and the items in flight. */
  stopWaitMs: number;
  /** Runs once the stop's wait is over (whether or not everything finished). */
  stopped?(): Promise<void>;
  /**
   * Given, what a claim answering during the stop took is handed here, unstarted, instead of run: for
   * items whose second run would repeat something outside (a message to a provider), so the stop
   * leaves them to the next worker at once rather than risk running out of time halfway.
   */
  giveBack?(items: readonly T[]): Promise<void>;
  /** The claim failure's log line, after the name: `fetching jobs failed`. */
  claimFailed: string;
  /**
   * Said at info when a claim works after failing; given, a failure is logged once until then rather
   * than each time.
   */
  claimWorksAgain?: string;
  logger: Logger;
}

/** What one claim found. */
export interface Claimed<T> {
  items: readonly T[];
  /** A full batch: more may be due at once. */
  more: boolean;
}

/** A source of wake-ups: started with the loop's `wake`, it answers how to stop it. */
export type WakeUp = (wake: () => void) => Promise<() => Promise<void>>;

/** Wake-ups from a LISTEN connection of the loop's own. */
export function listenFor(opts: Omit<ListenerOptions, 'onNotify'>): WakeUp {
  return async (wake) => {
    const listener = new Listener({ ...opts, onNotify: () => wake() });
    await listener.start();
    return () => listener.stop();
  };
}

/** Wake-ups from the writers of this process, at once (db/doorbell.ts). */
export function doorbellRings(doorbell: Doorbell, channel: string): WakeUp {
  return async (wake) => {
    const unsubscribe = doorbell.subscribe(channel, wake);
    return async () => {
      unsubscribe();
    };
  };
}

/**
 * Wake-ups on every committed change of a channel written with the doorbell (the event log's): this
 * process's writers at once, other nodes' by NOTIFY on a LISTEN connection of the loop's own (opened
 * again 2 s after it is lost; the poll covers the gap).
 */
export function committedChanges(o: {
  doorbell: Doorbell;
  channel: string;
  databaseUrl: string;
  logger: Logger;
  name: string;
}): WakeUp[] {
  return [
    doorbellRings(o.doorbell, o.channel),
    listenFor({
      databaseUrl: o.databaseUrl,
      channel: o.channel,
      retryDelayMs: 2_000,
      logger: o.logger,
      name: o.name,
      waitsFor: 'committed changes',
    }),
  ];
}

export class ClaimLoop<T> {
  private readonly inFlight = new Set<Promise<void>>();
  /** True until started, and from the stop on. */
  private stopping = true;
  private readonly claims = new OneAtATime(
    () => this.claimWhileRoom(),
    () => this.stopping,
  );
  private stopWakeUps: Array<() => Promise<void>> = [];
  private pollTimer: NodeJS.Timeout | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private renewal: Promise<void> | null = null;
  private claimFailing = false;
  private renewFailing = false;
  private stopped: Promise<void> | null = null;
  /** The stop's wait is over: nothing more starts. */
  private closed = false;
  private gathering: NodeJS.Timeout | undefined;
  /** The last claims left due work behind (no room, a full batch, a failure): a finish claims again. */
  private heldBack = true;

  constructor(private readonly opts: ClaimLoopOptions<T>) {}

  /** Items running on this node. */
  get running(): number {
    return this.inFlight.size;
  }

  async start(): Promise<void> {
    this.stopping = false;
    for (const wakeUp of this.opts.wakeUps ?? []) this.stopWakeUps.push(await wakeUp(() => this.wake()));
    this.pollTimer = setInterval(() => this.wake(), this.opts.pollMs);
    this.pollTimer.unref();
    const { renew } = this.opts;
    if (renew) {
      this.renewTimer = setInterval(() => this.renewLeases(renew), renew.everyMs);
      this.renewTimer.unref();
    }
    this.wake();
  }

  /** Looks for due work now (or once `gatherMs` is over); during a claim, once more after it. */
  wake(): void {
    const { gatherMs } = this.opts;
    if (!gatherMs) {
      this.claims.run();
      return;
    }
    this.gathering ??= setTimeout(() => {
      this.gathering = undefined;
      this.claims.run();
    }, gatherMs);
  }

  /** See the class's comment: bounded, and nothing of the loop runs after it. */
  stop(): Promise<void> {
    this.stopped ??= this.stopOnce();
    return this.stopped;
  }

  private async stopOnce(): Promise<void> {
    this.stopping = true;
    const until = Date.now() + this.opts.stopWaitMs;
    clearInterval(this.pollTimer);
    clearTimeout(this.gathering);
    await Promise.all(this.stopWakeUps.splice(0).map((stop) => stop()));
    await settleWithin([this.claims.idle()], until - Date.now());
    await settleWithin(this.inFlight, until - Date.now());
    clearInterval(this.renewTimer);
    await this.renewal;
    this.closed = true;
    await this.opts.stopped?.();
  }

  private async claimWhileRoom(): Promise<void> {
    const { concurrency, minRoom = 1 } = this.opts;
    for (;;) {
      if (this.stopping) return;
      const room = concurrency - this.inFlight.size;
      if (room <= 0 || (this.inFlight.size > 0 && room < minRoom)) {
        this.heldBack = true;
        return;
      }
      let claimed: Claimed<T>;
      try {
        claimed = await this.opts.claim(room);
      } catch (err) {
        this.heldBack = true;
        this.claimFailedWith(err);
        return;
      }
      this.heldBack = claimed.more;
      if (this.closed) {
        if (claimed.items.length > 0)
          this.opts.logger.warn(
            { items: claimed.items.length, ...this.opts.logFields },
            `${this.opts.name}: a claim answered after the stop; what it took comes back after its lease`,
          );
        return;
      }
      if (this.claimFailing && this.opts.claimWorksAgain)
        this.opts.logger.info(this.opts.logFields ?? {}, `${this.opts.name}: ${this.opts.claimWorksAgain}`);
      this.claimFailing = false;
      if (this.stopping && this.opts.giveBack && claimed.items.length > 0) {
        // Claimed as the stop began: handed back, and the stop waits for that.
        try {
          await this.opts.giveBack(claimed.items);
        } catch (err) {
          this.opts.logger.warn(
            { err, items: claimed.items.length, ...this.opts.logFields },
            `${this.opts.name}: giving back a claim at the stop failed; what it took comes back after its lease`,
          );
        }
        return;
      }
      // Claimed as the stop began too: they run, and the stop waits for them.
      if (claimed.items.length > 0) this.runItems(claimed.items);
      if (!claimed.more) break;
    }
    try {
      await this.opts.caughtUp?.();
    } catch (err) {
      this.claimFailedWith(err);
    }
  }

  private claimFailedWith(err: unknown): void {
    const { logger, name, claimFailed, claimWorksAgain, logFields } = this.opts;
    if (!(this.claimFailing && claimWorksAgain))
      logger.warn({ err, ...logFields }, `${name}: ${claimFailed}`);
    this.claimFailing = true;
  }

  private runItems(items: readonly T[]): void {
    let started: Promise<void>[];
    try {
      started = this.opts.run(items);
    } catch (err) {
      started = items.map(() => Promise.reject(err));
    }
    for (const item of started) {
      const p = item
        .catch((err: unknown) =>
          this.opts.logger.error({ err, ...this.opts.logFields }, `${this.opts.name}: work failed`),
        )
        .finally(() => {
          this.inFlight.delete(p);
          if (this.opts.finishWakes !== 'heldBack' || this.heldBack) this.wake();
        });
      this.inFlight.add(p);
    }
  }

  private renewLeases(renew: NonNullable<ClaimLoopOptions<T>['renew']>): void {
    if (this.inFlight.size === 0 || this.renewal) return;
    const { logger, name, logFields } = this.opts;
    this.renewal = renew
      .run()
      .then(
        () => {
          if (this.renewFailing) logger.info(logFields ?? {}, `${name}: lease renewal works again`);
          this.renewFailing = false;
        },
        (err: unknown) => {
          if (!this.renewFailing) logger.warn({ err, ...logFields }, `${name}: lease renewal failed`);
          this.renewFailing = true;
        },
      )
      .finally(() => {
        this.renewal = null;
      });
  }
}
