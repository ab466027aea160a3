import { AppError } from '../../http/errors.js';
import { BudgetSpent, SharedRateLimiter, type SharedStore } from '../../lib/shared-rate-limit.js';
import { pt } from '../../http/language.js';

export const LOGIN_RATE_LIMITED = pt(
  'Muitas tentativas de login; tente novamente mais tarde',
  'Too many login attempts; try again later',
);

export interface LoginRateLimitOptions {
  maxFailuresPerEmail: number;
  maxFailuresPerIp: number;
  windowSeconds: number;
}

/** First delay once an email has spent `maxFailuresPerEmail` over all IPs; doubles with each failure. */
const SLOWDOWN_BASE_MS = 250;
/** Longest delay: a login held longer would look like a hang to the real user. */
const SLOWDOWN_MAX_MS = 3_000;
/** Counting the failures of an email over all IPs never refuses; this only bounds the counter. */
const EMAIL_COUNTER_CEILING = 1_000_000;

/**
 * Limits on guessing passwords that an attacker cannot turn against the account's owner:
 *  - per email and client IP: `maxFailuresPerEmail` failures, then 429 — for that IP only, so an
 *    attacker's guesses lock out the attacker, not the owner logging in from elsewhere;
 *  - per client IP over all emails: `maxFailuresPerIp` failures, then 429 (spraying many accounts);
 *  - per email over all IPs: past `maxFailuresPerEmail` failures, every login of the email waits
 *    250 ms, doubling with each further failure up to 3 s, before its password is checked — a slower
 *    guess from many IPs, and never a refusal of the right password.
 * Each attempt is spent before the password is checked, so concurrent guesses cannot all slip past the
 * check. A success gives the points back: the email's counters are reset and the IP's attempt returned.
 * Counters live in Redis when configured (one budget for every node), in memory otherwise; while
 * Redis is unreachable each node allows its share of each budget (see SharedRateLimiter).
 */
export class LoginRateLimiter {
  private readonly byEmailAndIp: SharedRateLimiter;
  private readonly byIp: SharedRateLimiter;
  private readonly byEmail: SharedRateLimiter;

  constructor(
    private readonly opts: LoginRateLimitOptions,
    redis: SharedStore | null,
  ) {
    const window = opts.windowSeconds;
    this.byEmailAndIp = new SharedRateLimiter(opts.maxFailuresPerEmail, window, 'rl:login-email-ip', redis);
    this.byIp = new SharedRateLimiter(opts.maxFailuresPerIp, window, 'rl:login-ip', redis);
    this.byEmail = new SharedRateLimiter(EMAIL_COUNTER_CEILING, window, 'rl:login-email-all', redis);
  }

  /**
   * Spends one attempt of the IP, of the email from this IP and of the email; throws 429 (with
   * Retry-After) when the IP's or the email-from-this-IP budget is spent. Resolves with how long the
   * login must wait before its password is checked.
   */
  async attempt(email: string, ip: string): Promise<{ delayMs: number }> {
    await spend(this.byIp, ip);
    try {
      await spend(this.byEmailAndIp, emailAtIp(email, ip));
    } catch (err) {
      // Refused before the password was looked at: not a failure of this IP.
      await this.byIp.reward(ip);
      throw err;
    }
    let failures: number;
    try {
      // Attempts counted before this one, over every IP.
      failures = (await this.byEmail.consume(email)).spent - 1;
    } catch (err) {
      if (!(err instanceof BudgetSpent)) throw err;
      failures = EMAIL_COUNTER_CEILING;
    }
    const over = failures - this.opts.maxFailuresPerEmail;
    return { delayMs: over < 0 ? 0 : Math.min(SLOWDOWN_MAX_MS, SLOWDOWN_BASE_MS * 2 ** Math.min(over, 16)) };
  }

  async succeeded(email: string, ip: string): Promise<void> {
    await Promise.all([
      this.byEmailAndIp.delete(emailAtIp(email, ip)),
      this.byEmail.delete(email),
      this.byIp.reward(ip),
    ]);
  }
}

function emailAtIp(email: string, ip: string): string {
  return `${ip}|${email}`;
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
