import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';

// The web console served by the api node: files of the built console, the app's page for its own
// paths, JSON 404s on API paths, and /console.json telling the console where the gateway is.

const INDEX = '<!doctype html><html><body><div id="root"></div><script src="/assets/app-3f9a1c.js"></script>';
const ASSET = 'console.log("console bundle");';
const HTML = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

async function consoleDir(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'atende-console-'));
  await mkdir(path.join(dir, 'assets'));
  await writeFile(path.join(dir, 'index.html'), INDEX);
  await writeFile(path.join(dir, 'assets', 'app-3f9a1c.js'), ASSET);
  await writeFile(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

describe('web console serving', () => {
  let t: TestApp;
  let dir: string;

  before(async () => {
    dir = await consoleDir();
    t = await startTestApp({ configure: (c) => (c.consoleDir = dir) });
  });
  after(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves index.html at / and at the console own paths, revalidated on every load', async () => {
    for (const p of ['/', '/inbox', '/inbox/65f0c0ffee0000000000abcd', '/simulator', '/admin/users']) {
      const res = await t.request('GET', p, { headers: HTML });
      assert.equal(res.status, 200, p);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/, p);
      assert.equal(res.body, INDEX, p);
      assert.equal(res.headers.get('cache-control'), 'no-cache', p);
    }
    // `/` is the console whatever the client accepts.
    const plain = await t.request('GET', '/');
    assert.equal(plain.status, 200);
    assert.equal(plain.body, INDEX);
  });

  it('serves hashed assets as immutable, other files briefly cached', async () => {
    const asset = await t.request('GET', '/assets/app-3f9a1c.js');
    assert.equal(asset.status, 200);
    assert.equal(asset.body, ASSET);
    assert.match(asset.headers.get('content-type') ?? '', /javascript/);
    assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const icon = await t.request('GET', '/favicon.svg');
    assert.equal(icon.status, 200);
    assert.match(icon.headers.get('content-type') ?? '', /^image\/svg\+xml/);
    assert.equal(icon.headers.get('cache-control'), 'public, max-age=3600');
    const head = await fetch(`${t.url}/assets/app-3f9a1c.js`, { method: 'HEAD' });
    assert.equal(head.status, 200);
  });

  it('keeps the JSON 404 on API paths, even for a browser', async () => {
    for (const p of [
      '/api/x',
      '/api',
      '/auth/nope',
      '/channel-api/nope',
      '/webhooks/nope',
      '/docs/nope/deeper',
      '/metrics/x',
      '/bench/x',
      '/healthz/x',
    ]) {
      const res = await t.request('GET', p, { headers: HTML });
      assert.equal(res.status, 404, p);
      assert.deepEqual(res.json, { statusCode: 404, message: `Cannot GET ${p}`, error: 'Not Found' }, p);
    }
    // The browser tests' disconnect route exists only on their server (ATENDE_TEST_ROUTES=1).
    const testRoute = await t.request('POST', '/api/test/gateway/disconnect', { body: {} });
    assert.deepEqual(testRoute.json, {
      statusCode: 404,
      message: 'Cannot POST /api/test/gateway/disconnect',
      error: 'Not Found',
    });
    const post = await t.request('POST', '/inbox/1', { body: {} });
    assert.equal(post.status, 404);
    assert.equal(post.json.error, 'Not Found');
  });

  it('answers a missing file that is not a page with the JSON 404', async () => {
    const res = await t.request('GET', '/assets/app-old.js', { headers: { accept: '*/*' } });
    assert.equal(res.status, 404);
    assert.deepEqual(res.json, {
      statusCode: 404,
      message: 'Cannot GET /assets/app-old.js',
      error: 'Not Found',
    });
  });

  it('never serves a file outside the console directory', async () => {
    for (const p of ['/..%2fpackage.json', '/assets/..%2f..%2fpackage.json', '/%2e%2e/%2e%2e/etc/passwd']) {
      const res = await t.request('GET', p, { headers: { accept: '*/*' } });
      assert.equal(res.status, 404, p);
      assert.equal(res.json.statusCode, 404, p);
    }
  });

  it('tells the console the gateway port it listens on', async () => {
    const res = await t.request('GET', '/console.json');
    assert.equal(res.status, 200);
    const port = Number(new URL(t.gatewayUrl!).port);
    assert.deepEqual(res.json, {
      gatewayUrl: null,
      gatewayPort: port,
      gatewayPath: '/socket.io',
      needsFirstAdmin: true,
    });
  });

  it('says whether the first admin is still to be created, for the login page', async () => {
    assert.equal((await t.request('GET', '/console.json')).json.needsFirstAdmin, true);
    await t.server.services.accounts.createWithAdmin({
      accountName: 'Primeira',
      adminName: 'Admin',
      email: `first-${Date.now()}@example.com`,
      password: 'first-admin-1',
    });
    assert.equal((await t.request('GET', '/console.json')).json.needsFirstAdmin, false);
  });
});

describe('web console settings', () => {
  it('gives the configured public gateway address instead of a port', async () => {
    const t = await startTestApp({ env: { ATENDE_PUBLIC_GATEWAY_URL: 'https://rt.example.com/' } });
    try {
      const res = await t.request('GET', '/console.json');
      assert.deepEqual(res.json, {
        gatewayUrl: 'https://rt.example.com',
        gatewayPort: null,
        gatewayPath: '/socket.io',
        needsFirstAdmin: true,
      });
    } finally {
      await t.close();
    }
  });

  it('says the console is not built when its directory is missing, and the API still works', async () => {
    const missing = path.join(tmpdir(), `atende-no-console-${process.pid}-${Date.now()}`);
    const t = await startTestApp({ configure: (c) => (c.consoleDir = missing) });
    try {
      const res = await t.request('GET', '/inbox', { headers: HTML });
      assert.equal(res.status, 503);
      assert.deepEqual(res.json, {
        statusCode: 503,
        message: 'The web console is not built: run `npm run build`',
        error: 'Service Unavailable',
      });
      assert.equal((await t.request('GET', '/healthz')).status, 200);
      assert.equal((await t.request('GET', '/api/x')).status, 404);
    } finally {
      await t.close();
    }
  });
});
