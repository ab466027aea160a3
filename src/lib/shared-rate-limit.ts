import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RedisHealth } from './redis-health.js';

/** Redis and what knows whether it answers: together, or not at all. */
export interface SharedStore {
  client: Redis;
  health: RedisHealth;
}

/** What is left of a key's budget after a request. */
export interface Budget {
  remaining: number;
  /** Requests spent in the window, this one included. */
  spent: number;
  msBeforeNext: number;
}

/** The key's budget is spent; `msBeforeNext` says when points come back. */
export class BudgetSpent extends Error {
  constructor(readonly msBeforeNext: number) {
    super('rate limit budget spent');
    this.name = 'BudgetSpent';
  }
}

/**
 * A per-key budget of `points` per window, one for every node: counted in Redis when configured.
 * While Redis is unreachable each node counts in memory and hands out only its share of the budget
 * — `points` ÷ the nodes last seen sharing it (at least one request) — so the nodes together never
 * give a key more than its budget, as they would if each fell back to the whole of it. Without
 * Redis at all (one node), memory holds the whole budget.
 */
export class SharedRateLimiter {
  private readonly shared: RateLimiterRedis | null;
  private readonly local: RateLimiterMemory;

  constructor(
    readonly points: number,
    readonly durationSeconds: number,
    keyPrefix: string,
    private readonly store: SharedStore | null,
  ) {
    this.local = new RateLimiterMemory({ points, duration: durationSeconds, keyPrefix });
    this.shared = store
      ? new RateLimiterRedis({
          storeClient: store.client,
          points,
          duration: durationSeconds,
          keyPrefix: `atende:${keyPrefix}`,
        })
      : null;
  }

  /** Spends one request of `key`'s budget; throws BudgetSpent when none is left. */
  async consume(key: string): Promise<Budget> {
    const { value: res, cost } = await this.run(
      (shared) => shared.consume(key),
      (local, points) => local.consume(key, points),
    );
    return {
      remaining: Math.floor(res.remainingPoints / cost),
      spent: Math.ceil(res.consumedPoints / cost),
      msBeforeNext: res.msBeforeNext,
    };
  }

  /** Gives one request back to `key`. */
  async reward(key: string): Promise<void> {
    await this.run(
      (shared) => shared.reward(key, 1),
      (local, points) => local.reward(key, points),
    );
  }

  /** Forgets what `key` spent. */
  async delete(key: string): Promise<void> {
    await this.run(
      (shared) => shared.delete(key),
      (local) => local.delete(key),
    );
  }

  /**
   * Redis while it answers; otherwise memory, where a request costs as many points as there are
   * nodes sharing the budget, so the full `points` last for this node's share of requests.
   */
  private async run<T>(
    shared: (limiter: RateLimiterRedis) => Promise<T>,
    local: (limiter: RateLimiterMemory, cost: number) => Promise<T>,
  ): Promise<{ value: T; cost: number }> {
    if (this.shared && this.store?.health.isUp()) {
      try {
        return { value: await shared(this.shared), cost: 1 };
      } catch (err) {
        if (err instanceof RateLimiterRes) throw new BudgetSpent(err.msBeforeNext);
        this.store.health.failed(err);
      }
    }
    const cost = this.store ? Math.min(this.points, this.store.health.nodeCount()) : 1;
    try {
      return { value: await local(this.local, cost), cost };
    } catch (err) {
      if (err instanceof RateLimiterRes) throw new BudgetSpent(err.msBeforeNext);
      throw err;
    }
  }
}
