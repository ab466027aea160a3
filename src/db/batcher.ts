import { isDatabaseUnavailable } from './unavailable.js';

/**
 * Group commit for concurrent requests: items submitted while every runner is busy are handled
 * together by the next free one, in submission order, so under load one query or transaction carries
 * many items and when idle an item goes at once (no waiting window).
 */
export interface BatcherOptions<I, O> {
  /** Handles one batch (one query, one transaction); resolves with one result per item, in order. */
  run(items: I[]): Promise<O[]>;
  /** Batches handled at the same time (each holds one database connection). */
  concurrency: number;
  maxItems: number;
  /** Upper bound of the summed `weight` of a batch; an item heavier than it goes alone. */
  maxWeight: number;
  weight(item: I): number;
}

interface Pending<I, O> {
  item: I;
  weight: number;
  resolve(value: O): void;
  reject(err: unknown): void;
}

export class Batcher<I, O> {
  private readonly queue: Pending<I, O>[] = [];
  private inFlight = 0;

  constructor(private readonly opts: BatcherOptions<I, O>) {}

  submit(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, weight: this.opts.weight(item), resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.opts.concurrency && this.queue.length > 0) {
      const batch: Pending<I, O>[] = [];
      let weight = 0;
      while (this.queue.length > 0 && batch.length < this.opts.maxItems) {
        const next = this.queue[0]!;
        if (batch.length > 0 && weight + next.weight > this.opts.maxWeight) break;
        batch.push(this.queue.shift()!);
        weight += next.weight;
      }
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async run(batch: Pending<I, O>[]): Promise<void> {
    try {
      const out = await this.opts.run(batch.map((p) => p.item));
      batch.forEach((p, i) => p.resolve(out[i] as O));
      return;
    } catch (err) {
      // Alone, no item would reach an unreachable database either: each would only wait its turn.
      if (batch.length === 1 || isDatabaseUnavailable(err)) {
        for (const p of batch) p.reject(err);
        return;
      }
    }
    // One bad item must not fail the others: each is handled alone, in order, and only the items
    // that fail on their own are refused.
    for (const p of batch) {
      try {
        const [out] = await this.opts.run([p.item]);
        p.resolve(out as O);
      } catch (err) {
        p.reject(err);
      }
    }
  }
}
