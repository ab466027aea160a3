// The first minutes of an installation as an operator meets them: a server with no user says how to
// create the first admin, `atende admin create` creates it, and each request is one log line without
// the credentials it carried.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { httpRequest } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/db.js';
import { childEnv, CLI, ROOT, startBuiltServer, WAIT_MS, type Child } from '../helpers/processes.js';

const TEST_TIMEOUT = 3 * WAIT_MS;

/** `atende admin create …` with `input` on its standard input (a pipe, as a script would). */
function adminCreate(
  databaseUrl: string,
  args: string[],
  input: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn(process.execPath, [CLI, 'admin', 'create', ...args], {
    cwd: ROOT,
    env: childEnv({ DATABASE_URL: databaseUrl }),
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  proc.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  proc.stdin.end(input);
  return new Promise((resolve) => proc.on('exit', (code) => resolve({ code, stdout, stderr })));
}

const logLines = (child: Child) =>
  child
    .stdout()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('first run', () => {
  let fresh: { url: string; drop: () => Promise<void> };
  const children: Child[] = [];
  before(async () => {
    fresh = await createTestDatabase();
  });
  after(async () => {
    for (const c of children) c.proc.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    await fresh?.drop();
  });

  it(
    'warns how to create the first admin; atende admin create makes one; then the warning is gone',
    { timeout: TEST_TIMEOUT },
    async () => {
      const first = await startBuiltServer({ DATABASE_URL: fresh.url });
      children.push(first.child);
      const warning = await first.child.waitForLog(
        (l) => l.level === 40 && /No user exists yet/.test(String(l.msg)),
      );
      assert.match(String(warning.msg), /npm run admin:create -- --email/);
      assert.match(String(warning.msg), /ATENDE_ADMIN_EMAIL and ATENDE_ADMIN_PASSWORD/);
      assert.equal((await httpRequest(first.url, 'GET', '/console.json')).json.needsFirstAdmin, true);

      // Refused: a bad email, a short password — nothing created.
      const bad = await adminCreate(fresh.url, ['--email', 'not-an-email'], 'long-enough-1\n');
      assert.equal(bad.code, 2, bad.stderr);
      assert.match(bad.stderr, /Not an email address: not-an-email/);
      const short = await adminCreate(fresh.url, ['--email', 'owner@example.com'], 'short\n');
      assert.equal(short.code, 2, short.stderr);
      assert.match(short.stderr, /The password must have 8 to 200 characters/);

      const made = await adminCreate(
        fresh.url,
        ['--email', 'Owner@Example.com', '--name', 'Olga Owner', '--account', 'Loja'],
        'owner-password-1\n',
      );
      assert.equal(made.code, 0, made.stderr);
      assert.match(made.stdout, /Created account "Loja" and its admin owner@example\.com/);
      const login = await httpRequest(first.url, 'POST', '/auth/login', {
        body: { email: 'owner@example.com', password: 'owner-password-1' },
      });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      assert.equal((await httpRequest(first.url, 'GET', '/console.json')).json.needsFirstAdmin, false);

      const again = await adminCreate(fresh.url, ['--email', 'owner@example.com'], 'owner-password-2\n');
      assert.equal(again.code, 1, again.stderr);
      assert.match(again.stderr, /^atende admin: a user with the email owner@example\.com already exists\n$/);

      first.child.proc.kill('SIGTERM');
      assert.equal((await first.child.exited).code, 0);
      const second = await startBuiltServer({ DATABASE_URL: fresh.url });
      children.push(second.child);
      assert.ok(
        !logLines(second.child).some((l) => /No user exists yet/.test(String(l.msg))),
        second.child.stdout(),
      );
    },
  );

  it(
    'logs each request once, with its id, method, url, status and time, and no credential',
    { timeout: TEST_TIMEOUT },
    async () => {
      const { child, url } = await startBuiltServer({ DATABASE_URL: fresh.url, LOG_LEVEL: 'info' });
      children.push(child);
      const secret = 'tok-very-secret-1234';
      const res = await httpRequest(
        url,
        'GET',
        `/webhooks/whatsapp/000000000000000000000000?hub.mode=subscribe&hub.verify_token=${secret}&hub.challenge=1`,
        {
          headers: {
            authorization: `Bearer ${secret}`,
            cookie: `access_token=${secret}`,
            'x-request-id': 'log-check-1',
          },
        },
      );
      assert.equal(res.headers.get('x-request-id'), 'log-check-1');
      const line = await child.waitForLog((l) => l.reqId === 'log-check-1');
      assert.equal(line.msg, 'request completed');
      assert.equal(line.method, 'GET');
      assert.equal(
        line.url,
        '/webhooks/whatsapp/000000000000000000000000?hub.mode=subscribe&hub.verify_token=[redacted]&hub.challenge=1',
      );
      assert.equal(line.statusCode, res.status);
      assert.equal(line.remoteAddress, '127.0.0.1');
      assert.equal(typeof line.responseTime, 'number');
      assert.equal(line.level, 30);
      // The answer is written after the log line: a second request's line means the first's are all out.
      await httpRequest(url, 'GET', '/healthz', { headers: { 'x-request-id': 'log-check-2' } });
      await child.waitForLog((l) => l.reqId === 'log-check-2');
      assert.equal(logLines(child).filter((l) => l.reqId === 'log-check-1').length, 1, child.stdout());
      assert.ok(!child.stdout().includes(secret), 'a credential reached the log');
    },
  );
});
