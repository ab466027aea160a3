import assert from 'node:assert/strict';
import { randomInt, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SignJWT, UnsecuredJWT } from 'jose';
import { sql } from 'kysely';
import { PERMISSIONS } from '../../src/access/permissions.js';
import { startTestApp, TEST_JWT_SECRET, type TestApp, type TestResponse } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/db.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connectError } from '../helpers/gateway.js';

const UNAUTHORIZED = { statusCode: 401, message: 'Credencial ausente ou inválida', error: 'Unauthorized' };
const BAD_LOGIN = { statusCode: 401, message: 'Email ou senha inválidos', error: 'Unauthorized' };
const TOO_MANY = {
  statusCode: 429,
  message: 'Muitas tentativas de login; tente novamente mais tarde',
  error: 'Too Many Requests',
};

const login = (t: TestApp, email: string, password: string, headers: Record<string, string> = {}) =>
  t.request('POST', '/auth/login', { body: { email, password }, headers });

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function signToken(
  claims: { userId: string; accountId: string },
  opts: { secret?: string; expiresAt: number },
): Promise<string> {
  return new SignJWT({ acc: claims.accountId })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(claims.userId)
    .setIssuedAt(opts.expiresAt - 3600)
    .setExpirationTime(opts.expiresAt)
    .sign(new TextEncoder().encode(opts.secret ?? TEST_JWT_SECRET));
}

/** The `access_token` cookie of a response, with its attributes lower-cased. */
function accessCookie(res: TestResponse): { value: string; attrs: Map<string, string> } | null {
  const raw = res.headers.getSetCookie().find((c) => c.startsWith('access_token='));
  if (!raw) return null;
  const [pair, ...rest] = raw.split(';').map((s) => s.trim());
  const attrs = new Map(
    rest.map((a) => {
      const [k, ...v] = a.split('=');
      return [k!.toLowerCase(), v.join('=')] as [string, string];
    }),
  );
  return { value: decodeURIComponent(pair!.slice('access_token='.length)), attrs };
}

async function roleIdOf(f: Fixture, userId: string): Promise<string> {
  const row = await f.services.db
    .selectFrom('users')
    .select('role_id')
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  return row.role_id;
}

describe('login and JWT authentication', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
  });
  after(async () => t?.close());

  it('answers 200 with the token, its type and lifetime, and the user without password material', async () => {
    const agent = f.agents[0]!;
    const res = await login(t, agent.email, 'agent-password');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.json).sort(), ['accessToken', 'expiresIn', 'tokenType', 'user']);
    assert.equal(typeof res.json.accessToken, 'string');
    assert.match(res.json.accessToken as string, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.equal(res.json.tokenType, 'Bearer');
    assert.equal(res.json.expiresIn, 12 * 3600);
    assert.deepEqual(res.json.user, {
      id: agent.id,
      name: 'Agente 0',
      email: agent.email,
      status: 'active',
      role: { id: await roleIdOf(f, agent.id), name: 'agent' },
      availability: 'offline',
    });
    assert.doesNotMatch(JSON.stringify(res.body), /password|hash|scrypt/i);
  });

  it('sets the token as an HttpOnly access_token cookie, which alone authenticates /api/me', async () => {
    const agent = f.agents[0]!;
    const res = await login(t, agent.email, 'agent-password');
    const cookie = accessCookie(res);
    assert.ok(cookie, `no access_token cookie in ${JSON.stringify(res.headers.getSetCookie())}`);
    assert.equal(cookie.value, res.json.accessToken);
    assert.ok(cookie.attrs.has('httponly'));
    assert.equal(cookie.attrs.get('path'), '/');
    assert.equal(cookie.attrs.get('samesite')?.toLowerCase(), 'lax');
    assert.equal(cookie.attrs.get('max-age'), String(12 * 3600));

    const me = await t.request('GET', '/api/me', { headers: { cookie: `access_token=${cookie.value}` } });
    assert.equal(me.status, 200, JSON.stringify(me.body));
    assert.deepEqual(me.json, {
      user: res.json.user,
      permissions: ['chats:attend', 'chats:transfer'],
    });
  });

  it('accepts the token in Authorization: Bearer', async () => {
    const res = await login(t, f.agents[1]!.email, 'agent-password');
    const me = await t.request('GET', '/api/me', { headers: bearer(res.json.accessToken as string) });
    assert.equal(me.status, 200, JSON.stringify(me.body));
    assert.equal((me.json.user as { id: string }).id, f.agents[1]!.id);
  });

  it('takes the email case- and space-insensitively', async () => {
    const res = await login(t, `  ${f.agents[0]!.email.toUpperCase()} `, 'agent-password');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal((res.json.user as { id: string }).id, f.agents[0]!.id);
  });

  it('answers 401 with one message for a wrong password, an unknown email and a cancelled user', async () => {
    const email = `cancelled-${randomUUID()}@example.com`;
    await f.services.users.create(f.admin, {
      name: 'Cancelado',
      email,
      password: 'right-password',
      role: 'agent',
      status: 'cancelled',
    });
    const answers = [
      await login(t, f.agents[0]!.email, 'wrong-password'),
      await login(t, `nobody-${randomUUID()}@example.com`, 'agent-password'),
      await login(t, email, 'right-password'),
    ];
    for (const res of answers) {
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, BAD_LOGIN);
      assert.equal(accessCookie(res), null, 'no cookie on a failed login');
    }
  });

  it('answers 401 without a token and with a malformed one', async () => {
    const attempts: Record<string, string>[] = [
      {},
      bearer('not-a-jwt'),
      { authorization: 'Bearer' },
      { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
      { cookie: 'access_token=garbage' },
    ];
    for (const headers of attempts) {
      const res = await t.request('GET', '/api/me', { headers });
      assert.equal(res.status, 401, JSON.stringify(headers));
      assert.deepEqual(res.body, UNAUTHORIZED);
    }
  });

  it('refuses an expired token, while the same token unexpired is accepted', async () => {
    const claims = { userId: f.agents[0]!.id, accountId: f.accountId };
    const now = Math.floor(Date.now() / 1000);
    const fresh = await signToken(claims, { expiresAt: now + 3600 });
    assert.equal((await t.request('GET', '/api/me', { headers: bearer(fresh) })).status, 200);

    const expired = await signToken(claims, { expiresAt: now - 60 });
    for (const headers of [bearer(expired), { cookie: `access_token=${expired}` }]) {
      const res = await t.request('GET', '/api/me', { headers });
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, UNAUTHORIZED);
    }
  });

  it('refuses a token without an expiry, on the API and the gateway, that it accepts with one', async () => {
    const key = new TextEncoder().encode(TEST_JWT_SECRET);
    const token = (exp: number | null) => {
      const jwt = new SignJWT({ acc: f.accountId, ver: 0 })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(f.agents[0]!.id)
        .setIssuedAt();
      return (exp === null ? jwt : jwt.setExpirationTime(exp)).sign(key);
    };
    const lasting = await token(Math.floor(Date.now() / 1000) + 3600);
    assert.equal((await t.request('GET', '/api/me', { headers: bearer(lasting) })).status, 200);
    const endless = await token(null);
    for (const headers of [bearer(endless), { cookie: `access_token=${endless}` }]) {
      const res = await t.request('GET', '/api/me', { headers });
      assert.deepEqual([res.status, res.body], [401, UNAUTHORIZED], JSON.stringify(headers));
    }
    assert.equal((await connectError(t.gatewayUrl!, { token: endless })).message, 'unauthorized');
  });

  it('refuses a token signed with another secret, an unsigned one, and one naming another account', async () => {
    const claims = { userId: f.agents[0]!.id, accountId: f.accountId };
    const expiresAt = Math.floor(Date.now() / 1000) + 3600;
    const tokens = [
      await signToken(claims, { expiresAt, secret: 'another-secret-another-secret-0123456789' }),
      new UnsecuredJWT({ acc: f.accountId }).setSubject(claims.userId).setExpirationTime(expiresAt).encode(),
      await signToken({ userId: f.agents[0]!.id, accountId: other.accountId }, { expiresAt }),
    ];
    for (const token of tokens) {
      const res = await t.request('GET', '/api/me', { headers: bearer(token) });
      assert.equal(res.status, 401, token);
      assert.deepEqual(res.body, UNAUTHORIZED);
    }
  });

  it('stops accepting the token of a user cancelled after logging in', async () => {
    const email = `leaving-${randomUUID()}@example.com`;
    const user = await f.services.users.create(f.admin, {
      name: 'De saída',
      email,
      password: 'leaving-password',
      role: 'agent',
    });
    const token = (await login(t, email, 'leaving-password')).json.accessToken as string;
    assert.equal((await t.request('GET', '/api/me', { headers: bearer(token) })).status, 200);

    const patch = await t.request('PATCH', `/api/users/${user.id}`, {
      headers: bearer(f.adminToken),
      body: { status: 'cancelled' },
    });
    assert.equal(patch.status, 200, JSON.stringify(patch.body));

    for (const headers of [bearer(token), { cookie: `access_token=${token}` }]) {
      const res = await t.request('GET', '/api/me', { headers });
      assert.equal(res.status, 401);
      assert.deepEqual(res.body, UNAUTHORIZED);
    }
    assert.deepEqual((await login(t, email, 'leaving-password')).body, BAD_LOGIN);
  });

  it('logs out by clearing the cookie', async () => {
    const res = await t.request('POST', '/auth/logout');
    assert.equal(res.status, 204);
    const cookie = accessCookie(res);
    assert.ok(cookie, 'logout sets an expiring access_token cookie');
    assert.equal(cookie.value, '');
    const expires = cookie.attrs.get('expires');
    assert.ok(
      cookie.attrs.get('max-age') === '0' || (expires && Date.parse(expires) <= Date.now()),
      JSON.stringify([...cookie.attrs]),
    );
  });
});

describe('login rate limit per email', () => {
  let t: TestApp;
  let f: Fixture;
  before(async () => {
    t = await startTestApp({
      env: { ATENDE_LOGIN_MAX_FAILURES: '3', ATENDE_LOGIN_MAX_FAILURES_PER_IP: '1000' },
    });
    f = await seedAccount(t.server.services);
  });
  after(async () => t?.close());

  it('answers 429 once an email has spent its failures from one IP, even to the right password; other emails go on', async () => {
    const agent = f.agents[0]!;
    for (let i = 0; i < 3; i++) {
      assert.deepEqual((await login(t, agent.email, `wrong-${i}`)).body, BAD_LOGIN);
    }
    const blocked = await login(t, agent.email, 'agent-password');
    assert.equal(blocked.status, 429);
    assert.deepEqual(blocked.body, TOO_MANY);
    const retryAfter = Number(blocked.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 15 * 60, String(retryAfter));
    assert.equal(accessCookie(blocked), null);
    // The same email written differently is the same budget.
    assert.equal((await login(t, ` ${agent.email.toUpperCase()}`, 'agent-password')).status, 429);

    const otherAgent = await login(t, f.agents[1]!.email, 'agent-password');
    assert.equal(otherAgent.status, 200, JSON.stringify(otherAgent.body));
  });

  it('resets the count of an email on a successful login', async () => {
    const agent = f.agents[1]!;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 2; i++) {
        assert.deepEqual((await login(t, agent.email, 'wrong')).body, BAD_LOGIN, `round ${round}`);
      }
      assert.equal((await login(t, agent.email, 'agent-password')).status, 200, `round ${round}`);
    }
  });

  it('limits unknown emails alike, so the answers do not tell which emails exist', async () => {
    const email = `nobody-${randomUUID()}@example.com`;
    for (let i = 0; i < 3; i++) assert.deepEqual((await login(t, email, 'x')).body, BAD_LOGIN);
    assert.deepEqual((await login(t, email, 'x')).body, TOO_MANY);
  });
});

describe('login rate limit per IP', () => {
  it('counts failures per client IP across emails, and ignores X-Forwarded-For from untrusted peers', async () => {
    const t = await startTestApp({
      env: {
        ATENDE_LOGIN_MAX_FAILURES: '100',
        ATENDE_LOGIN_MAX_FAILURES_PER_IP: '3',
        ATENDE_TRUST_PROXY: 'false',
      },
    });
    try {
      const f = await seedAccount(t.server.services);
      for (let i = 0; i < 3; i++) {
        const res = await login(t, `nobody-${i}-${randomUUID()}@example.com`, 'x', {
          'x-forwarded-for': `203.0.113.${i + 1}`,
        });
        assert.deepEqual(res.body, BAD_LOGIN);
      }
      const res = await login(t, f.agents[0]!.email, 'agent-password', { 'x-forwarded-for': '203.0.113.99' });
      assert.equal(res.status, 429);
      assert.deepEqual(res.body, TOO_MANY);
      assert.ok(Number(res.headers.get('retry-after')) >= 1);
    } finally {
      await t.close();
    }
  });

  it('takes the client IP from a configured proxy; successful logins spend nothing', async () => {
    const t = await startTestApp({
      env: {
        ATENDE_TRUST_PROXY: '127.0.0.1',
        ATENDE_LOGIN_MAX_FAILURES: '100',
        ATENDE_LOGIN_MAX_FAILURES_PER_IP: '2',
      },
    });
    try {
      const f = await seedAccount(t.server.services);
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      for (let i = 0; i < 4; i++) {
        const ok = await login(t, f.agents[0]!.email, 'agent-password', from('203.0.113.7'));
        assert.equal(ok.status, 200, JSON.stringify(ok.body));
      }
      for (let i = 0; i < 2; i++) {
        assert.deepEqual(
          (await login(t, `nobody-${i}@example.com`, 'x', from('203.0.113.7'))).body,
          BAD_LOGIN,
        );
      }
      const blocked = await login(t, f.agents[0]!.email, 'agent-password', from('203.0.113.7'));
      assert.deepEqual(blocked.body, TOO_MANY);
      // Another client behind the same proxy, and the proxy itself, keep their own budgets.
      assert.equal((await login(t, f.agents[0]!.email, 'agent-password', from('203.0.113.8'))).status, 200);
      assert.equal((await login(t, f.agents[1]!.email, 'agent-password')).status, 200);
    } finally {
      await t.close();
    }
  });
});

describe(
  'login rate limit shared through Redis',
  { skip: !process.env.REDIS_URL && 'REDIS_URL not set' },
  () => {
    it('spends one budget per email on every node', async () => {
      const env = {
        REDIS_URL: process.env.REDIS_URL!,
        ATENDE_LOGIN_MAX_FAILURES: '2',
        ATENDE_LOGIN_MAX_FAILURES_PER_IP: '1000000',
      };
      const a = await startTestApp({ env });
      const b = await startTestApp({ env, databaseUrl: a.databaseUrl });
      try {
        // Counters outlive the test in Redis: a fresh email and client address keep runs apart.
        const email = `nobody-${randomUUID()}@example.com`;
        const headers = { 'x-forwarded-for': `198.18.${randomInt(256)}.${randomInt(256)}` };
        assert.deepEqual((await login(a, email, 'x', headers)).body, BAD_LOGIN);
        assert.deepEqual((await login(b, email, 'x', headers)).body, BAD_LOGIN);
        assert.deepEqual((await login(a, email, 'x', headers)).body, TOO_MANY);
        assert.deepEqual((await login(b, email, 'x', headers)).body, TOO_MANY);
      } finally {
        await b.close();
        await a.close();
      }
    });
  },
);

describe('first-run admin', () => {
  it('creates the first account and admin on an empty database, and never a second one', async () => {
    const database = await createTestDatabase();
    try {
      const env = { ATENDE_ADMIN_EMAIL: 'Root@Example.com', ATENDE_ADMIN_PASSWORD: 'first-admin-password' };
      const first = await startTestApp({ databaseUrl: database.url, env });
      try {
        const res = await login(first, 'root@example.com', 'first-admin-password');
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const user = res.json.user as { id: string; role: { id: string } };
        assert.deepEqual(res.json.user, {
          id: user.id,
          name: 'Admin',
          email: 'root@example.com',
          status: 'active',
          role: { id: user.role.id, name: 'admin' },
          availability: 'offline',
        });
        const me = await first.request('GET', '/api/me', { headers: bearer(res.json.accessToken as string) });
        assert.deepEqual([...(me.json.permissions as string[])].sort(), [...PERMISSIONS].sort());
      } finally {
        await first.close();
      }

      // A restart, even with other first-run values, finds the installation set up.
      const second = await startTestApp({
        databaseUrl: database.url,
        env: { ATENDE_ADMIN_EMAIL: 'other@example.com', ATENDE_ADMIN_PASSWORD: 'other-admin-password' },
      });
      try {
        const db = second.server.services.db;
        const count = async (table: 'accounts' | 'users') =>
          Number(
            (
              await db
                .selectFrom(table)
                .select(sql<number>`count(*)`.as('n'))
                .executeTakeFirstOrThrow()
            ).n,
          );
        assert.equal(await count('accounts'), 1);
        assert.equal(await count('users'), 1);
        assert.equal((await login(second, 'root@example.com', 'first-admin-password')).status, 200);
        assert.deepEqual((await login(second, 'other@example.com', 'other-admin-password')).body, BAD_LOGIN);
      } finally {
        await second.close();
      }
    } finally {
      await database.drop();
    }
  });
});
