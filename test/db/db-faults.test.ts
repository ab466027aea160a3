// The built server on a PostgreSQL of the test's own, which the test cuts: connections terminated
// under load (a DBA's pg_terminate_backend, a failover) and the server stopped for a while. The node
// must stay up, answer 503 with Retry-After and the contract's body meanwhile, and serve again by
// itself once the database is back.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { httpRequest, TEST_JWT_SECRET, type TestResponse } from '../helpers/app.js';
import { FakeGraph } from '../helpers/fake-graph.js';
import { startOwnPostgres, type OwnPostgres } from '../helpers/own-postgres.js';
import { startBuiltServer, WAIT_MS, type Child } from '../helpers/processes.js';
import { startProxy, type Proxy } from '../helpers/proxy.js';
import { graphWebhook, hubSignature } from '../helpers/whatsapp.js';

const ADMIN = { email: 'owner@example.com', password: 'owner-password-1' };
const PHONE_NUMBER_ID = '1065403522429';
const APP_SECRET = 'app-secret';
const TEST_TIMEOUT = 4 * WAIT_MS;

/** Requests a load loop keeps in flight. */
const CONCURRENCY = 12;
/** Rounds of pg_terminate_backend, each after the load has made some progress. */
const ROUNDS = 12;

function assertUnavailable(res: TestResponse, what: string): void {
  assert.equal(res.status, 503, `${what}: ${JSON.stringify(res.body)}`);
  assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/, `${what}: Retry-After`);
  assert.deepEqual(Object.keys(res.json).sort(), ['error', 'message', 'statusCode'], what);
  assert.equal(res.json.statusCode, 503, what);
  assert.equal(res.json.error, 'Service Unavailable', what);
  assert.match(String(res.json.message), /database/, what);
}

/** /readyz polled until 200, within a bound: the pool reconnects on its own once the database is back. */
async function untilReady(url: string): Promise<void> {
  let last = 0;
  for (let i = 0; i < 100 && last !== 200; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 200));
    last = (await httpRequest(url, 'GET', '/readyz')).status;
  }
  assert.equal(last, 200, 'the node did not become ready again');
}

describe('a database that drops connections or goes away', () => {
  let own: OwnPostgres;
  let fake: FakeGraph;
  let child: Child | null = null;
  let url: string;
  let auth: Record<string, string>;

  before(async () => {
    own = await startOwnPostgres();
    fake = await FakeGraph.start();
    const admin = new pg.Client({ connectionString: own.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE atende');
    await admin.end();
    const started = await startBuiltServer({
      DATABASE_URL: own.url('atende'),
      ATENDE_JWT_SECRET: TEST_JWT_SECRET,
      ATENDE_ADMIN_EMAIL: ADMIN.email,
      ATENDE_ADMIN_PASSWORD: ADMIN.password,
      WHATSAPP_GRAPH_BASE_URL: fake.url,
    });
    child = started.child;
    url = started.url;
    const login = await httpRequest(url, 'POST', '/auth/login', { body: ADMIN });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    auth = { authorization: `Bearer ${String(login.json.accessToken)}` };
  });

  after(async () => {
    if (child && child.proc.exitCode === null && child.proc.signalCode === null) {
      child.proc.kill('SIGTERM');
      await child.exitCode();
    }
    await own?.destroy();
    await fake?.close();
  });

  const alive = () => child!.proc.exitCode === null && child!.proc.signalCode === null;
  const tail = () => `\n--- stdout ---\n${child!.stdout().slice(-4000)}\n--- stderr ---\n${child!.stderr()}`;

  it(
    'pg_terminate_backend under load: the node stays up, answers 2xx or 503, and serves on',
    { timeout: TEST_TIMEOUT },
    async () => {
      const answers: TestResponse[] = [];
      const failures: unknown[] = [];
      let running = true;
      // Resolved by the load whenever a request completes, so a round waits for progress, not time.
      let progressed: () => void = () => undefined;
      const loop = async (worker: number) => {
        for (let i = 0; running; i++) {
          try {
            // Writes run in transactions (connections checked out between statements), reads alone.
            answers.push(
              i % 2 === 0
                ? await httpRequest(url, 'POST', '/api/teams', {
                    headers: auth,
                    body: { name: `Equipe ${worker}-${i}` },
                  })
                : await httpRequest(url, 'GET', '/api/teams', { headers: auth }),
            );
          } catch (err) {
            failures.push(err);
            running = false;
          }
          progressed();
        }
      };
      const loops = Array.from({ length: CONCURRENCY }, (_, w) => loop(w));

      let terminated = 0;
      for (let round = 0; round < ROUNDS && running; round++) {
        const target = answers.length + CONCURRENCY;
        while (running && answers.length < target) await new Promise<void>((r) => (progressed = r));
        terminated += await own.terminateBackends('atende');
      }
      running = false;
      await Promise.all(loops);

      assert.ok(terminated > 0, 'no connection was terminated');
      assert.deepEqual(failures, [], `requests failed at the socket (the node died?)${tail()}`);
      assert.ok(alive(), `the node exited${tail()}`);
      for (const res of answers) {
        if (res.status === 503) assertUnavailable(res, 'during terminations');
        else assert.ok(res.status === 200 || res.status === 201, `${res.status} ${JSON.stringify(res.body)}`);
      }

      await untilReady(url);
      const created = await httpRequest(url, 'POST', '/api/teams', {
        headers: auth,
        body: { name: 'Depois' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.ok(alive(), `the node exited${tail()}`);
    },
  );

  it(
    'stopped: 503 with Retry-After and the contract body, then serving again by itself',
    { timeout: TEST_TIMEOUT },
    async () => {
      await own.stop();
      try {
        assertUnavailable(await httpRequest(url, 'GET', '/api/teams', { headers: auth }), 'GET /api/teams');
        assertUnavailable(
          await httpRequest(url, 'POST', '/api/teams', { headers: auth, body: { name: 'Durante' } }),
          'POST /api/teams',
        );
        assertUnavailable(await httpRequest(url, 'POST', '/auth/login', { body: ADMIN }), 'POST /auth/login');
        assert.equal((await httpRequest(url, 'GET', '/readyz')).status, 503);
      } finally {
        await own.start();
      }

      await untilReady(url);
      const created = await httpRequest(url, 'POST', '/api/teams', {
        headers: auth,
        body: { name: 'De volta' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const login = await httpRequest(url, 'POST', '/auth/login', { body: ADMIN });
      assert.equal(login.status, 200, JSON.stringify(login.body));
      assert.ok(alive(), `the node exited${tail()}`);
    },
  );

  it(
    'background work resumes after an outage: sends reach the provider, webhooks are processed',
    { timeout: TEST_TIMEOUT },
    async () => {
      const team = await httpRequest(url, 'POST', '/api/teams', { headers: auth, body: { name: 'Suporte' } });
      assert.equal(team.status, 201, JSON.stringify(team.body));
      const channel = await httpRequest(url, 'POST', '/api/channels', {
        headers: auth,
        body: {
          name: 'WhatsApp',
          provider: 'whatsapp-cloud',
          defaultTeamId: team.json.id,
          providerConfig: {
            phoneNumberId: PHONE_NUMBER_ID,
            accessToken: 'test-token',
            appSecret: APP_SECRET,
            verifyToken: 'verify',
          },
        },
      });
      assert.equal(channel.status, 201, JSON.stringify(channel.body));
      const channelId = String(channel.json.id);
      const keyRes = await httpRequest(url, 'POST', `/api/channels/${channelId}/api-key`, { headers: auth });
      const key = { 'x-channel-api-key': String(keyRes.json.apiKey) };

      const stoppedAt = Date.now();
      await own.stop();
      try {
        // Both kinds of background loop have met the outage: the send queue and pg-boss's workers.
        const since = (msg: string) => (l: Record<string, unknown>) =>
          l.msg === msg && Number(l.time) >= stoppedAt;
        await child!.waitForLog(since('send queue: fetching jobs failed'));
        await child!.waitForLog(since('job queue: database unreachable'));
      } finally {
        await own.start();
      }
      await untilReady(url);

      const accepted = await httpRequest(url, 'POST', '/channel-api/messages/send', {
        headers: key,
        body: { contact: { value: '5511987654321' }, message: { type: 'text', text: { value: 'De volta' } } },
      });
      assert.equal(accepted.status, 201, JSON.stringify(accepted.body));
      const sent = await fake.nextRequest();
      assert.equal((sent.json as { text?: { body?: string } }).text?.body, 'De volta');

      const raw = JSON.stringify(
        graphWebhook(PHONE_NUMBER_ID, {
          contacts: [{ profile: { name: 'Cliente' }, wa_id: '5521912345678' }],
          messages: [
            {
              from: '5521912345678',
              id: 'wamid.after-outage',
              timestamp: String(Math.floor(Date.now() / 1000)),
              type: 'text',
              text: { body: 'Oi' },
            },
          ],
        }),
      );
      const hook = await httpRequest(url, 'POST', `/webhooks/whatsapp/${channelId}`, {
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(APP_SECRET, raw) },
        raw,
      });
      assert.equal(hook.status, 200, JSON.stringify(hook.body));
      // The inbound job runs on pg-boss: its message shows up once the worker has processed it.
      const reader = new pg.Client({ connectionString: own.url('atende') });
      await reader.connect();
      try {
        let stored = 0;
        for (let i = 0; i < 200 && stored === 0; i++) {
          if (i > 0) await new Promise((r) => setTimeout(r, 100));
          const res = await reader.query('SELECT 1 FROM messages WHERE provider_message_id = $1', [
            'wamid.after-outage',
          ]);
          stored = res.rowCount ?? 0;
        }
        assert.equal(stored, 1, 'the inbound webhook was not processed after the outage');
      } finally {
        await reader.end();
      }
      assert.ok(alive(), `the node exited${tail()}`);
    },
  );
});

describe('a database that stops answering (vanished from the network)', () => {
  let own: OwnPostgres;
  let proxy: Proxy;
  let child: Child | null = null;
  let url: string;

  before(async () => {
    own = await startOwnPostgres();
    const admin = new pg.Client({ connectionString: own.url() });
    await admin.connect();
    await admin.query('CREATE DATABASE atende');
    await admin.end();
    // The node reaches the database through a proxy the test can silence.
    proxy = await startProxy(own.url('atende'));
    const started = await startBuiltServer({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${new URL(proxy.url).port}/atende`,
      ATENDE_JWT_SECRET: TEST_JWT_SECRET,
      ATENDE_ADMIN_EMAIL: ADMIN.email,
      ATENDE_ADMIN_PASSWORD: ADMIN.password,
    });
    child = started.child;
    url = started.url;
  });

  after(async () => {
    if (child && child.proc.exitCode === null && child.proc.signalCode === null) {
      child.proc.kill('SIGTERM');
      await child.exitCode();
    }
    await proxy?.close();
    await own?.destroy();
  });

  it(
    'answers 503 instead of waiting for a connection forever, then serves again',
    { timeout: TEST_TIMEOUT },
    async () => {
      assert.equal((await httpRequest(url, 'POST', '/auth/login', { body: ADMIN })).status, 200);
      proxy.stall();
      try {
        // Bounded only so that a hang fails the test rather than the whole run.
        const res = await fetch(`${url}/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(ADMIN),
          signal: AbortSignal.timeout(WAIT_MS),
        });
        const body = (await res.json()) as Record<string, unknown>;
        assertUnavailable({ status: res.status, headers: res.headers, body, json: body }, 'POST /auth/login');
      } finally {
        proxy.resume();
      }
      await untilReady(url);
      assert.equal((await httpRequest(url, 'POST', '/auth/login', { body: ADMIN })).status, 200);
      assert.ok(child!.proc.exitCode === null && child!.proc.signalCode === null, 'the node exited');
    },
  );
});
