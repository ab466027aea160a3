import { AppError } from '../../http/errors.js';
import { BudgetSpent, SharedRateLimiter, type SharedStore } from '../../lib/shared-rate-limit.js';

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
 * Counters live in Redis when configured (one budget for every node), in memory otherwise; while
 * Redis is unreachable each node allows its share of each budget (see SharedRateLimiter).
 */
export class LoginRateLimiter {
  private readonly byEmail: SharedRateLimiter;
  private readonly byIp: SharedRateLimiter;

  constructor(opts: LoginRateLimitOptions, redis: SharedStore | null) {
    const window = opts.windowSeconds;
    this.byEmail = new SharedRateLimiter(opts.maxFailuresPerEmail, window, 'rl:login-email', redis);
    this.byIp = new SharedRateLimiter(opts.maxFailuresPerIp, window, 'rl:login-ip', redis);
  }

  /** Spends one attempt of the IP and of the email; throws 429 (with Retry-After) when either is spent. */
  async attempt(email: string, ip: string): Promise<void> {
    await spend(this.byIp, ip);
    try {
      await spend(this.byEmail, email);
    } catch (err) {
      // Refused before the password was looked at: not a failure of this IP.
      await this.byIp.reward(ip);
      throw err;
    }
  }

  async succeeded(email: string, ip: string): Promise<void> {
    await Promise.all([this.byEmail.delete(email), this.byIp.reward(ip)]);
  }
}

async function spend(limiter: SharedRateLimiter, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (err) {
    if (!(err instanceof BudgetSpent)) throw err;
    const retryAfter = String(Math.max(1, Math.ceil(err.msBeforeNext / 1000)));
    throw new AppError(429, LOGIN_RATE_LIMITED, { 'Retry-After': retryAfter });
  }
}
