import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { API_KEY_SCOPES } from '../../src/access/permissions.js';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { createWhatsAppChannel, hubSignature } from '../helpers/whatsapp.js';

// Hostile input: requests shaped to cost the server far more than they cost the client. Each one must
// be refused with the contract's body, quickly; the `timeout` of a test is only a hang detector.

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const TOO_LARGE = { statusCode: 413, message: 'Request body is too large', error: 'Payload Too Large' };
const HANG = { timeout: 20_000 };

function expectBody(res: TestResponse, status: number, body: unknown, what = ''): void {
  assert.equal(res.status, status, `${what} ${JSON.stringify(res.body).slice(0, 500)}`);
  assert.deepEqual(res.body, body, what);
}

describe('security: request bodies', () => {
  let t: TestApp;
  let f: Fixture;
  before(async () => {
    t = await startTestApp({ env: { ATENDE_ROLES: 'api' } });
    f = await seedAccount(t.server.services);
  });
  after(async () => t?.close());

  it('refuses 100,000 scopes on POST /api/api-keys with 413, and answers at once', HANG, async () => {
    const res = await t.request('POST', '/api/api-keys', {
      headers: bearer(f.adminToken),
      body: { name: 'X', scopes: Array.from({ length: 100_000 }, (_, i) => `scope-${i}`) },
    });
    expectBody(res, 413, TOO_LARGE);
    // The server is still there for everyone else.
    assert.equal((await t.request('GET', '/api/users', { headers: bearer(f.adminToken) })).status, 200);
  });

  it('stops at the first errors when a body holds thousands of values', HANG, async () => {
    const admin = bearer(f.adminToken);
    // Within the size limit, yet far beyond what the schema allows: only the bound is reported.
    const scopes = await t.request('POST', '/api/api-keys', {
      headers: admin,
      body: { name: 'X', scopes: Array.from({ length: 5_000 }, (_, i) => `s${i}`) },
    });
    expectBody(scopes, 400, {
      statusCode: 400,
      message: [`scopes must contain no more than ${API_KEY_SCOPES.length} elements`],
      error: 'Bad Request',
    });
    const extra: Record<string, number> = { name: 1 };
    for (let i = 0; i < 5_000; i++) extra[`k${i}`] = i;
    const keys = await t.request('POST', '/api/teams', { headers: admin, body: extra });
    expectBody(keys, 400, {
      statusCode: 400,
      message: ['body must contain no more than 3 properties'],
      error: 'Bad Request',
    });
    // A small bad body still gets every problem, class-validator style.
    const small = await t.request('POST', '/api/teams', {
      headers: admin,
      body: { name: 7, description: 8, foo: 1 },
    });
    expectBody(small, 400, {
      statusCode: 400,
      message: ['property foo should not exist', 'name must be a string', 'description must be a string'],
      error: 'Bad Request',
    });
  });

  it('takes at most a small body on login: 413 beyond it, without trying the password', HANG, async () => {
    const extra: Record<string, string> = { email: f.agents[0]!.email, password: 'wrong-password' };
    for (let i = 0; i < 1_000; i++) extra[`k${i}`] = 'x';
    expectBody(await t.request('POST', '/auth/login', { body: extra }), 413, TOO_LARGE);
    const huge = `{"email":"a@b.c","password":"x"${',"k":1'.repeat(1_000_000)}}`;
    expectBody(
      await t.request('POST', '/auth/login', { headers: { 'content-type': 'application/json' }, raw: huge }),
      413,
      TOO_LARGE,
    );
  });

  it('takes at most 64 KB on admin and agent JSON routes', HANG, async () => {
    const res = await t.request('POST', '/api/teams', {
      headers: bearer(f.adminToken),
      body: { name: 'X', description: 'd'.repeat(70 * 1024) },
    });
    expectBody(res, 413, TOO_LARGE);
  });

  it('refuses JSON nested beyond the depth limit with 400', HANG, async () => {
    const deep = await t.request('POST', '/api/teams', {
      headers: { ...bearer(f.adminToken), 'content-type': 'application/json' },
      raw: `{"name":"X","extra":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}}`,
    });
    expectBody(deep, 400, {
      statusCode: 400,
      message: 'JSON body is nested deeper than 64 levels',
      error: 'Bad Request',
    });
  });

  it('answers a signed WhatsApp delivery nested 50,000 deep with 400, storing nothing', HANG, async () => {
    const { id, appSecret: secret } = await createWhatsAppChannel(f, { name: 'WhatsApp deep' });
    const raw = `{"object":"whatsapp_business_account","entry":${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
    const res = await t.request('POST', `/webhooks/whatsapp/${id}`, {
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(secret, raw) },
      raw,
    });
    expectBody(res, 400, {
      statusCode: 400,
      message: 'JSON body is nested deeper than 64 levels',
      error: 'Bad Request',
    });
    const stored = await t.server.services.db
      .selectFrom('inbound_webhook_events')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('channel_id', '=', id)
      .executeTakeFirstOrThrow();
    assert.equal(Number(stored.n), 0);
  });
});

/**
 * Opens a raw connection, sends `head`, then one byte of a 100-byte body every 100 ms, never
 * finishing: `body`'s bytes, then `x`s (JSON bodies are read as they come and refused at their first
 * wrong byte, so a JSON route gets the start of a JSON value). Resolves with what the server wrote once
 * the server closes the connection.
 */
function trickle(
  url: string,
  head: string,
  opts: { slowHead?: boolean; signal?: AbortSignal; body?: string } = {},
): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    // A test that gave up (hang detector) leaves no connection behind to hold the server open.
    opts.signal?.addEventListener('abort', () => socket.destroy());
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (received += d));
    socket.on('error', () => {}); // a reset is also the server closing
    socket.on('close', () => {
      clearInterval(timer);
      resolve(received);
    });
    socket.on('connect', () => {
      const pending = [...(opts.slowHead ? head : ''), ...(opts.body ?? '')];
      if (!opts.slowHead) socket.write(head);
      let sent = 0;
      timer = setInterval(() => {
        if (socket.destroyed) return;
        if (pending.length > 0) socket.write(pending.shift()!);
        else if (sent++ < 99) socket.write('x');
      }, 100);
    });
    socket.on('timeout', () => reject(new Error('unexpected client timeout')));
  });
}

describe('security: slow requests', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({
      env: { ATENDE_REQUEST_TIMEOUT_MS: '1000', ATENDE_HEADERS_TIMEOUT_MS: '1000' },
    });
  });
  after(async () => t?.close());

  const slowLogin =
    'POST /auth/login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n';

  it('cuts off a body sent one byte at a time: 408, connection closed', HANG, async (ctx) => {
    const answer = await trickle(t.url, slowLogin, { signal: ctx.signal, body: '{"email":"' });
    assert.match(answer, /^HTTP\/1\.1 408 /);
  });

  it('cuts off headers sent one byte at a time', HANG, async (ctx) => {
    const answer = await trickle(t.url, slowLogin, {
      slowHead: true,
      signal: ctx.signal,
      body: '{"email":"',
    });
    assert.match(answer, /^(HTTP\/1\.1 408 |$)/);
  });

  it('cuts off a slow body on the gateway port too', HANG, async (ctx) => {
    const head =
      'POST /x HTTP/1.1\r\nHost: localhost\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n';
    const answer = await trickle(t.gatewayUrl!, head, { signal: ctx.signal });
    assert.match(answer, /^(HTTP\/1\.1 408 |$)/);
  });
});

describe('security: rate limits of the channel key and the agent API', () => {
  let t: TestApp;
  let f: Fixture;
  let key: string;
  before(async () => {
    t = await startTestApp({
      env: {
        ATENDE_ROLES: 'api',
        ATENDE_CHANNEL_KEY_RATE_LIMIT_POINTS: '3',
        ATENDE_USER_RATE_LIMIT_POINTS: '3',
      },
    });
    f = await seedAccount(t.server.services);
    const rotated = await t.request('POST', `/api/channels/${f.channels[0]!.id}/api-key`, {
      headers: bearer(f.adminToken),
    });
    assert.equal(rotated.status, 201);
    key = rotated.json.apiKey as string;
  });
  after(async () => t?.close());

  function assertTooMany(res: TestResponse, message: string) {
    assert.equal(res.status, 429, JSON.stringify(res.body));
    assert.deepEqual(res.body, { statusCode: 429, message });
    const retryAfter = Number(res.headers.get('retry-after'));
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
      `Retry-After ${retryAfter}`,
    );
    assert.equal(res.headers.get('ratelimit-limit'), '3');
    assert.equal(res.headers.get('ratelimit-remaining'), '0');
    const reset = Number(res.headers.get('ratelimit-reset'));
    assert.ok(Number.isInteger(reset) && reset >= 0 && reset <= 60, `RateLimit-Reset ${reset}`);
  }

  it('answers 429 on the send route once the channel key spent its budget', async () => {
    const send = (headers: Record<string, string>) =>
      t.request('POST', '/channel-api/messages/send', {
        headers,
        body: { contact: { value: '5511987654321' }, message: { type: 'text', text: { value: 'Oi' } } },
      });
    // The budget was not spent on the admin's rotate above: each key has its own.
    for (let i = 0; i < 3; i++) {
      const res = await send({ 'x-channel-api-key': key });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal(res.headers.get('ratelimit-limit'), '3');
      assert.equal(res.headers.get('ratelimit-remaining'), String(2 - i));
    }
    assertTooMany(
      await send({ 'x-channel-api-key': key }),
      'Limite de 3 requisições a cada 60 segundos por chave de canal excedido',
    );
    // An invalid key is still a 404, not spending anyone's budget.
    assert.equal((await send({ 'x-channel-api-key': 'nope' })).status, 404);
  });

  it('documents the 429 of the send route and of the agent API in OpenAPI', async () => {
    const doc = (await t.request('GET', '/docs/json')).json as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    for (const [path, method] of [
      ['/channel-api/messages/send', 'post'],
      ['/api/users', 'get'],
      ['/api/me', 'get'],
    ] as const) {
      assert.ok(doc.paths[path]?.[method]?.responses['429'], `${method} ${path} documents 429`);
    }
  });

  it('answers 429 on the agent API once the user spent their budget; others keep theirs', async () => {
    const agent = bearer(f.agents[0]!.token);
    for (let i = 0; i < 3; i++) {
      const res = await t.request('GET', '/api/me', { headers: agent });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.headers.get('ratelimit-remaining'), String(2 - i));
    }
    assertTooMany(
      await t.request('GET', '/api/chats', { headers: agent }),
      'Limite de 3 requisições a cada 60 segundos por usuário excedido',
    );
    assert.equal((await t.request('GET', '/api/me', { headers: bearer(f.agents[1]!.token) })).status, 200);
    // No credential is still a 401 before any budget.
    assert.equal((await t.request('GET', '/api/me')).status, 401);
  });
});
