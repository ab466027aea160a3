import { createHash, randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCb) as (
  pw: string,
  salt: Buffer,
  len: number,
  opts: object,
) => Promise<Buffer>;
const SCRYPT = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** `scrypt$N$r$p$salt$hash`, so parameters can be raised later without breaking stored hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return timingSafeEqual(actual, expected);
}

/** A hash with the same cost as a real one, so that unknown emails take as long as wrong passwords. */
export const DUMMY_PASSWORD_HASH =
  'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$LXItd9mcru583Tx+KQk9JVfN268kUDBAHryAaAG0e48=';

/**
 * API tokens are `<prefix>_<24-hex id>_<secret>`: the id finds the row by primary key and the secret's
 * SHA-256 is compared in constant time. The secret has 256 bits of entropy, so a fast hash is enough.
 */
export function newToken(prefix: string, id: string): { token: string; hash: Buffer } {
  const secret = randomBytes(32).toString('base64url');
  return { token: `${prefix}_${id}_${secret}`, hash: sha256(secret) };
}

export function parseToken(prefix: string, token: string): { id: string; secret: string } | null {
  const m = /^([a-z]+)_([0-9a-f]{24})_([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m || m[1] !== prefix) return null;
  return { id: m[2] as string, secret: m[3] as string };
}

export function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

export function safeEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}
