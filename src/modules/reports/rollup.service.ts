import type { Logger } from 'pino';
import type { EventHorizon } from '../../events/horizon.js';
import { applyEvent, chatIdOf, Deltas, type ChatState } from './rollup.js';
import type { RollupRepo } from './rollup.repo.js';

/** Conversations closed this long ago are forgotten by the consumer (a late rating needs only its event). */
const FORGET_AFTER_MS = 30 * 86_400_000;
const FORGET_BATCH = 1_000;

/**
 * Keeps the rollups up to date from the event log (docs/adr/0089-reports-and-rollups.md). A batch is
 * one transaction: the consumer's lock (another node applying → this one skips), the cursor, the
 * events after it up to the horizon (every seq up to it is committed or never will be, so none is
 * skipped), the states of their conversations, the figures they add and the cursor moved past them.
 * A crash rolls all of it back; nothing is counted twice, nothing is lost, and a consumer stopped for a
 * while catches up from its cursor.
 */
export class RollupService {
  constructor(
    private readonly repo: RollupRepo,
    private readonly horizon: EventHorizon,
    private readonly batch: number,
    private readonly logger: Logger,
  ) {}

  /** Applies the next batch; answers how many events it applied and whether more may be waiting. */
  async step(): Promise<{ applied: number; more: boolean }> {
    await this.horizon.step();
    const upTo = this.horizon.settled;
    return this.repo.transaction(async (tx) => {
      if (!(await this.repo.tryLock(tx))) return { applied: 0, more: false };
      const cursor = await this.repo.cursor(tx);
      if (cursor >= upTo) return { applied: 0, more: false };
      const events = await this.repo.events(tx, cursor, upTo, this.batch);
      const ids = [...new Set(events.map(chatIdOf).filter((id): id is string => id !== null))];
      const states = await this.repo.states(tx, ids);
      const loaded = new Set(states.keys());
      const deltas = new Deltas();
      const changed = new Map<string, ChatState>();
      for (const ev of events) {
        const id = applyEvent(states, ev, deltas);
        const state = id === null ? undefined : states.get(id);
        if (state) changed.set(state.chatId, state);
      }
      // States made from the chats table are stored too, so a later batch reads the same.
      for (const [id, s] of states) if (!loaded.has(id) || changed.has(id)) changed.set(id, s);
      await this.repo.addRollups(tx, deltas);
      await this.repo.saveStates(tx, [...changed.values()]);
      const full = events.length >= this.batch;
      // Not full: every event up to the horizon is applied (gaps are rollbacks or other accounts' retention).
      const last = events.at(-1);
      await this.repo.setCursor(tx, full && last ? last.seq : upTo);
      return { applied: events.length, more: full };
    });
  }

  /** Applies every event committed before the call (tests, the bench, `settle` after a restart). */
  async catchUp(): Promise<number> {
    const target = await this.horizon.fresh();
    let applied = 0;
    for (;;) {
      const r = await this.step();
      applied += r.applied;
      if (!r.more && (await this.repo.cursor()) >= target) return applied;
      if (r.applied === 0 && !r.more) await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** The last seq applied. */
  cursor(): Promise<number> {
    return this.repo.cursor();
  }

  /** Housekeeping once caught up: forgets conversations closed long ago. */
  async forget(): Promise<void> {
    const n = await this.repo.forgetClosed(new Date(Date.now() - FORGET_AFTER_MS), FORGET_BATCH);
    if (n > 0) this.logger.debug({ n }, 'reports: closed conversations forgotten');
  }
}
