import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { SignJWT } from 'jose';
import { TokenService } from '../../src/lib/jwt.js';

// Verified tokens are remembered (their signature is not checked again), so what must hold is that a
// remembered token still expires, and that nothing but the exact token string is taken from memory.

const SECRET = 'a-secret-of-at-least-thirty-two-characters!';

describe('TokenService', () => {
  it('a token verified before is refused once it expires', async () => {
    const tokens = new TokenService(SECRET, 60);
    const token = await tokens.sign({ userId: 'u1', accountId: 'a1', version: 3 });
    assert.deepEqual(await tokens.verify(token), { userId: 'u1', accountId: 'a1', version: 3 });
    assert.deepEqual(await tokens.verify(token), { userId: 'u1', accountId: 'a1', version: 3 });
    mock.timers.enable({ apis: ['Date'], now: Date.now() + 61_000 });
    try {
      assert.equal(await tokens.verify(token), null);
      assert.equal(await tokens.verify(token), null);
    } finally {
      mock.timers.reset();
    }
  });

  it('a changed token is checked, not taken for the one remembered', async () => {
    const tokens = new TokenService(SECRET, 60);
    const token = await tokens.sign({ userId: 'u1', accountId: 'a1', version: 0 });
    assert.ok(await tokens.verify(token));
    const [head, , sig] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ sub: 'u2', acc: 'a1', ver: 0, exp: 9_999_999_999 })).toString(
      'base64url',
    );
    assert.equal(await tokens.verify(`${head}.${forged}.${sig}`), null);
    assert.equal(await tokens.verify(`${token}x`), null);
  });

  it('a token not yet valid (nbf) is not remembered as valid', async () => {
    const tokens = new TokenService(SECRET, 60);
    const key = new TextEncoder().encode(SECRET);
    const now = Math.floor(Date.now() / 1000);
    const later = await new SignJWT({ acc: 'a1', ver: 0 })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('u1')
      .setNotBefore(now + 30)
      .setExpirationTime(now + 60)
      .sign(key);
    assert.equal(await tokens.verify(later), null);
    mock.timers.enable({ apis: ['Date'], now: Date.now() + 31_000 });
    try {
      assert.deepEqual(await tokens.verify(later), { userId: 'u1', accountId: 'a1', version: 0 });
    } finally {
      mock.timers.reset();
    }
  });
});
