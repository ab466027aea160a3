import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/db.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';
import { closedPort, startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// Outgoing webhooks: subscriptions (admin API), the signed POST of each event's envelope, retries and
// their backoff, final answers, a receiver that comes back, replay, event filters, tenancy,
// auto-disable with its notification, and the delivery log's retention with the events.

type Envelope = Record<string, unknown> & {
  seq: number;
  event: string;
  accountId: string;
  data: Record<string, unknown>;
};
type Delivery = {
  id: string;
  webhookId: string;
  eventId: string;
  event: string;
  seq: number;
  status: string;
  attempts: number;
  lastAttemptAt: string | null;
  lastResponseStatus: number | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
};

/** The receivers of these tests listen on 127.0.0.1: the installation opts in to private networks. */
const LOCAL_RECEIVERS = { ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' };

let phoneSeq = 0;
const phone = () => `5511977${String(++phoneSeq).padStart(6, '0')}`;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The README's receiver check, as an integrator would write it. */
function verify(secret: string, header: string, rawBody: string): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=')));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(Date.now() / 1000 - t) > 300) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${rawBody}`).digest();
  const given = Buffer.from(parts.v1 ?? '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Polls `fn` until it returns a value (the delivery log is read, not pushed). */
async function waitFor<T>(
  what: string,
  fn: () => Promise<T | undefined | null | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('outgoing webhooks', () => {
  let t: TestApp;
  const receivers: WebhookReceiver[] = [];
  const clients: GatewayClient[] = [];

  before(async () => {
    t = await startTestApp({
      env: {
        ...LOCAL_RECEIVERS,
        ATENDE_WEBHOOK_RETRY_BASE_MS: '50',
        ATENDE_WEBHOOK_TIMEOUT_MS: '3000',
        ATENDE_WEBHOOK_ENDPOINT_CONCURRENCY: '2',
      },
    });
  });
  after(async () => {
    for (const c of clients) c.close();
    for (const r of receivers) await r.close();
    await t?.close();
  });

  const receiver = async (opts: Parameters<typeof startReceiver>[0] = {}) => {
    const r = await startReceiver(opts);
    receivers.push(r);
    return r;
  };
  const account = () => seedAccount(t.server.services);
  const subscribe = async (f: Fixture, body: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/webhooks', { headers: bearer(f.adminToken), body });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.json as { id: string; secret: string; url: string; events: string[] };
  };
  const deliveries = async (f: Fixture, webhookId: string, query = '') => {
    const res = await t.request('GET', `/api/webhooks/${webhookId}/deliveries${query}`, {
      headers: bearer(f.adminToken),
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.json as { total: number; items: Delivery[] };
  };
  /** The delivery of `event` once it matches `pred` (e.g. settled). */
  const deliveryOnce = (f: Fixture, webhookId: string, pred: (d: Delivery) => boolean) =>
    waitFor('the delivery log', async () => (await deliveries(f, webhookId)).items.find(pred));
  const adminClient = async (f: Fixture) => {
    const c = await connect(t.gatewayUrl!, { token: f.adminToken });
    clients.push(c);
    await c.ack('user_logged_in', f.admin.userId);
    await c.ack(
      'user_join_team',
      f.teams.map((x) => x.id),
    );
    return c;
  };

  describe('subscriptions', () => {
    let f: Fixture;
    let g: Fixture;
    before(async () => {
      f = await account();
      g = await account();
    });

    it('creates with a generated secret shown once; lists and gets without it', async () => {
      const created = await subscribe(f, {
        url: 'https://example.com/atende',
        events: ['chat.new', 'chat.close'],
      });
      assert.match(created.id, /^[0-9a-f]{24}$/);
      assert.match(created.secret, /^whsec_[A-Za-z0-9_-]{43}$/);
      assert.deepEqual(created.events, ['chat.new', 'chat.close']);
      assert.equal(created.url, 'https://example.com/atende');
      assert.equal((created as unknown as { enabled: boolean }).enabled, true);

      const given = await subscribe(f, {
        url: 'http://127.0.0.1:9/x',
        events: ['*'],
        secret: 'my-own-secret-0123',
      });
      assert.equal(given.secret, 'my-own-secret-0123');

      const list = await t.request('GET', '/api/webhooks', { headers: bearer(f.adminToken) });
      assert.equal(list.status, 200);
      const items = list.body as Record<string, unknown>[];
      assert.deepEqual(
        items.map((w) => w.id),
        [given.id, created.id],
      );
      for (const w of items) assert.equal('secret' in w, false);
      assert.equal(items[0]!.secretHint, '…0123');
      const one = await t.request('GET', `/api/webhooks/${created.id}`, { headers: bearer(f.adminToken) });
      assert.equal(one.status, 200);
      assert.equal('secret' in one.json, false);
      assert.equal(one.json.secretHint, `…${created.secret.slice(-4)}`);
      assert.deepEqual(one.json, items[1]);
      assert.equal(JSON.stringify(list.body).includes(created.secret), false);
    });

    it('refuses bad input with clear sentences', async () => {
      const post = (body: unknown) =>
        t.request('POST', '/api/webhooks', { headers: bearer(f.adminToken), body });
      const cases: [unknown, string[]][] = [
        [{ url: 'ftp://example.com/x', events: ['chat.new'] }, ['url must be an absolute http or https URL']],
        [{ url: 'example.com/x', events: ['chat.new'] }, ['url must be an absolute http or https URL']],
        [
          { url: 'https://user:pw@example.com/x', events: ['chat.new'] },
          ['url must not contain a user name or password'],
        ],
        [{ url: 'https://example.com/x', events: [] }, ['events must contain at least 1 elements']],
        [{ url: 'https://example.com/x' }, ['events should not be empty']],
        [
          { url: 'https://example.com/x', events: ['chat.new', 'chat.new'] },
          ["All events's elements must be unique"],
        ],
        [
          { url: 'https://example.com/x', events: ['chat.new'], secret: 'short' },
          ['secret must be longer than or equal to 16 characters'],
        ],
        [{ url: 'https://example.com/x', events: ['chat.new'], foo: 1 }, ['property foo should not exist']],
      ];
      for (const [body, message] of cases) {
        const res = await post(body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.deepEqual(res.json, { statusCode: 400, message, error: 'Bad Request' }, JSON.stringify(body));
      }
      const unknown = await post({ url: 'https://example.com/x', events: ['chat.new', 'chat.nope'] });
      assert.equal(unknown.status, 400);
      const [sentence] = unknown.json.message as string[];
      assert.match(
        sentence!,
        /^events\.1 must be one of the following values: message\.upsert, .*chat\.transfer.*, \*$/,
      );

      const patch = (id: string, body: unknown) =>
        t.request('PATCH', `/api/webhooks/${id}`, { headers: bearer(f.adminToken), body });
      const w = await subscribe(f, { url: 'https://example.com/p', events: ['chat.new'] });
      assert.deepEqual((await patch(w.id, {})).json.message, ['body should not be empty']);
      assert.deepEqual(
        (await patch(w.id, { secret: 'another-secret-0000', rotateSecret: true })).json.message,
        ['secret and rotateSecret cannot be used together'],
      );
      assert.deepEqual((await patch(w.id, { url: 'mailto:a@b.c' })).json.message, [
        'url must be an absolute http or https URL',
      ]);
      const badId = await t.request('GET', '/api/webhooks/nope', { headers: bearer(f.adminToken) });
      assert.deepEqual(badId.json, {
        statusCode: 400,
        message: ['id must be a 24-character hexadecimal id'],
        error: 'Bad Request',
      });
    });

    it('changes url, events, secret and enabled; deletes', async () => {
      const w = await subscribe(f, { url: 'https://example.com/a', events: ['chat.new'] });
      const patch = (body: unknown) =>
        t.request('PATCH', `/api/webhooks/${w.id}`, { headers: bearer(f.adminToken), body });
      const changed = await patch({ url: 'https://example.com/b', events: ['chat.close', 'message.upsert'] });
      assert.equal(changed.status, 200);
      assert.equal(changed.json.url, 'https://example.com/b');
      assert.deepEqual(changed.json.events, ['chat.close', 'message.upsert']);
      assert.equal('secret' in changed.json, false);

      const rotated = await patch({ rotateSecret: true });
      assert.match(String(rotated.json.secret), /^whsec_/);
      assert.notEqual(rotated.json.secret, w.secret);
      const set = await patch({ secret: 'a-new-secret-given-1' });
      assert.equal(set.json.secret, 'a-new-secret-given-1');
      assert.equal(set.json.secretHint, '…en-1');

      const paused = await patch({ enabled: false });
      assert.equal(paused.json.enabled, false);
      assert.equal(paused.json.disabledReason, 'manual');
      assert.ok(paused.json.disabledAt);
      const resumed = await patch({ enabled: true });
      assert.equal(resumed.json.enabled, true);
      assert.equal(resumed.json.disabledReason, null);
      assert.equal(resumed.json.disabledAt, null);

      const del = await t.request('DELETE', `/api/webhooks/${w.id}`, { headers: bearer(f.adminToken) });
      assert.equal(del.status, 204);
      const gone = await t.request('GET', `/api/webhooks/${w.id}`, { headers: bearer(f.adminToken) });
      assert.deepEqual(gone.json, { statusCode: 404, message: 'Not Found', error: 'Not Found' });
      const again = await t.request('DELETE', `/api/webhooks/${w.id}`, { headers: bearer(f.adminToken) });
      assert.equal(again.status, 404);
    });

    it('needs webhooks:manage (403); another account’s ids are 404', async () => {
      const w = await subscribe(f, { url: 'https://example.com/t', events: ['chat.new'] });
      const agent = bearer(f.agents[0]!.token);
      const forbidden = await t.request('GET', '/api/webhooks', { headers: agent });
      assert.deepEqual(forbidden.json, {
        statusCode: 403,
        message: 'Permissão necessária: webhooks:manage',
        error: 'Forbidden',
      });
      assert.equal(
        (
          await t.request('POST', '/api/webhooks', {
            headers: agent,
            body: { url: 'https://e.com', events: ['*'] },
          })
        ).status,
        403,
      );
      assert.equal(
        (await t.request('GET', `/api/webhooks/${w.id}/deliveries`, { headers: agent })).status,
        403,
      );
      assert.equal((await t.request('GET', '/api/webhooks')).status, 401);

      const other = bearer(g.adminToken);
      const notFound = { statusCode: 404, message: 'Not Found', error: 'Not Found' };
      const delivery = '00000000-0000-4000-8000-000000000000';
      for (const [method, path, body] of [
        ['GET', `/api/webhooks/${w.id}`, undefined],
        ['PATCH', `/api/webhooks/${w.id}`, { enabled: false }],
        ['DELETE', `/api/webhooks/${w.id}`, undefined],
        ['GET', `/api/webhooks/${w.id}/deliveries`, undefined],
        ['POST', `/api/webhooks/${w.id}/deliveries/${delivery}/replay`, undefined],
      ] as const) {
        const res = await t.request(method, path, { headers: other, ...(body ? { body } : {}) });
        assert.deepEqual(res.json, notFound, `${method} ${path}`);
      }
      assert.deepEqual(
        ((await t.request('GET', '/api/webhooks', { headers: other })).body as unknown[]).length,
        0,
      );
      // Still there, unchanged, for its own account.
      const mine = await t.request('GET', `/api/webhooks/${w.id}`, { headers: bearer(f.adminToken) });
      assert.equal(mine.json.enabled, true);
    });

    it('is in the OpenAPI document', async () => {
      const doc = (await t.request('GET', '/docs/json')).json as {
        paths: Record<string, Record<string, unknown>>;
      };
      assert.deepEqual(Object.keys(doc.paths['/api/webhooks']!).sort(), ['get', 'post']);
      assert.deepEqual(Object.keys(doc.paths['/api/webhooks/{id}']!).sort(), ['delete', 'get', 'patch']);
      assert.ok(doc.paths['/api/webhooks/{id}/deliveries']!.get);
      assert.ok(doc.paths['/api/webhooks/{id}/deliveries/{deliveryId}/replay']!.post);
    });
  });

  describe('delivery', () => {
    it('POSTs the envelope the gateway emits, signed, with the delivery headers', async () => {
      const f = await account();
      const admin = await adminClient(f);
      const r = await receiver();
      const w = await subscribe(f, { url: r.url, events: ['*'] });
      const chatId = await f.inbound(0, phone(), 'Olá, webhooks');
      const live = (await admin.next(
        'chat.new',
        (e) => (e.data as { chat: { id: string } }).chat.id === chatId,
      )) as Envelope;
      const req = await r.next((x) => x.headers['atende-event'] === 'chat.new');

      assert.equal(req.method, 'POST');
      assert.equal(req.path, '/hook');
      assert.equal(req.headers['content-type'], 'application/json');
      assert.equal(req.headers['user-agent'], 'Atende-Webhooks/1.0');
      assert.match(String(req.headers['atende-delivery']), UUID);
      assert.match(String(req.headers['atende-signature']), /^t=\d+,v1=[0-9a-f]{64}$/);
      assert.equal(verify(w.secret, String(req.headers['atende-signature']), req.body), true);
      assert.equal(verify(w.secret, String(req.headers['atende-signature']), `${req.body} `), false);
      assert.equal(verify('another-secret-here', String(req.headers['atende-signature']), req.body), false);

      const body = JSON.parse(req.body) as Envelope;
      assert.deepEqual(body, live);
      const log = await t.request('GET', `/api/events?after=${live.seq - 1}&limit=1`, {
        headers: bearer(f.adminToken),
      });
      assert.deepEqual((log.json.events as Envelope[])[0], body);

      // The message of the same inbound is its own delivery.
      const upsert = await r.next((x) => x.headers['atende-event'] === 'message.upsert');
      assert.equal((JSON.parse(upsert.body) as Envelope).seq, live.seq + 1);
      assert.notEqual(upsert.headers['atende-delivery'], req.headers['atende-delivery']);

      const d = await deliveryOnce(
        f,
        w.id,
        (x) => x.id === req.headers['atende-delivery'] && x.status === 'delivered',
      );
      assert.equal(d.event, 'chat.new');
      assert.equal(d.seq, live.seq);
      assert.equal(d.eventId, live.id);
      assert.equal(d.attempts, 1);
      assert.equal(d.lastResponseStatus, 200);
      assert.equal(d.lastError, null);
      assert.equal(d.nextAttemptAt, null);
      assert.ok(d.deliveredAt);
      const hook = await t.request('GET', `/api/webhooks/${w.id}`, { headers: bearer(f.adminToken) });
      assert.ok(hook.json.lastSuccessAt);
      assert.equal(hook.json.failingSince, null);
    });

    it('retries 5xx with the same Atende-Delivery until a 2xx; the log shows 3 attempts', async () => {
      const f = await account();
      const r = await receiver({
        script: (n) => (n < 2 ? { status: 500, body: 'oops' } : { status: 200 }),
      });
      const w = await subscribe(f, { url: r.url, events: ['chat.new'] });
      await f.inbound(0, phone());
      const calls = [await r.next(), await r.next(), await r.next()];
      const ids = new Set(calls.map((c) => c.headers['atende-delivery']));
      assert.equal(ids.size, 1);
      assert.deepEqual(new Set(calls.map((c) => c.body)).size, 1);
      for (const c of calls)
        assert.equal(verify(w.secret, String(c.headers['atende-signature']), c.body), true);
      const d = await deliveryOnce(f, w.id, (x) => x.status === 'delivered');
      assert.equal(d.id, [...ids][0]);
      assert.equal(d.attempts, 3);
      assert.equal(d.lastResponseStatus, 200);
      assert.equal(d.lastError, null);
      assert.equal(r.requests.length, 3);
      // The failures started a streak; the success ended it.
      const hook = await t.request('GET', `/api/webhooks/${w.id}`, { headers: bearer(f.adminToken) });
      assert.equal(hook.json.failingSince, null);
      assert.equal(hook.json.enabled, true);
    });

    it('records a retry with its error and next attempt; 429 waits for Retry-After', async () => {
      const f = await account();
      const r = await receiver({
        script: (n) => (n === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 204 }),
      });
      const w = await subscribe(f, { url: r.url, events: ['chat.new'] });
      await f.inbound(0, phone());
      const first = await r.next();
      const pending = await deliveryOnce(
        f,
        w.id,
        (x) => x.status === 'pending' && x.attempts === 1 && x.nextAttemptAt !== null,
      );
      assert.equal(pending.lastResponseStatus, 429);
      assert.equal(pending.lastError, 'HTTP 429');
      const second = await r.next();
      assert.ok(second.at - first.at >= 1000, `retried after ${second.at - first.at} ms, before Retry-After`);
      const d = await deliveryOnce(f, w.id, (x) => x.status === 'delivered');
      assert.equal(d.attempts, 2);
      assert.equal(d.lastResponseStatus, 204);
    });

    it('a 4xx is final: called once, delivery failed', async () => {
      const f = await account();
      const r = await receiver({ script: () => ({ status: 400, body: 'unknown event' }) });
      const w = await subscribe(f, { url: r.url, events: ['chat.new'] });
      await f.inbound(0, phone());
      await r.next();
      const d = await deliveryOnce(f, w.id, (x) => x.status === 'failed');
      assert.equal(d.attempts, 1);
      assert.equal(d.lastResponseStatus, 400);
      assert.equal(d.lastError, 'HTTP 400');
      assert.equal(d.nextAttemptAt, null);
      assert.equal(r.requests.length, 1);
      const failed = await deliveries(f, w.id, '?status=failed');
      assert.deepEqual(
        failed.items.map((x) => x.id),
        [d.id],
      );
      assert.equal((await deliveries(f, w.id, '?status=delivered')).total, 0);
      const hook = await t.request('GET', `/api/webhooks/${w.id}`, { headers: bearer(f.adminToken) });
      assert.ok(hook.json.failingSince);
      assert.equal(hook.json.enabled, true);
      // Enabling an endpoint that is on does not reset its failure streak.
      const same = await t.request('PATCH', `/api/webhooks/${w.id}`, {
        headers: bearer(f.adminToken),
        body: { enabled: true },
      });
      assert.equal(same.json.failingSince, hook.json.failingSince);
    });

    it('a receiver that is down gets the event when it comes back', async () => {
      const f = await account();
      const port = await closedPort();
      const w = await subscribe(f, { url: `http://127.0.0.1:${port}/hook`, events: ['chat.new'] });
      await f.inbound(0, phone());
      const down = await deliveryOnce(f, w.id, (x) => x.attempts >= 1 && x.lastError !== null);
      assert.equal(down.status, 'pending');
      assert.equal(down.lastResponseStatus, null);
      assert.match(down.lastError!, /ECONNREFUSED/);
      const r = await receiver({ port });
      const req = await r.next();
      assert.equal(req.headers['atende-delivery'], down.id);
      const d = await deliveryOnce(f, w.id, (x) => x.status === 'delivered');
      assert.ok(d.attempts >= 2);
    });

    it('replay sends the same delivery again; 404 for unknown ids, 409 when disabled', async () => {
      const f = await account();
      const r = await receiver();
      const w = await subscribe(f, { url: r.url, events: ['chat.new'] });
      await f.inbound(0, phone());
      const first = await r.next();
      const d = await deliveryOnce(f, w.id, (x) => x.status === 'delivered');
      const replay = (id: string) =>
        t.request('POST', `/api/webhooks/${w.id}/deliveries/${id}/replay`, { headers: bearer(f.adminToken) });
      const res = await replay(d.id);
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assert.equal(res.json.id, d.id);
      assert.equal(res.json.status, 'pending');
      const again = await r.next();
      assert.equal(again.headers['atende-delivery'], d.id);
      assert.equal(again.body, first.body);
      const replayed = await deliveryOnce(f, w.id, (x) => x.status === 'delivered' && x.attempts === 2);
      assert.equal(replayed.id, d.id);

      assert.equal((await replay('00000000-0000-4000-8000-000000000000')).status, 404);
      const bad = await replay('nope');
      assert.deepEqual(bad.json.message, ['deliveryId must be a UUID']);
      await t.request('PATCH', `/api/webhooks/${w.id}`, {
        headers: bearer(f.adminToken),
        body: { enabled: false },
      });
      assert.deepEqual((await replay(d.id)).json, {
        statusCode: 409,
        message: 'O webhook está desativado',
        error: 'Conflict',
      });
      assert.equal(r.requests.length, 2);
    });

    it('sends only the events subscribed to', async () => {
      const f = await account();
      const r = await receiver();
      const w = await subscribe(f, { url: r.url, events: ['chat.transfer'] });
      const chatId = await f.inbound(0, phone());
      const transfer = await t.request('POST', `/channel-api/chats/${chatId}/transfer/user`, {
        headers: f.authHeader(),
        body: { userId: f.agents[1]!.id },
      });
      assert.equal(transfer.status, 200);
      const req = await r.next();
      assert.equal(req.headers['atende-event'], 'chat.transfer');
      assert.equal((JSON.parse(req.body) as Envelope).event, 'chat.transfer');
      // Deliveries are written with their events: the log has every one this endpoint is owed.
      const log = await deliveries(f, w.id);
      assert.equal(log.total, 1);
      assert.deepEqual(
        log.items.map((x) => x.event),
        ['chat.transfer'],
      );
    });

    it('never sends one account’s events to another account’s endpoint', async () => {
      const a = await account();
      const b = await account();
      const ra = await receiver();
      const rb = await receiver();
      const wa = await subscribe(a, { url: ra.url, events: ['*'] });
      const wb = await subscribe(b, { url: rb.url, events: ['*'] });
      await b.inbound(0, phone());
      const fromB = JSON.parse((await rb.next()).body) as Envelope;
      assert.equal(fromB.accountId, b.accountId);
      assert.equal((await deliveries(a, wa.id)).total, 0);
      await a.inbound(0, phone());
      await ra.next();
      const log = await deliveries(a, wa.id);
      assert.deepEqual(log.items.map((x) => x.event).sort(), ['chat.new', 'message.upsert']);
      for (const req of ra.requests) assert.equal((JSON.parse(req.body) as Envelope).accountId, a.accountId);
      assert.equal((await deliveries(b, wb.id)).total, 2);
    });

    it('a slow endpoint holds at most its cap (2 here) of attempts at once; other endpoints go on', async () => {
      const a = await account();
      const b = await account();
      const slow = await receiver({ script: () => ({ status: 200, hang: true }) });
      const fast = await receiver();
      const w = await subscribe(a, { url: slow.url, events: ['*'] });
      await subscribe(b, { url: fast.url, events: ['chat.new'] });
      // Ten deliveries to the slow endpoint: more than the 2 it may hold open, fewer than a node's attempts.
      for (let i = 0; i < 5; i++) await a.inbound(0, phone());
      await slow.next();
      await slow.next();
      await b.inbound(0, phone());
      await fast.next();
      assert.equal(slow.maxOpen(), 2);
      // Stop its retries for the rest of the file.
      await t.request('PATCH', `/api/webhooks/${w.id}`, {
        headers: bearer(a.adminToken),
        body: { enabled: false },
      });
    });

    it('a paused endpoint is owed nothing', async () => {
      const f = await account();
      const r = await receiver();
      const w = await subscribe(f, { url: r.url, events: ['*'] });
      await t.request('PATCH', `/api/webhooks/${w.id}`, {
        headers: bearer(f.adminToken),
        body: { enabled: false },
      });
      await f.inbound(0, phone());
      assert.equal((await deliveries(f, w.id)).total, 0);
      assert.equal(r.requests.length, 0);
    });
  });
});

describe('outgoing webhooks: an endpoint failing for the retry window', () => {
  let t: TestApp;
  let r: WebhookReceiver;
  let client: GatewayClient;

  before(async () => {
    t = await startTestApp({
      env: {
        ...LOCAL_RECEIVERS,
        ATENDE_WEBHOOK_RETRY_BASE_MS: '50',
        ATENDE_WEBHOOK_RETRY_WINDOW_SECONDS: '2',
      },
    });
  });
  after(async () => {
    client?.close();
    await r?.close();
    await t?.close();
  });

  it('is disabled, and every webhook admin is notified (webhook.disabled)', async () => {
    const f = await seedAccount(t.server.services);
    r = await startReceiver({ script: () => ({ status: 503, body: 'maintenance' }) });
    const created = await t.request('POST', '/api/webhooks', {
      headers: bearer(f.adminToken),
      body: { url: r.url, events: ['chat.new'] },
    });
    const id = String(created.json.id);
    client = await connect(t.gatewayUrl!, { token: f.adminToken });
    await client.ack('user_logged_in', f.admin.userId);

    const started = Date.now();
    await f.inbound(0, phone());
    const live = (await client.next('notification.new')) as Envelope;
    const notification = live.data.notification as {
      kind: string;
      data: Record<string, unknown>;
      id: string;
    };
    assert.equal(notification.kind, 'webhook.disabled');
    assert.deepEqual(notification.data, { webhookId: id, url: r.url });
    // Retried for the whole window (its last attempt when the window closed), then given up.
    assert.ok(Date.now() - started >= 2000);
    assert.ok(r.requests.length >= 3, `${r.requests.length} attempts`);
    const ids = new Set(r.requests.map((x) => x.headers['atende-delivery']));
    assert.equal(ids.size, 1);

    const hook = await t.request('GET', `/api/webhooks/${id}`, { headers: bearer(f.adminToken) });
    assert.equal(hook.json.enabled, false);
    assert.equal(hook.json.disabledReason, 'failing');
    assert.ok(hook.json.failingSince);
    const log = await t.request('GET', `/api/webhooks/${id}/deliveries`, { headers: bearer(f.adminToken) });
    const [d] = log.json.items as Delivery[];
    assert.equal(d!.status, 'failed');
    assert.equal(d!.attempts, r.requests.length);
    assert.equal(d!.lastResponseStatus, 503);
    assert.equal(d!.lastError, 'HTTP 503');

    const list = await t.request('GET', '/api/notifications', { headers: bearer(f.adminToken) });
    const stored = (list.json.notifications as { id: string; kind: string }[]).find(
      (n) => n.kind === 'webhook.disabled',
    );
    assert.equal(stored?.id, notification.id);
    // Agents do not manage webhooks: not told.
    const agent = await t.request('GET', '/api/notifications', { headers: bearer(f.agents[0]!.token) });
    assert.equal(
      (agent.json.notifications as { kind: string }[]).filter((n) => n.kind === 'webhook.disabled').length,
      0,
    );

    // Disabled: new events are not delivered; turned back on, the streak starts over.
    const attempts = r.requests.length;
    await f.inbound(0, phone());
    const after = await t.request('GET', `/api/webhooks/${id}/deliveries`, { headers: bearer(f.adminToken) });
    assert.equal(after.json.total, 1);
    assert.equal(r.requests.length, attempts);
    const back = await t.request('PATCH', `/api/webhooks/${id}`, {
      headers: bearer(f.adminToken),
      body: { enabled: true },
    });
    assert.equal(back.json.enabled, true);
    assert.equal(back.json.failingSince, null);
  });

  it('deliveries go with their events when the log’s retention removes them', async () => {
    const f = await seedAccount(t.server.services);
    const rr = await startReceiver();
    try {
      const created = await t.request('POST', '/api/webhooks', {
        headers: bearer(f.adminToken),
        body: { url: rr.url, events: ['*'] },
      });
      const id = String(created.json.id);
      await f.inbound(0, phone());
      await rr.next();
      const log = async () =>
        (await t.request('GET', `/api/webhooks/${id}/deliveries`, { headers: bearer(f.adminToken) })).json;
      assert.equal((await log()).total, 2);
      await t.server.services.events.purgeExpired(new Date(Date.now() + 8 * 24 * 3600 * 1000));
      assert.equal((await log()).total, 0);
    } finally {
      await rr.close();
    }
  });
});

describe('outgoing webhooks: attempts across processes and time limits', () => {
  const env = { ...LOCAL_RECEIVERS, ATENDE_WEBHOOK_RETRY_BASE_MS: '50', ATENDE_WEBHOOK_TIMEOUT_MS: '300' };

  it('a retry scheduled by one server process is sent by the next one', async () => {
    const database = await createTestDatabase();
    let first: TestApp | null = await startTestApp({ databaseUrl: database.url, env });
    let second: TestApp | null = null;
    let r: WebhookReceiver | null = null;
    try {
      const f = await seedAccount(first.server.services);
      const port = await closedPort();
      const created = await first.request('POST', '/api/webhooks', {
        headers: bearer(f.adminToken),
        body: { url: `http://127.0.0.1:${port}/hook`, events: ['chat.new'] },
      });
      const id = String(created.json.id);
      await f.inbound(0, phone());
      const app = first;
      const down = await waitFor('a failed attempt', async () => {
        const log = await app.request('GET', `/api/webhooks/${id}/deliveries`, {
          headers: bearer(f.adminToken),
        });
        return (log.json.items as Delivery[]).find((d) => d.attempts >= 1 && d.lastError !== null);
      });
      await first.close();
      first = null;

      r = await startReceiver({ port });
      second = await startTestApp({ databaseUrl: database.url, env });
      const req = await r.next();
      assert.equal(req.headers['atende-delivery'], down.id);
      const next = second;
      const done = await waitFor('the delivery', async () => {
        const log = await next.request('GET', `/api/webhooks/${id}/deliveries`, {
          headers: bearer(f.adminToken),
        });
        return (log.json.items as Delivery[]).find((d) => d.status === 'delivered');
      });
      assert.equal(done.id, down.id);
    } finally {
      await first?.close();
      await second?.close();
      await r?.close();
      await database.drop();
    }
  });

  it('a receiver that does not answer in time is retried', async () => {
    const t = await startTestApp({ env });
    const r = await startReceiver({
      script: (n) => (n === 0 ? { status: 200, hang: true } : { status: 200 }),
    });
    try {
      const f = await seedAccount(t.server.services);
      const created = await t.request('POST', '/api/webhooks', {
        headers: bearer(f.adminToken),
        body: { url: r.url, events: ['chat.new'] },
      });
      await f.inbound(0, phone());
      const [a, b] = [await r.next(), await r.next()];
      assert.equal(a.headers['atende-delivery'], b.headers['atende-delivery']);
      const d = await waitFor('the delivery', async () => {
        const log = await t.request('GET', `/api/webhooks/${String(created.json.id)}/deliveries`, {
          headers: bearer(f.adminToken),
        });
        return (log.json.items as Delivery[]).find((x) => x.status === 'delivered');
      });
      assert.equal(d.attempts, 2);
    } finally {
      await r.close();
      await t.close();
    }
  });

  it('refuses bad settings at start', () => {
    assert.throws(
      () => loadConfig({ ATENDE_WEBHOOK_RETRY_BASE_MS: 'soon', ATENDE_WEBHOOK_TIMEOUT_MS: '10' }),
      (err: Error) =>
        err.message.includes(
          'ATENDE_WEBHOOK_RETRY_BASE_MS must be an integer between 10 and 3600000 (got "soon")',
        ) &&
        err.message.includes(
          'ATENDE_WEBHOOK_TIMEOUT_MS must be an integer between 100 and 120000 (got "10")',
        ),
    );
    assert.throws(
      () => loadConfig({ ATENDE_EVENT_RETENTION_DAYS: '1', ATENDE_WEBHOOK_RETRY_WINDOW_SECONDS: '90000' }),
      /ATENDE_WEBHOOK_RETRY_WINDOW_SECONDS must not exceed ATENDE_EVENT_RETENTION_DAYS/,
    );
    const config = loadConfig({});
    assert.deepEqual(config.webhooks, {
      timeoutMs: 10_000,
      retryBaseMs: 10_000,
      retryWindowSeconds: 86_400,
      endpointConcurrency: 16,
      allowPrivateNetworks: false,
    });
  });
});
