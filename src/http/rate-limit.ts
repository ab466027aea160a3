import { BudgetSpent, SharedRateLimiter, type Budget, type SharedStore } from '../lib/shared-rate-limit.js';
import { AppError } from './errors.js';

export interface RateLimitDecision {
  headers: Record<string, string>;
}

/**
 * The Channel API budget per account API key (default 120 requests per 60 s). Counters live in Redis
 * when configured, so every node spends one shared budget; while Redis is unreachable each node
 * hands out its share of it (see SharedRateLimiter).
 */
export class ApiKeyRateLimiter {
  private readonly limiter: SharedRateLimiter;
  readonly message: string;

  constructor(
    private readonly points: number,
    private readonly durationSeconds: number,
    redis: SharedStore | null,
  ) {
    this.limiter = new SharedRateLimiter(points, durationSeconds, 'rl:apikey', redis);
    this.message = `Limite de ${points} requisições a cada ${durationSeconds} segundos por chave de API excedido`;
  }

  /** Spends one point of the key's budget; throws the contract's 429 (no `error` field) when exhausted. */
  async consume(keyId: string): Promise<RateLimitDecision> {
    try {
      return { headers: this.headers(await this.limiter.consume(keyId)) };
    } catch (err) {
      if (!(err instanceof BudgetSpent)) throw err;
      const headers = {
        ...this.headers({ remaining: 0, msBeforeNext: err.msBeforeNext }),
        'Retry-After': String(Math.max(1, Math.ceil(err.msBeforeNext / 1000))),
      };
      throw new AppError(429, this.message, headers, true);
    }
  }

  private headers(budget: Pick<Budget, 'remaining' | 'msBeforeNext'>): Record<string, string> {
    return {
      'RateLimit-Limit': String(this.points),
      'RateLimit-Remaining': String(Math.max(0, budget.remaining)),
      'RateLimit-Reset': String(Math.max(0, Math.ceil(budget.msBeforeNext / 1000))),
    };
  }

  get windowSeconds(): number {
    return this.durationSeconds;
  }
}
