import type { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { AppError } from '../../http/errors.js';

export const LOGIN_RATE_LIMITED = 'Muitas tentativas de login; tente novamente mais tarde';

export interface LoginRateLimitOptions {
  maxFailuresPerEmail: number;
  maxFailuresPerIp: number;
  windowSeconds: number;
}

/**
 * Budgets of failed logins per email (guessing one account's password) and per client IP (spraying
 * many accounts). Each attempt is spent before the password is checked, so concurrent guesses cannot
 * all slip past the check, and a blocked email answers 429 even to the right password. A success gives
 * the points back: the email's counter is reset and the IP's attempt is returned.
 * Counters live in Redis when configured (one budget for every node), in memory otherwise.
 */
export class LoginRateLimiter {
  private readonly byEmail: RateLimiterAbstract;
  private readonly byIp: RateLimiterAbstract;

  constructor(opts: LoginRateLimitOptions, redis: Redis | null) {
    const make = (name: string, points: number): RateLimiterAbstract => {
      const memory = new RateLimiterMemory({ points, duration: opts.windowSeconds, keyPrefix: `rl:${name}` });
      return redis
        ? new RateLimiterRedis({
            storeClient: redis,
            points,
            duration: opts.windowSeconds,
            keyPrefix: `atende:rl:${name}`,
            insuranceLimiter: memory,
          })
        : memory;
    };
    this.byEmail = make('login-email', opts.maxFailuresPerEmail);
    this.byIp = make('login-ip', opts.maxFailuresPerIp);
  }

  /** Spends one attempt of the IP and of the email; throws 429 (with Retry-After) when either is spent. */
  async attempt(email: string, ip: string): Promise<void> {
    await spend(this.byIp, ip);
    try {
      await spend(this.byEmail, email);
    } catch (err) {
      // Refused before the password was looked at: not a failure of this IP.
      await this.byIp.reward(ip, 1);
      throw err;
    }
  }

  async succeeded(email: string, ip: string): Promise<void> {
    await Promise.all([this.byEmail.delete(email), this.byIp.reward(ip, 1)]);
  }
}

async function spend(limiter: RateLimiterAbstract, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    const retryAfter = String(Math.max(1, Math.ceil(err.msBeforeNext / 1000)));
    throw new AppError(429, LOGIN_RATE_LIMITED, { 'Retry-After': retryAfter });
  }
}
