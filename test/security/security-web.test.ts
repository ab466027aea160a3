import assert from 'node:assert/strict';
import { readFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect } from '../helpers/gateway.js';

// What a browser is told and refused: security headers on every answer (console, API, /docs),
// answers for one user never cached, no published source map, cookie-authenticated writes only from
// the console's own origin, and the sandbox read receipt only on chats the user may see.

const HTML = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };
const FOREIGN = 'https://evil.example';
const CROSS_SITE = {
  statusCode: 403,
  message:
    'Cross-site request refused: a request authenticated by the session cookie must come from the console',
  error: 'Forbidden',
};
const CROSS_SITE_LOGIN = {
  statusCode: 403,
  message: 'Cross-site login refused: log in from the console, or from a client outside a browser',
  error: 'Forbidden',
};

/** The CSP's directives by name. */
function csp(headers: Headers): Map<string, string[]> {
  const value = headers.get('content-security-policy');
  assert.ok(value, 'no Content-Security-Policy');
  return new Map(
    value
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

function assertBrowserHeaders(headers: Headers, what: string): void {
  const policy = csp(headers);
  assert.deepEqual(policy.get('frame-ancestors'), ["'none'"], what);
  assert.deepEqual(policy.get('default-src'), ["'self'"], what);
  assert.deepEqual(policy.get('script-src'), ["'self'"], what);
  assert.deepEqual(policy.get('object-src'), ["'none'"], what);
  assert.equal(headers.get('x-frame-options'), 'DENY', what);
  assert.equal(headers.get('x-content-type-options'), 'nosniff', what);
  assert.equal(headers.get('referrer-policy'), 'no-referrer', what);
}

/** GET with a Host header of our choosing (fetch sets its own). */
function getWithHost(url: string, host: string): Promise<Record<string, string | string[] | undefined>> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { headers: { host, ...HTML } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('browser protections', () => {
  let t: TestApp;
  let f: Fixture;
  let gatewayPort: number;
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const cookie = (token: string) => ({ cookie: `theme=dark; access_token=${token}` });

  before(async () => {
    t = await startTestApp();
    f = await seedAccount(t.server.services);
    gatewayPort = Number(new URL(t.gatewayUrl!).port);
  });
  after(async () => {
    await t.close();
  });

  describe('headers', () => {
    it('are on the console, the API, /docs and errors', async () => {
      const answers: [string, Response][] = [
        ['console page', await fetch(`${t.url}/inbox`, { headers: HTML })],
        ['API', await fetch(`${t.url}/api/me`, { headers: bearer(f.adminToken) })],
        ['API error', await fetch(`${t.url}/api/me`)],
        ['Channel API', await fetch(`${t.url}/channel-api/users`, { headers: f.authHeader() })],
        ['docs', await fetch(`${t.url}/docs`)],
        ['docs spec', await fetch(`${t.url}/docs/json`)],
        ['health', await fetch(`${t.url}/healthz`)],
        ['unknown', await fetch(`${t.url}/api/nope`)],
      ];
      for (const [what, res] of answers) {
        await res.arrayBuffer();
        assert.ok(res.status < 500, `${what}: ${res.status}`);
        assertBrowserHeaders(res.headers, what);
        // Swagger UI renders a <style> element of its own: inline styles there, nowhere else.
        const styles = what.startsWith('docs') ? ["'self'", "'unsafe-inline'"] : ["'self'"];
        assert.deepEqual(csp(res.headers).get('style-src'), styles, what);
      }
    });

    it("let the console reach the gateway on the page's host, and nothing else", async () => {
      const page = await fetch(`${t.url}/`, { headers: HTML });
      await page.text();
      const connect = csp(page.headers).get('connect-src');
      assert.deepEqual(connect, [
        "'self'",
        `http://127.0.0.1:${gatewayPort}`,
        `ws://127.0.0.1:${gatewayPort}`,
      ]);

      // The browser used another name (the console's host behind a proxy): that name is allowed.
      const named = await getWithHost(`${t.url}/`, `console.example.com:${new URL(t.url).port}`);
      assert.match(
        String(named['content-security-policy']),
        new RegExp(
          `connect-src 'self' http://console\\.example\\.com:${gatewayPort} ws://console\\.example\\.com:${gatewayPort};`,
        ),
      );
      // A Host that is no host name lands nowhere in the policy.
      const forged = await getWithHost(`${t.url}/`, `x;script-src *`);
      assert.match(String(forged['content-security-policy']), /connect-src 'self';/);
      assert.doesNotMatch(String(forged['content-security-policy']), /\*/);
    });

    it('keep authenticated answers out of every cache, and the console files cacheable', async () => {
      const login = await t.request('POST', '/auth/login', {
        body: { email: f.agents[0]!.email, password: 'agent-password' },
      });
      assert.equal(login.status, 200);
      const authenticated: [string, Headers][] = [
        ['login', login.headers],
        ['bearer', (await t.request('GET', '/api/me', { headers: bearer(f.adminToken) })).headers],
        ['cookie', (await t.request('GET', '/api/chats', { headers: cookie(f.adminToken) })).headers],
        ['api key', (await t.request('GET', '/channel-api/users', { headers: f.authHeader() })).headers],
        ['bad bearer', (await t.request('GET', '/api/me', { headers: bearer('garbage') })).headers],
        [
          'failed login',
          (await t.request('POST', '/auth/login', { body: { email: 'a@b.c', password: 'x' } })).headers,
        ],
      ];
      for (const [what, headers] of authenticated)
        assert.equal(headers.get('cache-control'), 'no-store', what);

      const html = await readFile(path.join(loadConfig({}).consoleDir, 'index.html'), 'utf8');
      const bundle = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
      assert.ok(bundle, 'web/dist/index.html names no bundle: run `npm run build`');
      // The session cookie rides along on the console's files: they stay cacheable.
      const asset = await t.request('GET', bundle, { headers: cookie(f.adminToken) });
      assert.equal(asset.status, 200);
      assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    });
  });

  describe('HSTS', () => {
    const hsts = async (app: TestApp, path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${app.url}${path}`, { headers: { ...HTML, ...headers } });
      await res.arrayBuffer();
      return res.headers.get('strict-transport-security');
    };
    const https = { 'x-forwarded-proto': 'https' };

    it('is not sent over plain HTTP, nor for an X-Forwarded-Proto nobody trusts', async () => {
      for (const path of ['/', '/api/me', '/healthz', '/api/nope']) {
        assert.equal(await hsts(t, path), null, path);
        assert.equal(await hsts(t, path, https), null, `${path}, untrusted https`);
      }
    });

    it('is sent over HTTPS behind a trusted proxy, without subdomains', async () => {
      const proxied = await startTestApp({ env: { ATENDE_TRUST_PROXY: '127.0.0.1' } });
      try {
        for (const path of ['/', '/api/me', '/api/nope']) {
          assert.equal(await hsts(proxied, path, https), 'max-age=15552000', path);
          assert.equal(await hsts(proxied, path), null, `${path}, http behind the proxy`);
        }
      } finally {
        await proxied.close();
      }
    });
  });

  describe('source maps', () => {
    it('are neither built into nor served with the console', async () => {
      const html = await readFile(path.join(loadConfig({}).consoleDir, 'index.html'), 'utf8');
      const bundles = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.(?:js|css))"/g)].map((m) => m[1]!);
      assert.ok(bundles.length > 0, 'web/dist/index.html names no bundle: run `npm run build`');
      for (const file of bundles) {
        const res = await t.request('GET', file);
        assert.equal(res.status, 200, file);
        assert.ok(!String(res.body).includes('sourceMappingURL'), `${file} names its source map`);
        const map = await t.request('GET', `${file}.map`, { headers: { accept: '*/*' } });
        assert.equal(map.status, 404, `${file}.map`);
        assert.deepEqual(map.json, {
          statusCode: 404,
          message: `Cannot GET ${file}.map`,
          error: 'Not Found',
        });
      }
    });

    it('are not served even when a build left one', async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'atende-console-'));
      const own = await startTestApp({ configure: (c) => (c.consoleDir = dir) });
      try {
        await mkdir(path.join(dir, 'assets'));
        await writeFile(
          path.join(dir, 'index.html'),
          '<!doctype html><script src="/assets/a-1.js"></script>',
        );
        await writeFile(path.join(dir, 'assets', 'a-1.js'), 'x()\n//# sourceMappingURL=a-1.js.map');
        await writeFile(path.join(dir, 'assets', 'a-1.js.map'), '{"version":3,"sources":["src/app.tsx"]}');
        const res = await own.request('GET', '/assets/a-1.js.map', { headers: HTML });
        assert.equal(res.status, 404);
        assert.deepEqual(res.json, {
          statusCode: 404,
          message: 'Cannot GET /assets/a-1.js.map',
          error: 'Not Found',
        });
      } finally {
        await own.close();
        await rm(dir, { recursive: true, force: true });
      }
    });
  });

  describe('cross-site writes', () => {
    const rotate = (headers: Record<string, string>) =>
      t.request('POST', `/api/channels/${f.channels[0]!.id}/api-key`, { headers });

    it('refuse a cookie-authenticated key rotation from another origin, and keep the key', async () => {
      const first = await rotate(bearer(f.adminToken));
      assert.equal(first.status, 201);
      const key = String(first.json.apiKey);
      const refusals: Record<string, string>[] = [
        { origin: FOREIGN },
        { origin: FOREIGN, 'sec-fetch-site': 'cross-site' },
        // Another port or a sibling subdomain is the same site, not the same origin.
        { origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-site' },
        { 'sec-fetch-site': 'cross-site' },
        { origin: 'null' },
        // A browser always says where a POST comes from; saying nothing is no proof of our origin.
        {},
      ];
      for (const headers of refusals) {
        const res = await rotate({ ...cookie(f.adminToken), ...headers });
        assert.deepEqual([res.status, res.json], [403, CROSS_SITE], JSON.stringify(headers));
      }
      // Still the key from before: nothing rotated it.
      const channel = await t.server.services.channelKeys.authenticate(key);
      assert.equal(channel.id, f.channels[0]!.id);
    });

    it('accept it from the console own origin, and with a bearer token from anywhere', async () => {
      const accepted: Record<string, string>[] = [
        { ...cookie(f.adminToken), origin: t.url },
        { ...cookie(f.adminToken), origin: t.url, 'sec-fetch-site': 'same-origin' },
        { ...cookie(f.adminToken), 'sec-fetch-site': 'same-origin' },
        { ...bearer(f.adminToken), origin: FOREIGN, 'sec-fetch-site': 'cross-site' },
        // Bearer wins over the cookie the browser adds.
        { ...bearer(f.adminToken), ...cookie(f.adminToken), origin: FOREIGN },
      ];
      for (const headers of accepted) {
        const res = await rotate(headers);
        assert.equal(res.status, 201, JSON.stringify(headers));
        const channel = await t.server.services.channelKeys.authenticate(String(res.json.apiKey));
        assert.equal(channel.id, f.channels[0]!.id);
      }
      // Reads are not writes: a foreign page cannot read the answer anyway (no CORS).
      const list = await t.request('GET', '/api/channels', {
        headers: { ...cookie(f.adminToken), origin: FOREIGN },
      });
      assert.equal(list.status, 200);
    });

    it('refuse a cookie-authenticated "mark read" from another origin', async () => {
      const agent = f.agents[0]!;
      const chatId = await f.inbound(0, '5511988870001', 'Oi');
      const moved = await t.request('POST', `/api/chats/${chatId}/transfer`, {
        headers: bearer(f.adminToken),
        body: { userId: agent.id },
      });
      assert.equal(moved.status, 200);
      const list = await t.request('GET', '/api/notifications', { headers: bearer(agent.token) });
      const notification = (list.json.notifications as { id: string; readAt: string | null }[])[0];
      assert.ok(notification && notification.readAt === null);
      const markRead = (headers: Record<string, string>) =>
        t.request('POST', `/api/notifications/${notification.id}/read`, { headers });

      const refused = await markRead({ ...cookie(agent.token), origin: FOREIGN });
      assert.deepEqual([refused.status, refused.json], [403, CROSS_SITE]);
      const still = await t.request('GET', '/api/notifications', { headers: bearer(agent.token) });
      assert.equal(still.json.unread, 1);

      const done = await markRead({ ...cookie(agent.token), origin: t.url });
      assert.equal(done.status, 200);
      assert.equal(typeof done.json.readAt, 'string');
    });
  });

  describe('cross-site logins', () => {
    /** A login of the first agent of the app's fixture (`f` on the shared app). */
    const loginFrom = (app: TestApp, headers: Record<string, string>, who: Fixture = f) =>
      app.request('POST', '/auth/login', {
        headers,
        body: { email: who.agents[0]!.email, password: 'agent-password' },
      });

    it('refuse a login from another site, and set no cookie', async () => {
      const refusals: Record<string, string>[] = [
        { origin: FOREIGN },
        { origin: FOREIGN, 'sec-fetch-site': 'cross-site' },
        // Another port of the same host is another origin, one the gateway would refuse too.
        { origin: 'http://127.0.0.1:1', 'sec-fetch-site': 'same-site' },
        { origin: 'null' },
        { 'sec-fetch-site': 'cross-site' },
      ];
      for (const headers of refusals) {
        const res = await loginFrom(t, headers);
        assert.deepEqual([res.status, res.json], [403, CROSS_SITE_LOGIN], JSON.stringify(headers));
        assert.deepEqual(res.headers.getSetCookie(), [], JSON.stringify(headers));
      }
      const pt = await loginFrom(t, { origin: FOREIGN, 'accept-language': 'pt-BR' });
      assert.equal(
        pt.json.message,
        'Login de outro site recusado: entre pelo console, ou por um cliente fora do navegador',
      );
    });

    it('accept it from the console, and from clients outside a browser (no Origin)', async () => {
      const accepted: Record<string, string>[] = [
        {},
        { origin: t.url },
        { origin: t.url, 'sec-fetch-site': 'same-origin' },
        { 'sec-fetch-site': 'none' },
      ];
      for (const headers of accepted) {
        const res = await loginFrom(t, headers);
        assert.equal(res.status, 200, JSON.stringify(headers));
        assert.ok(
          res.headers.getSetCookie().some((c) => c.startsWith('access_token=')),
          JSON.stringify(headers),
        );
      }
    });

    it('follow the configured origins, and the HTTPS origin behind a trusted proxy only', async () => {
      const console = 'https://console.example.com';
      const configured = await startTestApp({ env: { ATENDE_GATEWAY_ORIGINS: console } });
      const proxied = await startTestApp({ env: { ATENDE_TRUST_PROXY: '127.0.0.1' } });
      try {
        const inConfigured = await seedAccount(configured.server.services);
        const inProxied = await seedAccount(proxied.server.services);
        assert.equal((await loginFrom(configured, { origin: console }, inConfigured)).status, 200);
        assert.equal((await loginFrom(configured, { origin: FOREIGN }, inConfigured)).status, 403);

        // The browser is on https://atende.example.com; the proxy says so, and is trusted.
        const behindProxy = {
          origin: 'https://atende.example.com',
          'x-forwarded-proto': 'https',
          'x-forwarded-host': 'atende.example.com',
        };
        assert.equal((await loginFrom(proxied, behindProxy, inProxied)).status, 200);
        // The same claim from a peer nobody trusts is the client's word.
        assert.equal((await loginFrom(t, behindProxy)).status, 403);
      } finally {
        await configured.close();
        await proxied.close();
      }
    });
  });

  describe('sandbox read receipt', () => {
    it('answers 404 to an agent outside the chat team, and leaves the chat as it was', async () => {
      const gw = await connect(t.gatewayUrl!, { token: f.agents[0]!.token });
      try {
        const chatId = await f.inbound(0, '5511988870002', 'Oi');
        const agent0 = bearer(f.agents[0]!.token);
        assert.equal(
          (await t.request('POST', `/api/chats/${chatId}/capture`, { headers: agent0 })).status,
          200,
        );
        assert.equal((await gw.ack('user_start_attendance', chatId)).ok, true);
        const sent = await t.request('POST', `/api/chats/${chatId}/messages`, {
          headers: agent0,
          body: { text: 'Olá!' },
        });
        assert.equal(sent.status, 201);
        await gw.next('message.update', (e) => {
          const m = (e.data as { message: { id: string; status: string } }).message;
          return m.id === sent.json.id && m.status === 'delivered';
        });

        // Agent 1 is in team 1 only; the chat is team 0's, attended by agent 0.
        const res = await t.request('POST', `/api/sandbox/channels/${f.channels[0]!.id}/read`, {
          headers: bearer(f.agents[1]!.token),
          body: { chatId },
        });
        assert.deepEqual(
          [res.status, res.json],
          [404, { statusCode: 404, message: 'Not Found', error: 'Not Found' }],
        );
        const history = await t.request('GET', `/api/chats/${chatId}/messages`, { headers: agent0 });
        const statuses = (history.json.messages as { origin: string; status: string }[]).map((m) => [
          m.origin,
          m.status,
        ]);
        assert.deepEqual(statuses, [
          ['user', 'delivered'],
          ['contact', 'received'],
        ]);
      } finally {
        gw.close();
      }
    });
  });
});
