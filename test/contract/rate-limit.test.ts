import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// The Channel API budget per account API key: 120 requests per 60 s by default, shared through Redis.

const UNAUTHORIZED = { statusCode: 401, message: 'Credencial ausente ou inválida', error: 'Unauthorized' };
const NOT_FOUND = { statusCode: 404, message: 'Not Found', error: 'Not Found' };
const tooMany = (points: number) => ({
  statusCode: 429,
  message: `Limite de ${points} requisições a cada 60 segundos por chave de API excedido`,
});

/** Runs `n` calls with at most `width` in flight, keeping the answers in call order. */
async function inParallel<T>(n: number, width: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

const header = (res: TestResponse, name: string) => res.headers.get(name);
const remaining = (res: TestResponse) => Number(header(res, 'ratelimit-remaining'));

/** A 429 compared whole: the contract body (no `error`) and the headers that say when to come back. */
function assertTooMany(res: TestResponse, points: number, what = '') {
  assert.equal(res.status, 429, `${what} ${JSON.stringify(res.body)}`);
  assert.deepEqual(res.body, tooMany(points), what);
  assert.match(header(res, 'content-type') ?? '', /^application\/json/);
  const retryAfter = Number(header(res, 'retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  assert.equal(header(res, 'ratelimit-limit'), String(points));
  assert.equal(header(res, 'ratelimit-remaining'), '0');
  const reset = Number(header(res, 'ratelimit-reset'));
  assert.ok(Number.isInteger(reset) && reset >= 0 && reset <= 60, `RateLimit-Reset ${reset}`);
}

function assertBudgetHeaders(res: TestResponse, points: number, left: number, what = '') {
  assert.equal(header(res, 'ratelimit-limit'), String(points), what);
  assert.equal(header(res, 'ratelimit-remaining'), String(left), what);
  const reset = Number(header(res, 'ratelimit-reset'));
  assert.ok(Number.isInteger(reset) && reset >= 0 && reset <= 60, `${what} RateLimit-Reset ${reset}`);
  assert.equal(header(res, 'retry-after'), null, what);
}

describe('rate limit, default budget', () => {
  let t: TestApp;
  let f: Fixture;
  let chatId: string;
  const get = (path: string, key: string) =>
    t.request('GET', path, { headers: { authorization: `ApiKey ${key}` } });

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
    chatId = await f.inbound(0, '5511985000001');
  });
  after(async () => t?.close());

  it('carries RateLimit headers on every answer of a key, the remaining budget going down', async () => {
    const key = await f.makeKey();
    const answers = [
      await get('/channel-api/chats', key),
      await get('/channel-api/users', key),
      await get('/channel-api/teams', key),
      await get('/channel-api/chats?limit=0', key),
      await t.request('POST', `/channel-api/chats/${chatId}/transfer/team`, {
        headers: { authorization: `ApiKey ${key}` },
        body: { teamId: f.teams[1]!.id },
      }),
    ];
    assert.deepEqual(
      answers.map((r) => r.status),
      [200, 200, 200, 400, 200],
    );
    answers.forEach((res, i) => assertBudgetHeaders(res, 120, 119 - i, `answer ${i}`));

    // A 404 for a missing scope spends the key's budget and says so.
    const scoped = await f.makeKey(['users:read']);
    const notFound = await get('/channel-api/chats', scoped);
    assert.deepEqual([notFound.status, notFound.body], [404, NOT_FOUND]);
    assertBudgetHeaders(notFound, 120, 119);

    // Without a valid key there is no budget to report.
    const unauthorized = await t.request('GET', '/channel-api/chats', { headers: {} });
    assert.deepEqual([unauthorized.status, unauthorized.body], [401, UNAUTHORIZED]);
    assert.equal(header(unauthorized, 'ratelimit-limit'), null);
  });

  it('answers the 121st request of a key with 429, and no other key is affected', async () => {
    const key = await f.makeKey();
    const bystander = await f.makeKey();
    const answers = await inParallel(120, 8, () => get('/channel-api/teams', key));
    assert.deepEqual(
      answers.map((r) => r.status),
      Array(120).fill(200),
    );
    // Each of the 120 requests spent exactly one point.
    assert.deepEqual(
      answers.map(remaining).sort((a, b) => a - b),
      Array.from({ length: 120 }, (_, i) => i),
    );

    assertTooMany(await get('/channel-api/teams', key), 120, '121st');
    // The budget is per key, across every account-key route.
    assertTooMany(await get('/channel-api/chats', key), 120, 'chats');
    assertTooMany(await get('/channel-api/users', key), 120, 'users');
    for (const kind of ['team', 'user'] as const) {
      const res = await t.request('POST', `/channel-api/chats/${chatId}/transfer/${kind}`, {
        headers: { authorization: `ApiKey ${key}` },
        body: kind === 'team' ? { teamId: f.teams[0]!.id } : { userId: f.agents[0]!.id },
      });
      assertTooMany(res, 120, kind);
    }

    const other = await get('/channel-api/teams', bystander);
    assert.equal(other.status, 200);
    assertBudgetHeaders(other, 120, 119);
    const full = await get('/channel-api/teams', f.apiKey);
    assert.equal(full.status, 200);
  });
});

describe('rate limit, order of checks', () => {
  let t: TestApp;
  let f: Fixture;
  let chatId: string;
  const POINTS = 3;
  const get = (path: string, key: string) =>
    t.request('GET', path, { headers: { authorization: `ApiKey ${key}` } });
  const exhaust = async (key: string, path = '/channel-api/teams') => {
    for (let i = 0; i < POINTS; i++) await get(path, key);
  };

  before(async () => {
    t = await startTestApp({ env: { ATENDE_RATE_LIMIT_POINTS: String(POINTS) } });
    f = await seedAccount(t.server.services);
    chatId = await f.inbound(0, '5511985000002');
  });
  after(async () => t?.close());

  it('states the configured budget in the 429', async () => {
    const key = await f.makeKey();
    await exhaust(key);
    assertTooMany(await get('/channel-api/teams', key), POINTS);
  });

  it('checks the credential before the budget', async () => {
    const created = await f.services.apiKeys.create(f.admin, {
      name: 'gasta',
      scopes: ['teams:read'],
      channelIds: null,
    });
    await exhaust(created.token);
    assertTooMany(await get('/channel-api/teams', created.token), POINTS);
    await f.services.apiKeys.revoke(f.admin, created.id);
    const res = await get('/channel-api/teams', created.token);
    assert.deepEqual([res.status, res.body], [401, UNAUTHORIZED]);
  });

  it('checks the budget before the scope', async () => {
    const key = await f.makeKey(['users:read']);
    for (let i = 0; i < POINTS; i++) {
      const res = await get('/channel-api/chats', key);
      assert.deepEqual([res.status, res.body], [404, NOT_FOUND]);
      assertBudgetHeaders(res, POINTS, POINTS - 1 - i);
    }
    assertTooMany(await get('/channel-api/chats', key), POINTS, 'missing scope');
    assertTooMany(await get('/channel-api/users', key), POINTS, 'own scope');
  });

  it('checks the budget before the channel and before validation', async () => {
    const limited = await f.makeKey(['chats:read', 'chats:transfer'], [f.channels[0]!.id]);
    const onB = await f.inbound(1, '5511985000003');
    await exhaust(limited, '/channel-api/chats');
    const requests: [string, string, unknown][] = [
      ['GET', `/channel-api/chats?channelId=${f.channels[1]!.id}`, undefined],
      ['GET', '/channel-api/chats?limit=0&foo=1', undefined],
      ['POST', `/channel-api/chats/${onB}/transfer/team`, { teamId: f.teams[0]!.id }],
      ['POST', `/channel-api/chats/${chatId}/transfer/user`, { foo: 1 }],
      ['POST', '/channel-api/chats/abc/transfer/team', {}],
    ];
    for (const [method, path, body] of requests) {
      const res = await t.request(method, path, { headers: { authorization: `ApiKey ${limited}` }, body });
      assertTooMany(res, POINTS, `${method} ${path}`);
    }
  });
});

describe('rate limit shared by two nodes through Redis', () => {
  it('spends one budget across both nodes', async (ctx) => {
    const redisUrl = process.env.REDIS_URL;
    if (!redisUrl) {
      ctx.skip('REDIS_URL is not set');
      return;
    }
    const env = { REDIS_URL: redisUrl, ATENDE_RATE_LIMIT_POINTS: '10' };
    const first = await startTestApp({ env });
    let second: TestApp | null = null;
    try {
      second = await startTestApp({ databaseUrl: first.databaseUrl, env });
      const f = await seedAccount(first.server.services);
      const key = await f.makeKey(['teams:read']);
      const nodes = [first, second];
      const get = (node: TestApp, k = key) =>
        node.request('GET', '/channel-api/teams', { headers: { authorization: `ApiKey ${k}` } });

      // Alternating nodes, the remaining budget goes down by one each time: one counter, not two.
      for (let i = 0; i < 10; i++) {
        const res = await get(nodes[i % 2]!);
        assert.equal(res.status, 200, `request ${i + 1}`);
        assertBudgetHeaders(res, 10, 9 - i, `request ${i + 1}`);
      }
      assertTooMany(await get(first), 10, 'first node');
      assertTooMany(await get(second), 10, 'second node');

      const bystander = await f.makeKey(['teams:read']);
      for (const node of nodes) assert.equal((await get(node, bystander)).status, 200);
    } finally {
      await second?.close();
      await first.close();
    }
  });
});
