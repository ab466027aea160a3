// The process entry points as an operator meets them: invalid configuration is refused with a clear
// message, and `atende demo` / `atende migrate` prepare a database the server then uses.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/db.js';
import { CLI, MAIN, runNode, WAIT_MS } from '../helpers/processes.js';
import { defaultPoolSize, loadConfig } from '../../src/config.js';

const TEST_TIMEOUT = 2 * WAIT_MS;

describe('invalid configuration', () => {
  const bad = {
    PORT: 'abc',
    DATABASE_URL: 'mysql://x',
    ATENDE_ADMIN_EMAIL: 'admin@example.com',
    ATENDE_ROLES: 'foo',
    LOG_LEVEL: 'loud',
    ATENDE_DB_POOL_SIZE: '0',
  };

  for (const script of [MAIN, CLI]) {
    const name = script === MAIN ? 'the server' : 'atende demo';
    it(
      `${name} exits 2 naming every bad variable, without a stack trace`,
      { timeout: TEST_TIMEOUT },
      async () => {
        const res = await runNode(script, script === CLI ? ['demo'] : [], bad);
        assert.equal(res.code, 2, res.stderr);
        assert.match(res.stderr, /^Invalid configuration:/);
        for (const variable of Object.keys(bad)) {
          assert.match(res.stderr, new RegExp(`^  - .*${variable}`, 'm'), `${variable} is not named`);
        }
        assert.match(res.stderr, /PORT must be an integer between 0 and 65535 \(got "abc"\)/);
        assert.match(res.stderr, /DATABASE_URL must use one of postgres:, postgresql: \(got "mysql:"\)/);
        assert.match(res.stderr, /ATENDE_ADMIN_EMAIL and ATENDE_ADMIN_PASSWORD must be set together/);
        assert.doesNotMatch(res.stderr, /\n\s+at /, 'stack trace');
        assert.equal(res.stdout, '', 'nothing was started');
      },
    );
  }

  it('reports each variable on its own', { timeout: TEST_TIMEOUT }, async () => {
    const results = await Promise.all(
      Object.entries(bad).map(async ([variable, value]) => ({
        variable,
        res: await runNode(MAIN, [], { [variable]: value }),
      })),
    );
    for (const { variable, res } of results) {
      assert.equal(res.code, 2, `${variable}: ${res.stderr}`);
      assert.match(
        res.stderr,
        new RegExp(`^Invalid configuration:\\n  - .*${variable}[^\\n]*\\n$`),
        variable,
      );
    }
  });
});

describe('database pool', () => {
  it('is two connections per core plus four, at most 20, unless ATENDE_DB_POOL_SIZE says', () => {
    assert.deepEqual(
      [1, 2, 4, 8, 64].map((cores) => defaultPoolSize(cores)),
      [6, 8, 12, 20, 20],
    );
    assert.equal(loadConfig({}).dbPoolSize, defaultPoolSize());
    assert.equal(loadConfig({ ATENDE_DB_POOL_SIZE: '3' }).dbPoolSize, 3);
  });
});

describe('ports', () => {
  it(
    'equal PORT and GATEWAY_PORT are refused before anything starts',
    { timeout: TEST_TIMEOUT },
    async () => {
      const res = await runNode(MAIN, [], { PORT: '4555', GATEWAY_PORT: '4555' });
      assert.equal(res.code, 2, res.stderr);
      assert.equal(
        res.stderr,
        'Invalid configuration:\n  - PORT and GATEWAY_PORT must differ (both are 4555)\n',
      );
    },
  );
});

describe('atende command', () => {
  it(
    'prints its usage for help, refuses unknown commands and options',
    { timeout: TEST_TIMEOUT },
    async () => {
      const help = await runNode(CLI, ['help'], {});
      assert.equal(help.code, 0);
      assert.match(help.stdout, /Usage: atende <command>/);
      assert.match(help.stdout, /demo/);
      assert.match(help.stdout, /migrate/);

      const unknown = await runNode(CLI, ['frobnicate'], {});
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /Unknown command: frobnicate/);

      const option = await runNode(CLI, ['demo', '--force'], { DATABASE_URL: 'postgres://127.0.0.1:1/none' });
      assert.equal(option.code, 2);
      assert.match(option.stderr, /Unknown option for demo: --force/);
    },
  );

  it('migrate applies the migrations of an empty database and exits', { timeout: TEST_TIMEOUT }, async () => {
    const fresh = await createTestDatabase();
    try {
      const res = await runNode(CLI, ['migrate'], { DATABASE_URL: fresh.url });
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stdout, /migrations are up to date/);
      const client = new pg.Client({ connectionString: fresh.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ name: string }>('SELECT name FROM kysely_migration');
        assert.ok(
          rows.some((r) => r.name === '001_foundation'),
          JSON.stringify(rows),
        );
      } finally {
        await client.end();
      }
    } finally {
      await fresh.drop();
    }
  });

  it('says clearly when the database cannot be reached', { timeout: TEST_TIMEOUT }, async () => {
    const res = await runNode(CLI, ['migrate'], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    assert.equal(res.code, 1);
    assert.match(res.stderr, /^atende migrate failed: .*ECONNREFUSED/);
    assert.doesNotMatch(res.stderr, /\n\s+at /);
  });
});

describe('atende demo', () => {
  let fresh: { url: string; drop: () => Promise<void> };
  let app: TestApp | undefined;
  before(async () => {
    fresh = await createTestDatabase();
  });
  after(async () => {
    await app?.close();
    await fresh?.drop();
  });

  const keysOf = (out: string) => ({
    account: /Account API key \(scopes [^)]*\): (ak_\S+)/.exec(out)?.[1],
    channel: /Channel API key \(x-channel-api-key of channel Sandbox\): (ck_\S+)/.exec(out)?.[1],
    admin: /^\s+admin\s+Alice Admin\s+(\S+)\s+(\S+)$/m.exec(out),
  });

  it(
    'creates a ready-to-try account whose printed keys and logins work',
    { timeout: TEST_TIMEOUT },
    async () => {
      const first = await runNode(CLI, ['demo'], { DATABASE_URL: fresh.url, PORT: '4321' });
      assert.equal(first.code, 0, first.stderr);
      assert.match(first.stdout, /^Demo account "Demo" created\.\n/);
      const keys = keysOf(first.stdout);
      assert.ok(keys.account && keys.channel && keys.admin, first.stdout);
      const [, adminEmail, adminPassword] = keys.admin;
      assert.equal(adminEmail, 'admin@demo.atende.test');
      // Copy-pasteable commands against the configured port, with the keys filled in.
      assert.ok(first.stdout.includes('export BASE=http://127.0.0.1:4321'));
      assert.ok(first.stdout.includes(`export ACCOUNT_KEY='${keys.account}'`));
      assert.ok(first.stdout.includes(`export CHANNEL_KEY='${keys.channel}'`));
      for (const route of [
        '/channel-api/chats',
        '/channel-api/users',
        '/channel-api/teams',
        '/channel-api/chats/$CHAT_ID/transfer/user',
        '/channel-api/chats/$CHAT_ID/transfer/team',
        '/channel-api/messages/send',
        '/api/sandbox/channels/',
      ]) {
        assert.ok(first.stdout.includes(`$BASE${route}`), route);
      }

      app = await startTestApp({ databaseUrl: fresh.url });
      const auth = { authorization: `ApiKey ${keys.account}` };
      const users = await app.request('GET', '/channel-api/users', { headers: auth });
      assert.equal(users.status, 200, JSON.stringify(users.body));
      assert.deepEqual((users.body as { email: string }[]).map((u) => u.email).sort(), [
        'admin@demo.atende.test',
        'bruno@demo.atende.test',
        'carla@demo.atende.test',
      ]);
      const teams = await app.request('GET', '/channel-api/teams', { headers: auth });
      assert.deepEqual(
        (teams.body as { name: string; members: string[] }[]).map((t) => [t.name, t.members.length]),
        [
          ['Suporte', 1],
          ['Vendas', 1],
        ],
      );
      const chats = await app.request('GET', '/channel-api/chats?queue=Espera', { headers: auth });
      assert.equal(chats.json.total, 1, JSON.stringify(chats.body));

      const login = await app.request('POST', '/auth/login', {
        body: { email: adminEmail, password: adminPassword },
      });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      const channels = await app.request('GET', '/api/channels', {
        headers: { authorization: `Bearer ${String(login.json.accessToken)}` },
      });
      assert.deepEqual(
        (channels.body as { provider: string; hasApiKey: boolean; apiEnabled: boolean }[]).map((c) => [
          c.provider,
          c.hasApiKey,
          c.apiEnabled,
        ]),
        [['sandbox', true, true]],
      );

      // A second run makes a second, separate account and says so; the first one keeps working. Given
      // no PORT, its examples point at the port the server really listens on (a free one here, as a
      // server started with PORT=4500 and stopped before `npm run demo` would be), not the default.
      const second = await runNode(CLI, ['demo', '--json'], { DATABASE_URL: fresh.url });
      assert.equal(second.code, 0, second.stderr);
      const account = JSON.parse(second.stdout) as {
        accountName: string;
        baseUrl: string;
        admin: { email: string };
        accountApiKey: { token: string };
      };
      assert.notEqual(new URL(app.url).port, '3000');
      assert.equal(account.baseUrl, app.url);
      assert.equal(account.accountName, 'Demo 2');
      assert.equal(account.admin.email, 'admin@demo2.atende.test');
      const users2 = await app.request('GET', '/channel-api/users', {
        headers: { authorization: `ApiKey ${account.accountApiKey.token}` },
      });
      assert.deepEqual((users2.body as { email: string }[]).map((u) => u.email).sort(), [
        'admin@demo2.atende.test',
        'bruno@demo2.atende.test',
        'carla@demo2.atende.test',
      ]);
      assert.equal((await app.request('GET', '/channel-api/users', { headers: auth })).status, 200);

      const third = await runNode(CLI, ['demo'], { DATABASE_URL: fresh.url });
      assert.equal(third.code, 0, third.stderr);
      assert.match(third.stdout, /^Demo account "Demo 3" created\. \(An earlier demo account exists/);
      // The printed lines agree with that server: the BASE it uses, and how to start it there again.
      assert.ok(third.stdout.includes(`export BASE=${app.url}\n`), third.stdout);
      assert.ok(third.stdout.includes(`(PORT=${new URL(app.url).port} npm start)`), third.stdout);
      // A PORT given to the demo is what it uses: the server will be started with the same one.
      const fourth = await runNode(CLI, ['demo', '--json'], { DATABASE_URL: fresh.url, PORT: '4500' });
      assert.equal(fourth.code, 0, fourth.stderr);
      assert.equal((JSON.parse(fourth.stdout) as { baseUrl: string }).baseUrl, 'http://127.0.0.1:4500');
    },
  );
});
