import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { assertPortsFree, PortInUseError } from '../../src/http/ports.js';
import { isPrivateAddress, metricsAccess } from '../../src/metrics/endpoint.js';
import { sendErrorClass } from '../../src/metrics/metrics.js';
import { ProviderError } from '../../src/providers/types.js';
import { httpRequest, startTestApp, type TestApp } from '../helpers/app.js';
import { FakeGraph } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';
import { createWhatsAppChannel } from '../helpers/whatsapp.js';
import { closedPort } from '../helpers/webhook-receiver.js';

// GET /metrics (Prometheus): the families and their values after real traffic — HTTP requests by
// route pattern, a send accepted and one refused by the provider, a failing webhook, the send queue
// while a provider call is held, the gateway's sockets and rooms — and who may read them: loopback and
// private clients on the API port, a bearer token when configured, and the metrics' own port.

const TOKEN = 'metrics-token-0123456789';

/** Scrapes `/metrics` of `base` (the API, or the metrics' own port). */
async function scrape(base: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${base}/metrics`, { headers });
  assert.equal(res.status, 200, await res.clone().text());
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** The value of one series (`name{labels}`), labels matched as a subset; undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = new Map([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) return Number(m[3]);
  }
  return undefined;
}

/** Scrapes until `ok` holds for the answer (what it waits for happens in the background). */
async function scrapeUntil(base: string, ok: (text: string) => boolean, what: string): Promise<string> {
  for (let i = 0; i < 400; i++) {
    const text = await scrape(base);
    if (ok(text)) return text;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`metrics never showed ${what}`);
}

describe('metrics on the API port', () => {
  let t: TestApp;
  let f: Fixture;
  let fake: FakeGraph;
  let waKey: string;
  const clients: GatewayClient[] = [];

  before(async () => {
    fake = await FakeGraph.start();
    t = await startTestApp({
      env: {
        WHATSAPP_GRAPH_BASE_URL: fake.url,
        ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        // One failed attempt, then the delivery waits (pending) for its retry.
        ATENDE_WEBHOOK_RETRY_BASE_MS: '3600000',
      },
    });
    f = await seedAccount(t.server.services);
    waKey = (await createWhatsAppChannel(f, { withApiKey: true })).apiKey;
  });
  after(async () => {
    for (const c of clients) c.close();
    await t?.close();
    await fake?.close();
  });

  const send = async (to: string) => {
    const res = await t.request('POST', '/channel-api/messages/send', {
      headers: { 'x-channel-api-key': waKey },
      body: { contact: { value: to }, message: { type: 'text', text: { value: 'Olá' } } },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  };

  it('times requests by route pattern, method and status, never by raw URL', async () => {
    const before = await scrape(t.url);
    const count = (text: string, labels: Record<string, string>) =>
      sample(text, 'atende_http_request_duration_seconds_count', labels) ?? 0;
    const chats = { route: '/channel-api/chats', method: 'GET', status_code: '200' };
    const byId = { route: '/api/chats/:id', method: 'GET', status_code: '404' };
    const unmatched = { route: 'unmatched', method: 'GET', status_code: '404' };

    for (let i = 0; i < 3; i++) {
      const res = await t.request('GET', '/channel-api/chats', { headers: f.authHeader() });
      assert.equal(res.status, 200);
    }
    const missing = await t.request('GET', '/api/chats/0123456789abcdef01234567', {
      headers: { authorization: `Bearer ${f.adminToken}` },
    });
    assert.equal(missing.status, 404);
    const nowhere = await t.request('GET', '/api/no-such-route/secret-id-42');
    assert.equal(nowhere.status, 404);

    const text = await scrape(t.url);
    assert.equal(count(text, chats) - count(before, chats), 3);
    assert.equal(count(text, byId) - count(before, byId), 1);
    assert.equal(count(text, unmatched) - count(before, unmatched), 1);
    assert.ok((sample(text, 'atende_http_request_duration_seconds_sum', chats) ?? 0) > 0);
    assert.ok(
      (sample(text, 'atende_http_request_duration_seconds_bucket', { ...chats, le: '+Inf' }) ?? 0) >= 3,
    );
    // Neither the id nor the unknown path became a label value.
    assert.doesNotMatch(text, /0123456789abcdef01234567|secret-id-42/);
  });

  it('counts sends the provider accepted and refused, by error class, and shows the queue', async () => {
    // A webhook whose endpoint never answers: every event of the account fails its first attempt.
    const hook = await t.request('POST', '/api/webhooks', {
      headers: { authorization: `Bearer ${f.adminToken}` },
      body: { url: `http://127.0.0.1:${await closedPort()}/hook`, events: ['*'] },
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));

    // Held at the fake Graph API: the message is queued (and leased) until released.
    const held = fake.holdNext();
    await send('5511987650001');
    await fake.nextRequest();
    const queued = await scrape(t.url);
    assert.equal(sample(queued, 'atende_send_queue_depth'), 1);
    assert.ok((sample(queued, 'atende_send_queue_oldest_age_seconds') ?? -1) >= 0);
    held.release();

    fake.failNext({ code: 131026, message: 'Message undeliverable' });
    await send('5511987650002');

    const text = await scrapeUntil(
      t.url,
      (s) =>
        sample(s, 'atende_send_delivered_total', { provider: 'whatsapp-cloud' }) === 1 &&
        sample(s, 'atende_send_failures_total', { provider: 'whatsapp-cloud', error_class: 'rejected' }) ===
          1 &&
        sample(s, 'atende_send_queue_depth') === 0 &&
        (sample(s, 'atende_webhook_delivery_failures_total', { reason: 'unreachable' }) ?? 0) >= 1,
      'the sends settled and a webhook attempt failed',
    );
    assert.equal(sample(text, 'atende_send_queue_oldest_age_seconds'), 0);
    // The failed deliveries wait for their retry, an hour away.
    assert.ok((sample(text, 'atende_webhook_backlog') ?? 0) >= 1);
  });

  it('shows the gateway, the database pool and the process', async () => {
    const gatewayUrl = t.gatewayUrl!;
    const base = await scrape(t.url);
    const sockets = sample(base, 'atende_gateway_connected_sockets') ?? -1;
    assert.ok(sockets >= 0);
    const client = await connect(gatewayUrl, { token: f.agents[0]!.token });
    clients.push(client);
    assert.equal((await client.ack('user_logged_in', f.agents[0]!.id)).ok, true);
    const text = await scrape(t.url);
    assert.equal(sample(text, 'atende_gateway_connected_sockets'), sockets + 1);
    // The agent's room it subscribed to and the owner room every connection joins; the rooms Socket.IO
    // names after each socket are left out.
    assert.ok((sample(text, 'atende_gateway_rooms', { kind: 'user' }) ?? 0) >= 1);
    assert.ok((sample(text, 'atende_gateway_rooms', { kind: 'uid' }) ?? 0) >= 1);
    assert.doesNotMatch(text, /atende_gateway_rooms\{kind="[\w-]{20}"\}/);

    assert.ok((sample(text, 'atende_db_pool_total', { pool: 'main' }) ?? 0) >= 1);
    assert.ok((sample(text, 'atende_db_pool_idle', { pool: 'main' }) ?? -1) >= 0);
    assert.ok((sample(text, 'atende_db_pool_waiting', { pool: 'main' }) ?? -1) >= 0);
    assert.notEqual(sample(text, 'nodejs_eventloop_lag_seconds'), undefined);
    assert.notEqual(sample(text, 'process_cpu_user_seconds_total'), undefined);
    assert.match(text, /^# TYPE atende_http_request_duration_seconds histogram$/m);
  });

  it('answers loopback clients, and refuses requests a proxy forwarded unless it is trusted', async () => {
    assert.equal((await httpRequest(t.url, 'GET', '/metrics')).status, 200);
    const forwarded = await httpRequest(t.url, 'GET', '/metrics', {
      headers: { 'x-forwarded-for': '10.0.0.7' },
    });
    assert.equal(forwarded.status, 403);
    assert.deepEqual(forwarded.body, { statusCode: 403, message: 'Forbidden', error: 'Forbidden' });
  });

  it('is not part of the OpenAPI document', async () => {
    const doc = await t.request('GET', '/docs/json');
    assert.equal(doc.status, 200);
    assert.equal((doc.json.paths as Record<string, unknown>)['/metrics'], undefined);
  });
});

describe('metrics protection', () => {
  it('behind a trusted proxy, answers private clients and refuses public ones', async () => {
    const t = await startTestApp({ env: { ATENDE_TRUST_PROXY: '127.0.0.1' } });
    try {
      const from = (ip: string) =>
        httpRequest(t.url, 'GET', '/metrics', { headers: { 'x-forwarded-for': ip } });
      assert.equal((await from('10.1.2.3')).status, 200);
      assert.equal((await from('fd00::5')).status, 200);
      assert.equal((await from('203.0.113.9')).status, 403);
      assert.equal((await from('2001:db8::1')).status, 403);
    } finally {
      await t.close();
    }
  });

  it('with ATENDE_METRICS_TOKEN, requires it as a bearer token, from any address', async () => {
    const t = await startTestApp({ env: { ATENDE_METRICS_TOKEN: TOKEN } });
    try {
      assert.equal((await httpRequest(t.url, 'GET', '/metrics')).status, 401);
      const wrong = await httpRequest(t.url, 'GET', '/metrics', {
        headers: { authorization: `Bearer ${TOKEN}x` },
      });
      assert.equal(wrong.status, 401);
      const text = await scrape(t.url, { authorization: `Bearer ${TOKEN}` });
      assert.notEqual(sample(text, 'atende_send_queue_depth'), undefined);
    } finally {
      await t.close();
    }
  });

  it('decides by address and forwarding headers', () => {
    for (const ip of [
      '127.0.0.1',
      '::1',
      '10.0.0.1',
      '172.16.5.4',
      '192.168.1.1',
      'fd12::1',
      '::ffff:10.0.0.2',
    ])
      assert.equal(isPrivateAddress(ip), true, ip);
    for (const ip of ['8.8.8.8', '203.0.113.1', '2001:4860::8888', '::ffff:8.8.8.8', 'not-an-ip'])
      assert.equal(isPrivateAddress(ip), false, ip);
    const open = { token: null, trustsProxy: false };
    assert.equal(metricsAccess({ ip: '127.0.0.1', headers: {} }, open), 'allowed');
    assert.equal(
      metricsAccess({ ip: '127.0.0.1', headers: { forwarded: 'for=1.2.3.4' } }, open),
      'not_private',
    );
    assert.equal(metricsAccess({ ip: '8.8.8.8', headers: {} }, open), 'not_private');
    const token = { token: TOKEN, trustsProxy: false };
    assert.equal(metricsAccess({ ip: '127.0.0.1', headers: {} }, token), 'missing_token');
    assert.equal(
      metricsAccess({ ip: '8.8.8.8', headers: { authorization: `Bearer ${TOKEN}` } }, token),
      'allowed',
    );
  });

  it('classes provider errors', () => {
    const err = (code: string, temporary: boolean) => new ProviderError(code, 'x', temporary);
    assert.equal(sendErrorClass(err('190', false)), 'credentials');
    assert.equal(sendErrorClass(err('130429', true)), 'rate_limited');
    assert.equal(sendErrorClass(err('http_429', true)), 'rate_limited');
    assert.equal(sendErrorClass(err('timeout', true)), 'timeout');
    assert.equal(sendErrorClass(err('network_error', true)), 'network');
    assert.equal(sendErrorClass(err('131000', true)), 'provider_unavailable');
    assert.equal(sendErrorClass(err('131026', false)), 'rejected');
    assert.equal(sendErrorClass(new Error('db down')), 'internal');
  });
});

describe('metrics on their own port', () => {
  it('serves them there, with the token when set, and not on the API port', async () => {
    const t = await startTestApp({ env: { ATENDE_METRICS_PORT: '0', ATENDE_METRICS_TOKEN: TOKEN } });
    try {
      const metricsUrl = t.server.metricsUrl!;
      assert.ok(metricsUrl);
      assert.notEqual(new URL(metricsUrl).port, new URL(t.url).port);
      assert.equal((await fetch(`${metricsUrl}/metrics`)).status, 401);
      const text = await scrape(metricsUrl, { authorization: `Bearer ${TOKEN}` });
      assert.notEqual(sample(text, 'atende_webhook_backlog'), undefined);
      assert.equal((await fetch(`${metricsUrl}/other`)).status, 404);
      const onApi = await httpRequest(t.url, 'GET', '/metrics', {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      assert.equal(onApi.status, 404);
    } finally {
      await t.close();
    }
  });

  it('refuses a port equal to PORT or GATEWAY_PORT, and names the variable of a busy one', async () => {
    assert.throws(
      () => loadConfig({ PORT: '4600', GATEWAY_PORT: '4601', ATENDE_METRICS_PORT: '4600' }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.includes('ATENDE_METRICS_PORT and PORT must differ (both are 4600)'),
    );
    assert.throws(
      () => loadConfig({ PORT: '4600', GATEWAY_PORT: '4601', ATENDE_METRICS_PORT: '4601' }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.includes('ATENDE_METRICS_PORT and GATEWAY_PORT must differ (both are 4601)'),
    );
    assert.throws(
      () => loadConfig({ ATENDE_METRICS_TOKEN: 'short' }),
      (err: unknown) =>
        err instanceof ConfigError &&
        err.problems.includes('ATENDE_METRICS_TOKEN must be at least 16 characters long'),
    );

    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      const config = loadConfig({
        HOST: '127.0.0.1',
        PORT: '0',
        GATEWAY_PORT: '0',
        ATENDE_METRICS_PORT: String(port),
      });
      await assert.rejects(
        assertPortsFree(config),
        (err: unknown) =>
          err instanceof PortInUseError &&
          err.variable === 'ATENDE_METRICS_PORT' &&
          err.message.startsWith(`ATENDE_METRICS_PORT ${port} is already in use on 127.0.0.1`),
      );
    } finally {
      await new Promise<void>((resolve) => busy.close(() => resolve()));
    }
  });
});
