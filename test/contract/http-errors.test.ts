import assert from 'node:assert/strict';
import { API_KEY_SCOPES } from '../../src/access/permissions.js';
import { after, before, describe, it } from 'node:test';
import { MAX_VALIDATION_MESSAGES } from '../../src/http/validation-messages.js';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A route taking a JSON body, with a credential it accepts and a body that would pass validation. */
interface BodyRoute {
  family: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
}

function bodyRoutes(f: Fixture, chatId: string): BodyRoute[] {
  const admin = bearer(f.adminToken);
  const key = f.authHeader();
  return [
    {
      family: 'auth',
      method: 'POST',
      path: '/auth/login',
      headers: {},
      body: { email: 'a@b.c', password: 'x' },
    },
    {
      family: 'users',
      method: 'POST',
      path: '/api/users',
      headers: admin,
      body: { name: 'X', email: 'x@example.com', password: '12345678', role: 'agent' },
    },
    {
      family: 'teams',
      method: 'PATCH',
      path: `/api/teams/${f.teams[0]!.id}`,
      headers: admin,
      body: { name: 'X' },
    },
    {
      family: 'channels',
      method: 'POST',
      path: '/api/channels',
      headers: admin,
      body: { name: 'X', provider: 'sandbox', defaultTeamId: f.teams[0]!.id },
    },
    {
      family: 'api-keys',
      method: 'POST',
      path: '/api/api-keys',
      headers: admin,
      body: { name: 'X', scopes: ['chats:read'] },
    },
    {
      family: 'sandbox',
      method: 'POST',
      path: `/api/sandbox/channels/${f.channels[0]!.id}/inbound`,
      headers: admin,
      body: { from: '5511987654321', text: 'x' },
    },
    {
      family: 'chats',
      method: 'POST',
      path: `/api/chats/${chatId}/queue`,
      headers: admin,
      body: { queue: 'Espera' },
    },
    {
      family: 'channel-api',
      method: 'POST',
      path: `/channel-api/chats/${chatId}/transfer/team`,
      headers: key,
      body: { teamId: f.teams[0]!.id },
    },
  ];
}

/** Every key of a JSON value, at any depth. */
function keysOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => keysOf(v, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      keysOf(v, out);
    }
  }
  return out;
}

/** The contract's error body, as JSON, and nothing of the server's insides. */
function expectError(res: TestResponse, status: number, message: string | string[], label = ''): void {
  assert.equal(res.status, status, `${label} ${JSON.stringify(res.body)}`);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, label);
  assert.deepEqual(res.body, { statusCode: status, message, error: res.json.error }, label);
  assert.equal(typeof res.json.error, 'string', label);
  assert.ok(res.headers.get('x-request-id'), `${label}: every answer carries its request id`);
  expectNoInsides(res, label);
}

function expectNoInsides(res: TestResponse, label = ''): void {
  const text = JSON.stringify(res.body);
  assert.ok(!keysOf(res.body).includes('stack'), `${label}: a stack in ${text}`);
  assert.doesNotMatch(text, /\bat \S+ \(|\.(?:ts|js):\d+:\d+|node_modules|FST_ERR/, label);
}

describe('HTTP errors', () => {
  let t: TestApp;
  let f: Fixture;
  let chatId: string;
  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
    chatId = await f.inbound(0, '5511987654321', 'Oi');
  });
  after(async () => t?.close());

  it('answers unknown routes with 404 in the contract body', async () => {
    const cases: [string, string, string][] = [
      ['GET', '/nope', 'Cannot GET /nope'],
      ['GET', '/nope?x=1&y=2', 'Cannot GET /nope'],
      ['POST', '/api/nope', 'Cannot POST /api/nope'],
      ['DELETE', '/api/users', 'Cannot DELETE /api/users'],
      ['PUT', '/channel-api/chats', 'Cannot PUT /channel-api/chats'],
      ['GET', '/channel-api/nope', 'Cannot GET /channel-api/nope'],
    ];
    for (const [method, path, message] of cases) {
      const res = await t.request(method, path, { headers: bearer(f.adminToken) });
      expectError(res, 404, message, `${method} ${path}`);
      assert.equal(res.json.error, 'Not Found');
    }
    const exact = await t.request('GET', '/nope');
    assert.deepEqual(exact.body, { statusCode: 404, message: 'Cannot GET /nope', error: 'Not Found' });
  });

  it('answers malformed JSON with 400 on every route family', async () => {
    for (const r of bodyRoutes(f, chatId)) {
      for (const raw of [
        '{"name":',
        '{name: "x"}',
        "{'a':1}",
        '{"a":1}}',
        'nul',
        '{"__proto__":{"admin":true}}',
      ]) {
        const res = await t.request(r.method, r.path, {
          headers: { ...r.headers, 'content-type': 'application/json' },
          raw,
        });
        expectError(res, 400, 'Malformed JSON body', `${r.family} ${raw}`);
      }
    }
  });

  it('answers a body of another media type with 415 on every route family', async () => {
    for (const r of bodyRoutes(f, chatId)) {
      for (const contentType of [
        'text/plain',
        'text/plain; charset=utf-8',
        'application/xml',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
      ]) {
        const res = await t.request(r.method, r.path, {
          headers: { ...r.headers, 'content-type': contentType },
          raw: JSON.stringify(r.body),
        });
        expectError(res, 415, 'Content-Type must be application/json', `${r.family} ${contentType}`);
        assert.equal(res.json.error, 'Unsupported Media Type');
      }
    }
  });

  it('answers an empty body with a JSON content type, or a body that is not an object, with 400', async () => {
    for (const r of bodyRoutes(f, chatId)) {
      const empty = await t.request(r.method, r.path, {
        headers: { ...r.headers, 'content-type': 'application/json' },
        raw: '',
      });
      expectError(empty, 400, 'Body cannot be empty when content-type is set to application/json', r.family);
      for (const raw of ['null', '[]', '"text"', '42', 'true']) {
        const res = await t.request(r.method, r.path, {
          headers: { ...r.headers, 'content-type': 'application/json' },
          raw,
        });
        expectError(res, 400, ['body must be an object'], `${r.family} ${raw}`);
      }
      // Still the validation answer without any body at all.
      const none = await t.request(r.method, r.path, { headers: r.headers });
      expectError(none, 400, ['body must be an object'], `${r.family} without a body`);
    }
  });

  it('takes an empty body with a JSON content type on routes that take no body', async () => {
    // Many HTTP clients send `Content-Type: application/json` on every request.
    const json = { 'content-type': 'application/json' };
    const admin = { authorization: `Bearer ${f.adminToken}`, ...json };
    const close = await t.request('POST', `/api/chats/${chatId}/close`, { headers: admin, raw: '' });
    assert.equal(close.status, 200, JSON.stringify(close.body));
    assert.equal(close.json.status, 'closed');
    const key = await t.request('POST', `/api/channels/${f.channels[1]!.id}/api-key`, {
      headers: admin,
      raw: '',
    });
    assert.equal(key.status, 201, JSON.stringify(key.body));
    const users = await t.request('DELETE', `/api/api-keys/${'f'.repeat(24)}`, { headers: admin, raw: '' });
    assert.equal(users.status, 404, JSON.stringify(users.body));
  });

  it('answers an id that is not an ObjectId with a 400 validation array', async () => {
    const admin = bearer(f.adminToken);
    const routes: [string, string, Record<string, string>, unknown?][] = [
      ['GET', '/api/users/123', admin],
      ['PATCH', '/api/users/123', admin, { name: 'X' }],
      ['GET', '/api/teams/not-an-id', admin],
      ['PATCH', '/api/teams/not-an-id', admin, { name: 'X' }],
      ['GET', '/api/channels/zzzzzzzzzzzzzzzzzzzzzzzz', admin],
      ['PATCH', '/api/channels/zzzzzzzzzzzzzzzzzzzzzzzz', admin, { name: 'X' }],
      ['POST', '/api/channels/1/api-key', admin],
      ['DELETE', '/api/api-keys/1', admin],
      ['POST', '/api/sandbox/channels/1/inbound', admin, { from: '5511987654321', text: 'x' }],
      ['GET', '/api/chats/1', admin],
      ['POST', '/api/chats/1/queue', admin, { queue: 'Espera' }],
      ['POST', '/api/chats/1/transfer', admin, { teamId: f.teams[0]!.id }],
      ['POST', '/channel-api/chats/1/transfer/team', f.authHeader(), { teamId: f.teams[0]!.id }],
      ['POST', '/channel-api/chats/1/transfer/user', f.authHeader(), { userId: f.agents[0]!.id }],
    ];
    for (const [method, path, headers, body] of routes) {
      const res = await t.request(method, path, { headers, body });
      expectError(res, 400, ['id must be a 24-character hexadecimal id'], `${method} ${path}`);
    }
  });

  it('answers huge arrays with a 400 of bounded size, not a 500', async () => {
    const admin = bearer(f.adminToken);
    // Large input (within the body limit) gets its first problem only: its size.
    const members = await t.request('POST', '/api/teams', {
      headers: admin,
      body: { name: 'X', members: Array.from({ length: 10_000 }, () => 'x') },
    });
    expectError(members, 400, ['members must contain no more than 1000 elements']);

    const valid = Array.from({ length: 1_500 }, (_, i) => i.toString(16).padStart(24, '0'));
    const many = await t.request('POST', '/api/teams', {
      headers: admin,
      body: { name: 'X', members: valid },
    });
    expectError(many, 400, ['members must contain no more than 1000 elements']);

    // Small input gets every problem.
    const scopes = await t.request('POST', '/api/api-keys', {
      headers: admin,
      body: { name: 'X', scopes: Array.from({ length: 10 }, (_, i) => `scope-${i}`) },
    });
    assert.equal(scopes.status, 400);
    const sMessages = scopes.json.message as string[];
    assert.equal(sMessages[0], `scopes must contain no more than ${API_KEY_SCOPES.length} elements`);
    assert.equal(sMessages[1], `scopes.0 must be one of the following values: ${API_KEY_SCOPES.join(', ')}`);
    assert.equal(sMessages.length, 11);
    assert.ok(sMessages.length <= MAX_VALIDATION_MESSAGES);

    const top = await t.request('POST', '/api/teams', {
      headers: admin,
      body: Array.from({ length: 10_000 }, (_, i) => i),
    });
    expectError(top, 400, ['body must be an object']);

    const deep = await t.request('POST', '/api/teams', {
      headers: { ...admin, 'content-type': 'application/json' },
      raw: '['.repeat(30_000) + ']'.repeat(30_000),
    });
    expectError(deep, 400, 'JSON body is nested deeper than 64 levels');

    const nested = await t.request('POST', '/api/teams', {
      headers: { ...admin, 'content-type': 'application/json' },
      raw: `{"name":"X","extra":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`,
    });
    expectError(nested, 400, 'JSON body is nested deeper than 64 levels');
    const shallow = await t.request('POST', '/api/teams', {
      headers: { ...admin, 'content-type': 'application/json' },
      raw: `{"name":"X","extra":${'{"a":'.repeat(60)}1${'}'.repeat(60)}}`,
    });
    expectError(shallow, 400, ['property extra should not exist']);
  });

  it('answers text with an unpaired surrogate with a 400 naming the field', async () => {
    const admin = bearer(f.adminToken);
    expectError(await t.request('POST', '/api/teams', { headers: admin, body: { name: 'a\ud800b' } }), 400, [
      'name must not contain unpaired surrogates',
    ]);
    expectError(
      await t.request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/inbound`, {
        headers: admin,
        body: { from: '5511987654321', text: 'oi \udc00', name: 'Ana 😀' },
      }),
      400,
      ['text must not contain unpaired surrogates'],
    );
  });

  it('answers text with NUL characters with a 400 naming the field, in bodies and queries', async () => {
    const admin = bearer(f.adminToken);
    const cases: [string, string, Record<string, string>, unknown, string[]][] = [
      ['POST', '/api/teams', admin, { name: 'a\u0000b' }, ['name must not contain null characters']],
      [
        'POST',
        `/api/sandbox/channels/${f.channels[0]!.id}/inbound`,
        admin,
        { from: '5511987654321', text: 'oi\u0000' },
        ['text must not contain null characters'],
      ],
      [
        'POST',
        `/api/chats/${chatId}/transfer`,
        admin,
        { teamId: f.teams[1]!.id, reason: '\u0000' },
        ['reason must not contain null characters'],
      ],
      ['GET', '/api/chats?queue=a%00b', admin, undefined, ['queue must not contain null characters']],
      [
        'GET',
        '/channel-api/chats?queue=%00',
        f.authHeader(),
        undefined,
        ['queue must not contain null characters'],
      ],
    ];
    for (const [method, path, headers, body, message] of cases) {
      expectError(await t.request(method, path, { headers, body }), 400, message, `${method} ${path}`);
    }
    // Nothing was stored on the way.
    const chat = await f.services.chats.getForUser(f.admin, chatId);
    assert.equal(chat.teamId, f.teams[0]!.id);
    assert.equal(chat.unreadMessages, 1);
  });

  it('answers numbers beyond the safe range with 400, never a database error', async () => {
    const admin = bearer(f.adminToken);
    const max = Number.MAX_SAFE_INTEGER;
    const cases: [string, Record<string, string>, string[]][] = [
      ['/api/chats?page=99999999999999999999', admin, [`page must not be greater than ${max}`]],
      ['/api/chats?limit=1e400', admin, ['limit must not be greater than 100']],
      ['/api/chats?page=1e400', admin, [`page must not be greater than ${max}`]],
      [
        '/channel-api/chats?page=100000000000000000000',
        f.authHeader(),
        [`page must not be greater than ${max}`],
      ],
    ];
    for (const [path, headers, message] of cases) {
      expectError(await t.request('GET', path, { headers }), 400, message, path);
    }
    const last = await t.request('GET', `/api/chats?page=${max}`, { headers: admin });
    assert.equal(last.status, 200, JSON.stringify(last.body));
    assert.deepEqual(last.json.chats, []);
  });

  it('answers /healthz and /readyz', async () => {
    const health = await t.request('GET', '/healthz');
    assert.equal(health.status, 200);
    assert.deepEqual(health.body, { status: 'ok' });
    const ready = await t.request('GET', '/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(ready.body, { status: 'ok' });
  });

  it('serves the OpenAPI 3 document, version 1.0.0, with the Channel API, and its page', async () => {
    const res = await t.request('GET', '/docs/json');
    assert.equal(res.status, 200);
    const doc = res.json as {
      openapi: string;
      info: { version: string };
      paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown }>>;
    };
    assert.match(doc.openapi, /^3\.\d+\.\d+$/);
    assert.equal(doc.info.version, '1.0.0');
    const channelApi = [
      '/channel-api/chats',
      '/channel-api/users',
      '/channel-api/teams',
      '/channel-api/chats/{id}/transfer/team',
      '/channel-api/chats/{id}/transfer/user',
    ];
    for (const path of channelApi) {
      assert.ok(doc.paths[path], `${path} is documented`);
      for (const op of Object.values(doc.paths[path])) {
        assert.deepEqual(op.security, [{ accountApiKey: [] }], path);
        for (const status of ['401', '404', '429'])
          assert.ok(op.responses[status], `${path} documents ${status}`);
      }
    }
    // Nullable fields are written the OpenAPI 3.0 way.
    const team = (
      doc.paths['/api/teams']!.post as unknown as {
        requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
      }
    ).requestBody.content['application/json']!.schema.properties.description;
    assert.deepEqual(team, { type: 'string', nullable: true, maxLength: 2000 });

    const page = await fetch(`${t.url}/docs`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await page.text(), /<html/i);
  });
});

describe('HTTP errors: body size limit', () => {
  let t: TestApp;
  let f: Fixture;
  let chatId: string;
  before(async () => {
    t = await startTestApp({ env: { ATENDE_BODY_LIMIT_BYTES: '2048' } });
    f = await seedAccount(t.server.services);
    chatId = await f.inbound(0, '5511987654321', 'Oi');
  });
  after(async () => t?.close());

  it('answers a body over the limit with 413 on every route family, and takes one under it', async () => {
    for (const r of bodyRoutes(f, chatId)) {
      const big = { ...(r.body as object), padding: 'x'.repeat(4096) };
      const res = await t.request(r.method, r.path, { headers: r.headers, body: big });
      expectError(res, 413, 'Request body is too large', r.family);
      assert.equal(res.json.error, 'Payload Too Large');
    }
    const small = await t.request('POST', '/api/teams', {
      headers: bearer(f.adminToken),
      body: { name: 'x'.repeat(150), description: 'y'.repeat(1500) },
    });
    assert.equal(small.status, 201, JSON.stringify(small.body));
  });
});
