import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect } from '../helpers/gateway.js';
import { startOwnRedis, type OwnRedis } from '../helpers/own-redis.js';

// Two nodes on a Redis of the test's own, stopped and started again. While it is down the nodes
// answer at once (each `it` with a bounded `timeout` fails on a request waiting on the dead Redis),
// say so in /readyz, and hand out only their share of every rate-limit budget; once it is back the
// budgets are shared again.

const POINTS = 10;
const LOGIN_FAILURES = 4;
const READY_OK = { status: 'ok' };
const DEGRADED = { status: 'degraded', reason: 'redis unreachable' };

/** Waits for a state with no event of its own (what a node's /readyz says), checking it often. */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const statuses = (answers: TestResponse[]) => answers.map((r) => r.status);
const count = (answers: TestResponse[], status: number) => answers.filter((r) => r.status === status).length;

describe('Redis stopped and started again under two nodes', () => {
  let redis: OwnRedis;
  let a: TestApp;
  let b: TestApp;
  let f: Fixture;
  const nodes = () => [a, b];

  const readiness = async (t: TestApp) => (await t.request('GET', '/readyz')).body;
  const allReady = (expected: unknown) => async () => {
    for (const t of nodes()) {
      const body = await readiness(t);
      if (JSON.stringify(body) !== JSON.stringify(expected)) return false;
    }
    return true;
  };
  const login = (t: TestApp, email: string, password: string) =>
    t.request('POST', '/auth/login', { body: { email, password } });
  const listChats = (t: TestApp, key: string) =>
    t.request('GET', '/channel-api/chats', { headers: { authorization: `ApiKey ${key}` } });
  const spend = async (t: TestApp, key: string, n: number) => {
    const answers: TestResponse[] = [];
    for (let i = 0; i < n; i++) answers.push(await listChats(t, key));
    return answers;
  };

  before(async () => {
    redis = await startOwnRedis();
    const env = {
      REDIS_URL: redis.url,
      ATENDE_RATE_LIMIT_POINTS: String(POINTS),
      ATENDE_LOGIN_MAX_FAILURES: String(LOGIN_FAILURES),
    };
    // Frequent heartbeats, so each node soon knows the other shares the budgets.
    const configure = (c: { redisHeartbeatMs: number }) => (c.redisHeartbeatMs = 100);
    a = await startTestApp({ env, configure });
    b = await startTestApp({ env, configure, databaseUrl: a.databaseUrl });
    f = await seedAccount(a.server.services);
    await until(
      async () => nodes().every((t) => t.server.services.redisHealth?.nodeCount() === 2),
      'both nodes to count two nodes',
    );
  });
  after(async () => {
    await b?.close();
    await a?.close();
    await redis?.close();
  });

  it('is ready and spends one budget across nodes while Redis answers', { timeout: 10_000 }, async () => {
    for (const t of nodes()) assert.deepEqual(await readiness(t), READY_OK);
    const key = await f.makeKey();
    const [onA, onB] = [await spend(a, key, 6), await spend(b, key, 6)];
    assert.deepEqual(statuses(onA), [200, 200, 200, 200, 200, 200]);
    assert.deepEqual(statuses(onB), [200, 200, 200, 200, 429, 429]);
  });

  it('answers /readyz 200 degraded, with the reason, once Redis stops', { timeout: 15_000 }, async () => {
    await redis.stop();
    await until(allReady(DEGRADED), 'both nodes to report Redis unreachable');
    for (const t of nodes()) {
      const res = await t.request('GET', '/readyz');
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, DEGRADED);
    }
  });

  it('logs in and lists chats on both nodes while Redis is down', { timeout: 5_000 }, async () => {
    const agent = f.agents[0]!;
    for (const t of nodes()) {
      const res = await login(t, agent.email, 'agent-password');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const token = res.json.accessToken as string;
      const chats = await t.request('GET', '/api/chats', { headers: { authorization: `Bearer ${token}` } });
      assert.equal(chats.status, 200, JSON.stringify(chats.body));
      assert.equal((await listChats(t, await f.makeKey())).status, 200);
    }
  });

  it(
    'delivers events on their own node, and outlives a dropped client, while Redis is down',
    { timeout: 5_000 },
    async () => {
      const client = await connect(a.gatewayUrl!, { token: f.agents[0]!.token });
      try {
        assert.equal((await client.ack('user_join_team', [f.teams[0]!.id])).ok, true);
        const res = await a.request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/inbound`, {
          headers: { authorization: `Bearer ${f.adminToken}` },
          body: { from: '5511987000001', text: 'Oi' },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        const seen = await client.next('chat.new');
        assert.equal((seen.data as { chat: { id: string } }).chat.id, res.json.chatId);
        // A dropped connection (not a goodbye) makes the gateway keep its session for recovery, in Redis.
        const onServer = a.server.gateway!.io.of('/').sockets.get(client.socket.id!)!;
        const gone = new Promise<string>((resolve) => onServer.once('disconnect', resolve));
        client.socket.io.engine.close();
        assert.equal(await gone, 'transport close');
      } finally {
        client.close();
      }
      assert.deepEqual((await a.request('GET', '/healthz')).body, { status: 'ok' });
    },
  );

  it('hands out per node only the budget ÷ the nodes while Redis is down', { timeout: 5_000 }, async () => {
    const key = await f.makeKey();
    for (const t of nodes()) {
      const answers = await spend(t, key, 8);
      assert.equal(count(answers, 200), POINTS / 2, JSON.stringify(statuses(answers)));
      assert.equal(count(answers, 429), 8 - POINTS / 2);
      const last = answers.at(-1)!;
      assert.deepEqual(last.body, {
        statusCode: 429,
        message: `Limite de ${POINTS} requisições a cada 60 segundos por chave de API excedido`,
      });
      assert.ok(Number(last.headers.get('retry-after')) >= 1);
    }
  });

  it(
    'allows per node only its share of an email’s failed logins while Redis is down',
    { timeout: 5_000 },
    async () => {
      const agent = f.agents[1]!;
      for (const t of nodes()) {
        const answers: TestResponse[] = [];
        for (let i = 0; i < 3; i++) answers.push(await login(t, agent.email, `wrong-${i}`));
        assert.deepEqual(statuses(answers), [401, 401, 429]);
      }
    },
  );

  it('is ready again and shares the budget again once Redis is back', { timeout: 15_000 }, async () => {
    await redis.start();
    await until(allReady(READY_OK), 'both nodes to see Redis again');
    const key = await f.makeKey();
    const [onA, onB] = [await spend(a, key, 6), await spend(b, key, 6)];
    assert.deepEqual(statuses(onA), [200, 200, 200, 200, 200, 200]);
    assert.deepEqual(statuses(onB), [200, 200, 200, 200, 429, 429]);
  });
});

describe('a node started while Redis is down', () => {
  let redis: OwnRedis;
  let a: TestApp;
  let b: TestApp | undefined;
  let f: Fixture;

  before(async () => {
    redis = await startOwnRedis();
    await redis.stop();
    a = await startTestApp({ env: { REDIS_URL: redis.url } });
    f = await seedAccount(a.server.services);
  });
  after(async () => {
    await b?.close();
    await a?.close();
    await redis?.close();
  });

  it('serves, degraded, then joins the other nodes once Redis starts', { timeout: 30_000 }, async () => {
    const res = await a.request('GET', '/readyz');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, DEGRADED);
    const token = await a.request('POST', '/auth/login', {
      body: { email: f.agents[0]!.email, password: 'agent-password' },
    });
    assert.equal(token.status, 200, JSON.stringify(token.body));

    await redis.start();
    const ready = async () => JSON.stringify((await a.request('GET', '/readyz')).body) === '{"status":"ok"}';
    await until(ready, 'node A to see Redis');
    // Its gateway reads the shared stream too: an event caused through another node reaches it.
    b = await startTestApp({ env: { REDIS_URL: redis.url }, databaseUrl: a.databaseUrl });
    const client = await connect(a.gatewayUrl!, { token: f.agents[0]!.token });
    try {
      assert.equal((await client.ack('user_join_team', [f.teams[0]!.id])).ok, true);
      // The stream's readers of node A reconnect on their own schedule after Redis starts, and an entry
      // added before they read again is not theirs (they read from "now"): customers keep writing
      // through B until one of their chats reaches A's client through the stream.
      let seen = false;
      for (let i = 0; i < 10 && !seen; i++) {
        const sent: TestResponse = await b.request(
          'POST',
          `/api/sandbox/channels/${f.channels[0]!.id}/inbound`,
          {
            headers: { authorization: `Bearer ${f.adminToken}` },
            body: { from: `55119870000${10 + i}`, text: 'Oi' },
          },
        );
        assert.equal(sent.status, 201, JSON.stringify(sent.body));
        const chatId = sent.json.chatId as string;
        const arrived = client
          .next('chat.new', (e) => (e.data as { chat: { id: string } }).chat.id === chatId)
          .then(() => true);
        seen = await Promise.race([arrived, new Promise<boolean>((r) => setTimeout(() => r(false), 1_000))]);
      }
      assert.ok(seen, 'no event caused through node B reached the client on node A');
    } finally {
      client.close();
    }
  });
});

describe('a Redis that stops answering (hung, connections open)', () => {
  let redis: OwnRedis;
  let a: TestApp;
  let f: Fixture;

  before(async () => {
    redis = await startOwnRedis();
    a = await startTestApp({
      env: { REDIS_URL: redis.url },
      configure: (c) => (c.redisHeartbeatMs = 100),
    });
    f = await seedAccount(a.server.services);
  });
  after(async () => {
    redis?.resume();
    await a?.close();
    await redis?.close();
  });

  it(
    'answers while Redis hangs, reports it, and sees it again once it answers',
    { timeout: 10_000 },
    async () => {
      redis.pause();
      const res = await a.request('POST', '/auth/login', {
        body: { email: f.agents[0]!.email, password: 'agent-password' },
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(
        (
          await a.request('GET', '/channel-api/chats', {
            headers: { authorization: `ApiKey ${await f.makeKey()}` },
          })
        ).status,
        200,
      );
      const state = async () => JSON.stringify((await a.request('GET', '/readyz')).body);
      await until(
        async () => (await state()) === JSON.stringify(DEGRADED),
        'the node to report Redis unreachable',
      );
      redis.resume();
      await until(async () => (await state()) === JSON.stringify(READY_OK), 'the node to see Redis again');
    },
  );
});
