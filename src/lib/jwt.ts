import { webcrypto } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';

export interface AccessClaims {
  userId: string;
  accountId: string;
  /** The user's token version when the token was issued; a token of an older version is refused. */
  version: number;
}

/** HS256 access tokens shared by the REST API and the gateway. */
export class TokenService {
  /**
   * The secret imported once as an HMAC key: given the raw bytes, jose imports them again on every
   * call, which was most of a token check's cost (≈ 140 µs of CPU against ≈ 50 µs; every authenticated
   * request checks one — issue 26, bench/README.md `canned-picker`).
   */
  private readonly key: Promise<webcrypto.CryptoKey>;
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
    try {
      const { payload } = await jwtVerify(token, await this.key, {
        algorithms: ['HS256'],
        requiredClaims: ['exp'],
      });
      if (typeof payload.sub !== 'string' || typeof payload.acc !== 'string') return null;
      // Tokens issued before versions existed carry none: they are of version 0, every user's first.
      const version = payload.ver ?? 0;
      if (typeof version !== 'number' || !Number.isInteger(version)) return null;
      return { userId: payload.sub, accountId: payload.acc, version };
    } catch {
      return null;
    }
  }
}
