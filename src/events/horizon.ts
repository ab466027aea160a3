import type { EventsRepo, HorizonStep } from './events.repo.js';

/** Pause between steps while a candidate waits for its writers to end. */
export const HORIZON_POLL_MS = 2;

/** Longest `fresh()` waits for writers still running before it answers the horizon it has. */
const FRESH_WAIT_MS = 2_000;

/**
 * How far the event log can be read without skipping an event. Seqs come from one sequence, so a
 * writer may commit seq 7 after another committed seq 8; a reader that moved its cursor to 8 would
 * never see 7. Every writer registers (a shared advisory lock, held to the end of its transaction)
 * before it takes a number, so the sequence's last value read at one moment, together with the writers
 * registered at the next, is a candidate: once those writers have ended, every seq up to it is either
 * committed or never will be. The candidate is kept until it settles, then the next one is taken
 * (`atende_event_horizon`, migration 019). Writers never wait for readers nor for each other.
 *
 * One per process, shared by the gateway's tail and the resync feed: a step runs one at a time, and
 * callers arriving while one runs share the next.
 */
export class EventHorizon {
  private settledSeq = 0;
  private pending: { seq: number; writers: string[] } | null = null;
  private running: Promise<HorizonStep> | null = null;
  private queued: Promise<HorizonStep> | null = null;

  constructor(private readonly repo: EventsRepo) {}

  /** The highest seq known settled: every event up to it that will ever exist is committed. */
  get settled(): number {
    return this.settledSeq;
  }

  /** Whether a candidate is waiting for writers still running (another step will move the horizon). */
  get waiting(): boolean {
    return this.pending !== null;
  }

  /** A step that starts after this call: checks the pending candidate, takes the next once it settled. */
  step(): Promise<HorizonStep> {
    if (!this.running) return this.start();
    this.queued ??= this.running
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        this.queued = null;
        return this.running ?? this.start();
      });
    return this.queued;
  }

  /**
   * A horizon that covers every event committed before the call: steps until a candidate read after
   * the call has settled. Should writers outlast FRESH_WAIT_MS, answers the highest seq settled by then,
   * which is still safe to read up to (a later read continues from there).
   */
  async fresh(): Promise<number> {
    const deadline = Date.now() + FRESH_WAIT_MS;
    let target: number | null = null;
    for (;;) {
      const r = await this.step();
      if (target === null && r.read !== null) target = r.read;
      if (target !== null && this.settledSeq >= target) return this.settledSeq;
      if (Date.now() >= deadline) return this.settledSeq;
      await new Promise((resolve) => setTimeout(resolve, HORIZON_POLL_MS));
    }
  }

  private start(): Promise<HorizonStep> {
    const run = this.repo.horizonStep(this.pending).then((r) => {
      if (r.settled !== null && r.settled > this.settledSeq) this.settledSeq = r.settled;
      this.pending = r.next;
      return r;
    });
    this.running = run.finally(() => {
      if (this.running === tracked) this.running = null;
    });
    const tracked = this.running;
    return tracked;
  }
}
