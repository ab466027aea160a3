import { setTimeout } from 'node:timers/promises';
import { unauthorized } from '../../http/errors.js';
import type { EventsService } from '../../events/events.service.js';
import type { TokenService } from '../../lib/jwt.js';
import { DUMMY_PASSWORD_HASH, verifyPassword } from '../../lib/secrets.js';
import { type UserT, type UserAuthRow, type UsersRepo, toUser } from '../users/index.js';
import type { UserActor } from '../../access/actors.js';
import type { LoginRateLimiter } from './login-rate-limit.js';
import type { Permission } from '../../access/permissions.js';
import { pt } from '../../http/language.js';

const INVALID_LOGIN = pt('Email ou senha inválidos', 'Invalid email or password');

export class AuthService {
  constructor(
    private readonly users: UsersRepo,
    private readonly tokens: TokenService,
    /** Ending sessions tells the gateway, which then closes the user's open connections. */
    private readonly events: Pick<EventsService, 'transaction'>,
    private readonly limiter: LoginRateLimiter | null = null,
  ) {}

  /**
   * `client` is given for logins arriving over HTTP, which spend the per-email and per-IP budgets of
   * failed attempts; in-process callers (demo, tests' fixtures) are not limited.
   */
  async login(
    email: string,
    password: string,
    client?: { ip: string },
  ): Promise<{ accessToken: string; tokenType: 'Bearer'; expiresIn: number; user: UserT }> {
    const normalized = email.trim().toLowerCase();
    const limit = client && this.limiter ? { limiter: this.limiter, ip: client.ip } : null;
    if (limit) {
      const { delayMs } = await limit.limiter.attempt(normalized, limit.ip);
      if (delayMs > 0) await setTimeout(delayMs);
    }
    const row = await this.users.findForAuth({ email: normalized });
    // Unknown emails cost a full hash too, so timing does not tell which emails exist.
    const ok = await verifyPassword(password, row?.password_hash ?? DUMMY_PASSWORD_HASH);
    if (!row || !ok || row.status === 'cancelled') throw unauthorized(INVALID_LOGIN);
    if (limit) await limit.limiter.succeeded(normalized, limit.ip);
    const accessToken = await this.tokens.sign({
      userId: row.id,
      accountId: row.account_id,
      version: row.token_version,
    });
    return { accessToken, tokenType: 'Bearer', expiresIn: this.tokens.expiresIn, user: toUser(row) };
  }

  /** Resolves a JWT to the current user; cancelled users, ended sessions and unknown tokens answer 401. */
  async authenticate(token: string | undefined): Promise<UserActor> {
    return (await this.session(token)).actor;
  }

  /**
   * The token's user as it is now, with the token version the token was issued for (the gateway keeps
   * it to check again later). The version is read with the user row the check loads anyway, so ending
   * sessions costs no extra query per request.
   */
  async session(token: string | undefined): Promise<{ actor: UserActor; tokenVersion: number }> {
    const claims = token ? await this.tokens.verify(token) : null;
    if (!claims) throw unauthorized();
    const row = await this.users.findForAuth({ id: claims.userId });
    if (!row || !sessionValid(row, claims)) throw unauthorized();
    return { actor: toActor(row), tokenVersion: claims.version };
  }

  /**
   * Ends every session of the token's user (logout): their tokens, this one included, are refused
   * from now on. A token that is not valid any more ends nothing.
   */
  async logout(token: string | undefined): Promise<void> {
    const claims = token ? await this.tokens.verify(token) : null;
    if (!claims) return;
    const row = await this.users.findForAuth({ id: claims.userId });
    if (!row || !sessionValid(row, claims)) return;
    await this.events.transaction(async (tx, events) => {
      await this.users.endSessions(row.id, tx);
      events.accessChanged(row.account_id, [row.id]);
    });
  }
}

/** Whether a token's claims still stand for the user row: same account, not cancelled, same version. */
export function sessionValid(row: UserAuthRow, claims: { accountId: string; version: number }): boolean {
  return (
    row.account_id === claims.accountId && row.status !== 'cancelled' && row.token_version === claims.version
  );
}

export function toActor(row: UserAuthRow): UserActor {
  return {
    kind: 'user',
    accountId: row.account_id,
    userId: row.id,
    name: row.name,
    permissions: new Set(row.permissions as Permission[]),
  };
}
