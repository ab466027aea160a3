import { BudgetSpent, SharedRateLimiter, type Budget, type SharedStore } from '../lib/shared-rate-limit.js';
import { AppError } from './errors.js';

export interface RateLimitDecision {
  headers: Record<string, string>;
}

/** Whose budget a limiter counts: its Redis key prefix and the words of its 429 message. */
export interface RateLimitSubject {
  keyPrefix: string;
  /** Ends the 429 message: `… a cada 60 segundos por <per> excedido`. */
  per: string;
}

export const ACCOUNT_KEY: RateLimitSubject = { keyPrefix: 'rl:apikey', per: 'chave de API' };
export const CHANNEL_KEY: RateLimitSubject = { keyPrefix: 'rl:channelkey', per: 'chave de canal' };
export const USER: RateLimitSubject = { keyPrefix: 'rl:user', per: 'usuário' };

/**
 * A request budget per caller — account API key (default 120 requests per 60 s), channel key or
 * signed-in user. Counters live in Redis when configured, so every node spends one shared budget;
 * while Redis is unreachable each node hands out its share of it (see SharedRateLimiter).
 */
export class RequestRateLimiter {
  private readonly limiter: SharedRateLimiter;
  readonly message: string;

  constructor(
    private readonly points: number,
    private readonly durationSeconds: number,
    redis: SharedStore | null,
    subject: RateLimitSubject = ACCOUNT_KEY,
  ) {
    this.limiter = new SharedRateLimiter(points, durationSeconds, subject.keyPrefix, redis);
    this.message = `Limite de ${points} requisições a cada ${durationSeconds} segundos por ${subject.per} excedido`;
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
