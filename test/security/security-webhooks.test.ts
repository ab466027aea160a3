import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { loadConfig } from '../../src/config.js';
import { WebhookEgress } from '../../src/modules/webhooks/webhooks.egress.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// Outgoing webhooks must not reach inside the installation (SSRF): non-public destinations are
// refused when a subscription is made and on the resolved address of every attempt, unless the
// operator opts in; the delivery log never shows what a receiver answered.

type Delivery = {
  id: string;
  status: string;
  attempts: number;
  lastResponseStatus: number | null;
  lastError: string | null;
};

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
let phoneSeq = 0;
const phone = () => `5511966${String(++phoneSeq).padStart(6, '0')}`;

/** Text a receiver answers that must never show up in the delivery log. */
const INTERNAL = 'INTERNAL-ONLY root:x:0:0 aws_secret_access_key=AKIA-TEST';

interface LocalService {
  port: number;
  /** TCP connections accepted: a refused destination must not even be connected to. */
  connections: number;
  requests: number;
  close(): Promise<void>;
}

/** An internal HTTP service on 127.0.0.1 answering `status` with the INTERNAL text (and headers). */
async function localService(status = 200, headers: Record<string, string> = {}): Promise<LocalService> {
  const state = { connections: 0, requests: 0 };
  const server = http.createServer((req, res) => {
    state.requests++;
    req.resume();
    req.on('end', () => res.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(INTERNAL));
  });
  server.on('connection', () => state.connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get connections() {
      return state.connections;
    },
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Polls `fn` until it returns a value (the delivery log is read, not pushed). */
async function waitFor<T>(what: string, fn: () => Promise<T | undefined | null | false>): Promise<T> {
  const end = Date.now() + 20_000;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function deliveryLog(t: TestApp, f: Fixture, webhookId: string) {
  const res = await t.request('GET', `/api/webhooks/${webhookId}/deliveries`, {
    headers: bearer(f.adminToken),
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res;
}

const settled = (t: TestApp, f: Fixture, webhookId: string, pred: (d: Delivery) => boolean) =>
  waitFor('the delivery log', async () =>
    ((await deliveryLog(t, f, webhookId)).json.items as Delivery[]).find(pred),
  );

describe('webhooks and SSRF: non-public destinations refused (the default)', () => {
  let t: TestApp;
  let f: Fixture;
  let internal: LocalService;

  before(async () => {
    t = await startTestApp({ env: { ATENDE_WEBHOOK_RETRY_BASE_MS: '50' } });
    f = await seedAccount(t.server.services);
    internal = await localService();
  });
  after(async () => {
    await internal?.close();
    await t?.close();
  });

  const post = (url: string) =>
    t.request('POST', '/api/webhooks', { headers: bearer(f.adminToken), body: { url, events: ['*'] } });

  const refusedLiterals: [string, RegExp][] = [
    ['http://127.0.0.1:PORT/hook', /127\.0\.0\.1 is a loopback address/],
    ['http://[::1]:PORT/hook', /::1 is a loopback address/],
    ['http://0x7f000001:PORT/hook', /127\.0\.0\.1 is a loopback address/],
    ['http://2130706433:PORT/hook', /127\.0\.0\.1 is a loopback address/],
    ['http://0177.0.0.1:PORT/hook', /127\.0\.0\.1 is a loopback address/],
    ['http://127.1:PORT/hook', /127\.0\.0\.1 is a loopback address/],
    [
      'http://169.254.169.254/latest/meta-data/',
      /169\.254\.169\.254 is a link-local \(cloud metadata\) address/,
    ],
    ['http://[fd00:ec2::254]/latest/meta-data/', /fd00:ec2::254 is a unique-local/],
    ['http://10.0.0.1/', /10\.0\.0\.1 is a private address/],
    ['https://172.16.5.4/', /172\.16\.5\.4 is a private address/],
    ['http://192.168.1.1/', /192\.168\.1\.1 is a private address/],
    ['http://100.64.0.1/', /100\.64\.0\.1 is a shared \(CGNAT\) address/],
    ['http://224.0.0.1/', /224\.0\.0\.1 is a multicast address/],
    ['http://255.255.255.255/', /255\.255\.255\.255 is a broadcast address/],
    ['http://0.0.0.0:PORT/', /0\.0\.0\.0 is an unspecified address/],
    ['http://[::]:PORT/', /:: is an unspecified address/],
    ['http://[::ffff:127.0.0.1]:PORT/', /::ffff:7f00:1 is a loopback address \(127\.0\.0\.1 inside IPv6\)/],
    [
      'http://[::ffff:169.254.169.254]/',
      /a link-local \(cloud metadata\) address \(169\.254\.169\.254 inside IPv6\)/,
    ],
    ['http://[::127.0.0.1]:PORT/', /::7f00:1 is a loopback address/],
    ['http://[fe80::1]/', /fe80::1 is a link-local/],
  ];

  it('refuses a literal non-public address at registration, however it is spelled (400)', async () => {
    for (const [template, reason] of refusedLiterals) {
      const url = template.replace('PORT', String(internal.port));
      const res = await post(url);
      assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.body)}`);
      assert.deepEqual(Object.keys(res.json).sort(), ['error', 'message', 'statusCode'], url);
      assert.equal(res.json.error, 'Bad Request');
      const [message] = res.json.message as string[];
      assert.match(message!, /^url must point to a public address: /, url);
      assert.match(message!, reason, url);
    }
    const list = await t.request('GET', '/api/webhooks', { headers: bearer(f.adminToken) });
    assert.deepEqual(list.body, []);
    assert.equal(internal.connections, 0);
  });

  it('refuses a name that resolves to a non-public address (localhost)', async () => {
    const res = await post(`http://localhost:${internal.port}/hook`);
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(res.json, {
      statusCode: 400,
      error: 'Bad Request',
      message: ['url must point to a public address: localhost resolves to 127.0.0.1, a loopback address'],
    });
  });

  it('refuses the same on PATCH, leaving the subscription as it was', async () => {
    // A name that does not resolve now is accepted: every attempt checks its addresses again.
    const created = await post('https://hooks.example.invalid/atende');
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = String(created.json.id);
    for (const url of [
      `http://127.0.0.1:${internal.port}/`,
      'http://169.254.169.254/',
      'http://localhost/',
    ]) {
      const res = await t.request('PATCH', `/api/webhooks/${id}`, {
        headers: bearer(f.adminToken),
        body: { url },
      });
      assert.equal(res.status, 400, `${url}: ${JSON.stringify(res.body)}`);
      assert.match((res.json.message as string[])[0]!, /^url must point to a public address: /);
    }
    const got = await t.request('GET', `/api/webhooks/${id}`, { headers: bearer(f.adminToken) });
    assert.equal(got.json.url, 'https://hooks.example.invalid/atende');
    // Public addresses are fine.
    const ok = await t.request('PATCH', `/api/webhooks/${id}`, {
      headers: bearer(f.adminToken),
      body: { url: 'https://8.8.8.8/atende' },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    await t.request('DELETE', `/api/webhooks/${id}`, { headers: bearer(f.adminToken) });
  });

  it('at delivery, a subscription pointing inside is never connected to; the log says why', async () => {
    // What DNS rebinding amounts to: a subscription whose destination is internal by the time of the
    // attempt. Written straight into the database, past the registration check.
    const g = await seedAccount(t.server.services);
    const targets = [
      {
        id: 'aaaaaaaaaaaaaaaaaaaaaaa1',
        url: `http://127.0.0.1:${internal.port}/hook`,
        reason: /^Refused: 127\.0\.0\.1 is a loopback address/,
      },
      {
        id: 'aaaaaaaaaaaaaaaaaaaaaaa2',
        url: `http://localhost:${internal.port}/hook`,
        reason: /^Refused: localhost resolves to 127\.0\.0\.1, a loopback address/,
      },
      {
        id: 'aaaaaaaaaaaaaaaaaaaaaaa3',
        url: `http://[::ffff:127.0.0.1]:${internal.port}/hook`,
        reason: /^Refused: ::ffff:7f00:1 is a loopback address/,
      },
    ];
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      for (const target of targets) {
        await db.query(
          `INSERT INTO webhook_subscriptions (id, account_id, url, events, secret)
           VALUES ($1, $2, $3, '{chat.new}', 'a-secret-of-this-test')`,
          [target.id, g.accountId, target.url],
        );
      }
    } finally {
      await db.end();
    }
    await g.inbound(0, phone());
    for (const target of targets) {
      const d = await settled(t, g, target.id, (x) => x.status === 'failed');
      assert.equal(d.attempts, 1, target.url);
      assert.equal(d.lastResponseStatus, null, target.url);
      assert.match(d.lastError!, target.reason, target.url);
      assert.ok(d.lastError!.length <= 200, d.lastError!);
    }
    assert.equal(internal.connections, 0);
    assert.equal(internal.requests, 0);
  });
});

describe('webhooks and SSRF: ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS=true', () => {
  let t: TestApp;
  let f: Fixture;
  const services: LocalService[] = [];

  before(async () => {
    t = await startTestApp({
      env: { ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ATENDE_WEBHOOK_RETRY_BASE_MS: '50' },
    });
    f = await seedAccount(t.server.services);
  });
  after(async () => {
    for (const s of services) await s.close();
    await t?.close();
  });

  const service = async (status: number, headers: Record<string, string> = {}) => {
    const s = await localService(status, headers);
    services.push(s);
    return s;
  };
  const subscribe = async (url: string) => {
    const res = await t.request('POST', '/api/webhooks', {
      headers: bearer(f.adminToken),
      body: { url, events: ['chat.new'] },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return String(res.json.id);
  };

  it('registers and delivers to 127.0.0.1 and localhost', async () => {
    const s = await service(204);
    const byIp = await subscribe(`http://127.0.0.1:${s.port}/hook`);
    const byName = await subscribe(`http://localhost:${s.port}/hook`);
    await f.inbound(0, phone());
    for (const id of [byIp, byName]) {
      const d = await settled(t, f, id, (x) => x.status === 'delivered');
      assert.equal(d.lastResponseStatus, 204);
      assert.equal(d.lastError, null);
    }
    assert.equal(s.requests, 2);
    for (const id of [byIp, byName])
      await t.request('DELETE', `/api/webhooks/${id}`, { headers: bearer(f.adminToken) });
  });

  it('the delivery log shows the status, never what the receiver answered', async () => {
    const failing = await service(500);
    const rejecting = await service(403);
    const a = await subscribe(`http://127.0.0.1:${failing.port}/hook`);
    const b = await subscribe(`http://127.0.0.1:${rejecting.port}/hook`);
    await f.inbound(0, phone());
    const retried = await settled(t, f, a, (x) => x.attempts >= 2);
    assert.equal(retried.lastResponseStatus, 500);
    assert.equal(retried.lastError, 'HTTP 500');
    const final = await settled(t, f, b, (x) => x.status === 'failed');
    assert.equal(final.lastError, 'HTTP 403');
    for (const id of [a, b]) {
      const log = await deliveryLog(t, f, id);
      assert.equal(JSON.stringify(log.body).includes('INTERNAL-ONLY'), false);
    }
    for (const id of [a, b])
      await t.request('DELETE', `/api/webhooks/${id}`, { headers: bearer(f.adminToken) });
  });

  it('does not follow a redirect (final, like any 3xx)', async () => {
    const target = await service(200);
    const redirecting = await service(307, { location: `http://127.0.0.1:${target.port}/elsewhere` });
    const id = await subscribe(`http://127.0.0.1:${redirecting.port}/hook`);
    await f.inbound(0, phone());
    const d = await settled(t, f, id, (x) => x.status === 'failed');
    assert.equal(d.lastResponseStatus, 307);
    assert.equal(d.lastError, 'HTTP 307');
    assert.equal(redirecting.requests, 1);
    assert.equal(target.requests, 0);
  });
});

describe('webhooks and SSRF: the egress policy', () => {
  it('refuses a name whose answer mixes public and internal addresses, and connects only to checked ones', async () => {
    const egress = new WebhookEgress({
      allowPrivateNetworks: false,
      resolve: async (name) =>
        name === 'mixed.test'
          ? [
              { address: '8.8.8.8', family: 4 },
              { address: '127.0.0.1', family: 4 },
            ]
          : [{ address: '2001:4860:4860::8888', family: 6 }],
    });
    assert.match(
      String(await egress.refusal(new URL('https://mixed.test/'))),
      /^mixed\.test resolves to 127\.0\.0\.1, a loopback address$/,
    );
    await assert.rejects(egress.addresses('mixed.test'), /^RefusedDestinationError: Refused: mixed\.test/);
    const lookup = egress.lookup!;
    const got = await new Promise<unknown>((resolve, reject) =>
      lookup('public.test', { all: true }, (err, address) => (err ? reject(err) : resolve(address))),
    );
    assert.deepEqual(got, [{ address: '2001:4860:4860::8888', family: 6 }]);
  });

  it('reads the setting strictly', () => {
    assert.equal(
      loadConfig({ ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }).webhooks.allowPrivateNetworks,
      true,
    );
    assert.equal(loadConfig({}).webhooks.allowPrivateNetworks, false);
    assert.throws(
      () => loadConfig({ ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'yes' }),
      /ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS must be true or false \(got "yes"\)/,
    );
  });
});
