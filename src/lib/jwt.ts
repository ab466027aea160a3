import { webcrypto } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';

export interface AccessClaims {
  userId: string;
  accountId: string;
  /** The user's token version when the token was issued; a token of an older version is refused. */
  version: number;
}

/** Verified tokens remembered at most (a few hundred bytes each); past it the memo starts again. */
const MEMO_SIZE = 10_000;

/** HS256 access tokens shared by the REST API and the gateway. */
export class TokenService {
  /**
   * The secret imported once as an HMAC key: given the raw bytes, jose imports them again on every
   * call, which was most of a token check's cost (≈ 140 µs of CPU against ≈ 50 µs; every authenticated
   * request checks one — bench/README.md `canned-picker`).
   */
  private readonly key: Promise<webcrypto.CryptoKey>;
  /**
   * Tokens whose signature was verified, with their claims and expiry (seconds). A token's signature
   * and claims never change, so a client's next requests with the same token skip the HMAC, which
   * WebCrypto runs off the main thread at ≈ 0.3 ms of CPU per token on a small machine (more than the
   * search that follows it: bench/README.md, 2026-11-28). Expiry is checked on every use; whether the
   * session still holds (the user's token version) is the caller's per-request check.
   */
  private readonly verified = new Map<string, { claims: AccessClaims; exp: number }>();
  constructor(
    secret: string,
    private readonly ttlSeconds: number,
  ) {
    this.key = webcrypto.subtle.importKey(
      'raw',
      new TextEncoder().encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign', 'verify'],
    );
  }

  get expiresIn(): number {
    return this.ttlSeconds;
  }

  async sign(claims: AccessClaims): Promise<string> {
    return new SignJWT({ acc: claims.accountId, ver: claims.version })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(claims.userId)
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + this.ttlSeconds)
      .sign(await this.key);
  }

  /**
   * Returns null for anything that is not a valid, unexpired token of ours. A token without `exp`
   * is refused: every token this service signs has one, and one without would never end.
   */
  async verify(token: string): Promise<AccessClaims | null> {
    const known = this.verified.get(token);
    if (known) {
      // jose's rule: expired once the clock reaches `exp`.
      if (Math.floor(Date.now() / 1000) < known.exp) return known.claims;
      this.verified.delete(token);
      return null;
    }
    try {
      const { payload } = await jwtVerify(token, await this.key, {
        algorithms: ['HS256'],
        requiredClaims: ['exp'],
      });
      if (typeof payload.sub !== 'string' || typeof payload.acc !== 'string') return null;
      // Tokens issued before versions existed carry none: they are of version 0, every user's first.
      const version = payload.ver ?? 0;
      if (typeof version !== 'number' || !Number.isInteger(version)) return null;
      const claims = { userId: payload.sub, accountId: payload.acc, version };
      // A token with `nbf` is not remembered: it may be refused now and accepted later.
      if (typeof payload.exp === 'number' && payload.nbf === undefined) {
        if (this.verified.size >= MEMO_SIZE) this.verified.clear();
        this.verified.set(token, { claims, exp: payload.exp });
      }
      return claims;
    } catch {
      return null;
    }
  }
}
