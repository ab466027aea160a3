import type { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { AppError } from './errors.js';

export interface RateLimitDecision {
  headers: Record<string, string>;
}

/**
 * The Channel API budget per account API key (default 120 requests per 60 s). Counters live in Redis
 * when configured, so every node spends one shared budget; if Redis fails, an in-memory limiter
 * stands in rather than refusing or waving through every request.
 */
export class ApiKeyRateLimiter {
  private readonly limiter: RateLimiterAbstract;
  readonly message: string;

  constructor(
    private readonly points: number,
    private readonly durationSeconds: number,
    redis: Redis | null,
  ) {
    const memory = new RateLimiterMemory({ points, duration: durationSeconds, keyPrefix: 'rl:apikey' });
    this.limiter = redis
      ? new RateLimiterRedis({
          storeClient: redis,
          points,
          duration: durationSeconds,
          keyPrefix: 'atende:rl:apikey',
          insuranceLimiter: memory,
        })
      : memory;
    this.message = `Limite de ${points} requisições a cada ${durationSeconds} segundos por chave de API excedido`;
  }

  /** Spends one point of the key's budget; throws the contract's 429 (no `error` field) when exhausted. */
  async consume(keyId: string): Promise<RateLimitDecision> {
    try {
      const res = await this.limiter.consume(keyId);
      return { headers: this.headers(res) };
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      const headers = {
        ...this.headers(err),
        'Retry-After': String(Math.max(1, Math.ceil(err.msBeforeNext / 1000))),
      };
      throw new AppError(429, this.message, headers, true);
    }
  }

  private headers(res: RateLimiterRes): Record<string, string> {
    return {
      'RateLimit-Limit': String(this.points),
      'RateLimit-Remaining': String(Math.max(0, res.remainingPoints)),
      'RateLimit-Reset': String(Math.max(0, Math.ceil(res.msBeforeNext / 1000))),
    };
  }

  get windowSeconds(): number {
    return this.durationSeconds;
  }
}
