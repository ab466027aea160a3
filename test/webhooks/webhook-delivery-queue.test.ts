import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createDb, type Db } from '../../src/db/index.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrate.js';
import { WebhookQueueRepo } from '../../src/modules/webhooks/webhook-queue.repo.js';
import { WebhooksRepo } from '../../src/modules/webhooks/webhooks.repo.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { installPgBoss12 } from '../helpers/pgboss-12.js';
import { createTestDatabase } from '../helpers/db.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { startTestServices, type TestServices } from '../helpers/services.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// The delivery queue is the webhook_deliveries table itself (migration 017): claims take several due
// deliveries at once within each endpoint's cap, a claim is a lease (a node that dies leaves its
// deliveries due again when it ends), 2xx outcomes are settled several per statement, and an upgrade
// from the pg-boss queue keeps every pending delivery.

const LOCAL = { ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ATENDE_WEBHOOK_RETRY_BASE_MS: '50' };
/** No worker role: nothing claims deliveries but the test itself. */
const API_ONLY = { ...LOCAL, ATENDE_ROLES: 'api' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
let phoneSeq = 0;
const phone = () => `5511966${String(++phoneSeq).padStart(6, '0')}`;

async function subscribe(t: TestApp, f: Fixture, url: string): Promise<string> {
  const res = await t.request('POST', '/api/webhooks', {
    headers: bearer(f.adminToken),
    body: { url, events: ['*'] },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return String(res.json.id);
}

/** The same subscription made by the webhooks service itself, for the tests without HTTP. */
async function subscribeThrough(t: TestServices, f: Fixture, url: string): Promise<string> {
  const created = await t.services.webhooks.create(f.admin, { url, events: ['*'] });
  assert.ok(created.secret.length > 0);
  return created.id;
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined | null | false>): Promise<T> {
  const end = Date.now() + 30_000;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const count = (rows: readonly { webhook_id: string }[], id: string) =>
  rows.filter((r) => r.webhook_id === id).length;

// The repository's claims and outcomes, on the services alone: no worker claims anything but the test.
describe('webhook delivery queue: claim and settle', () => {
  let t: TestServices;
  let db: Db;
  let repo: WebhookQueueRepo;

  before(async () => {
    t = await startTestServices({ env: LOCAL });
    db = createDb(t.databaseUrl, 2).db;
    repo = new WebhookQueueRepo(db);
  });
  after(async () => {
    await db?.destroy();
    await t?.close();
  });

  it('claims several deliveries per statement, never more than the cap per endpoint', async () => {
    const f = await seedAccount(t.services);
    const a = await subscribeThrough(t, f, 'http://127.0.0.1:9/a');
    const b = await subscribeThrough(t, f, 'http://127.0.0.1:9/b');
    for (let i = 0; i < 3; i++) await f.inbound(0, phone());
    const owed = await db
      .selectFrom('webhook_deliveries')
      .select(['webhook_id'])
      .where('account_id', '=', f.accountId)
      .execute();
    assert.ok(count(owed, a) >= 3 && count(owed, b) >= 3, JSON.stringify(owed));

    const first = await repo.claimDue(100, 2, 60_000, new Date());
    assert.equal(count(first, a), 2);
    assert.equal(count(first, b), 2);
    for (const d of first) {
      assert.equal(d.attempts, 1);
      assert.equal(d.secret.length > 0, true);
      assert.equal(d.event.account_id, f.accountId);
    }
    // Both endpoints hold their cap: nothing more until an attempt settles.
    assert.deepEqual(await repo.claimDue(100, 2, 60_000, new Date()), []);

    const done = first.find((d) => d.webhook_id === a)!;
    const at = new Date();
    // An outcome of an attempt that is no longer current (claimed again since) changes nothing.
    await repo.settleDelivered([
      { id: done.id, generation: done.generation, attempt: 99, webhookId: a, at, responseStatus: 204 },
    ]);
    assert.deepEqual(await repo.claimDue(100, 2, 60_000, new Date()), []);

    await repo.settleDelivered([
      {
        id: done.id,
        generation: done.generation,
        attempt: done.attempts,
        webhookId: a,
        at,
        responseStatus: 204,
      },
    ]);
    const settled = await db
      .selectFrom('webhook_deliveries')
      .select(['status', 'last_response_status', 'claimed_until', 'delivered_at', 'next_attempt_at'])
      .where('id', '=', done.id)
      .executeTakeFirstOrThrow();
    assert.deepEqual(settled, {
      status: 'delivered',
      last_response_status: 204,
      claimed_until: null,
      delivered_at: at,
      next_attempt_at: null,
    });
    const hook = await new WebhooksRepo(db).find(f.accountId, a);
    assert.deepEqual(hook?.last_success_at, at);

    // One slot of `a` free again: exactly one more of `a`, none of `b`.
    const next = await repo.claimDue(100, 2, 60_000, new Date());
    assert.equal(count(next, a), 1);
    assert.equal(count(next, b), 0);
    assert.equal(
      next.some((d) => first.some((x) => x.id === d.id)),
      false,
    );
  });

  it('settles several 2xx answers in one statement', async () => {
    const f = await seedAccount(t.services);
    const a = await subscribeThrough(t, f, 'http://127.0.0.1:9/a');
    const b = await subscribeThrough(t, f, 'http://127.0.0.1:9/b');
    await f.inbound(0, phone());
    const claimed = (await repo.claimDue(100, 16, 60_000, new Date())).filter(
      (d) => d.account_id === f.accountId,
    );
    assert.ok(claimed.length >= 2);
    const at = new Date();
    await repo.settleDelivered(
      claimed.map((d) => ({
        id: d.id,
        generation: d.generation,
        attempt: d.attempts,
        webhookId: d.webhook_id,
        at,
        responseStatus: 200,
      })),
    );
    const rows = await db
      .selectFrom('webhook_deliveries')
      .select(['status', 'claimed_until'])
      .where('account_id', '=', f.accountId)
      .execute();
    assert.deepEqual(
      rows,
      rows.map(() => ({ status: 'delivered', claimed_until: null })),
    );
    for (const id of [a, b])
      assert.deepEqual((await new WebhooksRepo(db).find(f.accountId, id))?.last_success_at, at);
  });
});

describe('webhook delivery queue: a claim whose node died', () => {
  it('is delivered by another node once its lease ends', async () => {
    const database = await createTestDatabase();
    const api = await startTestApp({ databaseUrl: database.url, env: API_ONLY });
    const { db } = createDb(database.url, 2);
    let worker: TestApp | null = null;
    let r: WebhookReceiver | null = null;
    try {
      r = await startReceiver();
      const f = await seedAccount(api.server.services);
      const id = await subscribe(api, f, r.url);
      await f.inbound(0, phone());
      // A node claims every delivery (a short lease) and dies before attempting any.
      const abandoned = await new WebhookQueueRepo(db).claimDue(100, 16, 500, new Date());
      assert.ok(abandoned.length >= 1);

      worker = await startTestApp({ databaseUrl: database.url, env: LOCAL });
      const receiver = r;
      await waitFor('the deliveries', async () => receiver.requests.length >= abandoned.length);
      const log = await waitFor('the delivery log', async () => {
        const res = await api.request('GET', `/api/webhooks/${id}/deliveries`, {
          headers: bearer(f.adminToken),
        });
        const items = res.json.items as { id: string; status: string; attempts: number }[];
        return items.every((d) => d.status === 'delivered') && items;
      });
      assert.deepEqual(log.map((d) => d.id).sort(), abandoned.map((d) => d.id).sort());
      // The abandoned claim counted as an attempt; the second one delivered.
      for (const d of log) assert.equal(d.attempts, 2);
      assert.deepEqual(
        r.requests.map((x) => x.headers['atende-delivery']).sort(),
        abandoned.map((d) => d.id).sort(),
      );
    } finally {
      await worker?.close();
      await api.close();
      await r?.close();
      await db.destroy();
      await database.drop();
    }
  });
});

describe('webhook delivery queue: upgrade from pg-boss jobs', () => {
  it('keeps every pending delivery (scheduled, interrupted) and leaves no job in pg-boss', async () => {
    const database = await createTestDatabase();
    const { db } = createDb(database.url, 2);
    let app: TestApp | null = null;
    let r: WebhookReceiver | null = null;
    try {
      r = await startReceiver();
      // Deliveries made by the current schema (worker off), then the schema taken back to before 017.
      const seed = await startTestApp({ databaseUrl: database.url, env: API_ONLY });
      const f = await seedAccount(seed.server.services);
      const id = await subscribe(seed, f, r.url);
      await f.inbound(0, phone());
      await seed.close();
      await migrateTo(db, '015_customer_window');

      // As the pg-boss version left them: one attempt interrupted mid-flight (next_attempt_at
      // cleared by its claim), one retry scheduled in the past, the rest due; each with its job.
      const rows = await db
        .selectFrom('webhook_deliveries')
        .select(['id', 'generation'])
        .where('webhook_id', '=', id)
        .orderBy('id')
        .execute();
      assert.ok(rows.length >= 2);
      const [interrupted, retry] = rows;
      await db
        .updateTable('webhook_deliveries')
        .set({ attempts: 1, next_attempt_at: null, window_started_at: new Date() })
        .where('id', '=', interrupted!.id)
        .execute();
      await db
        .updateTable('webhook_deliveries')
        .set({
          attempts: 1,
          next_attempt_at: new Date(Date.now() - 1000),
          last_error: 'HTTP 503',
          window_started_at: new Date(),
        })
        .where('id', '=', retry!.id)
        .execute();
      await installPgBoss12(database.url);
      for (const row of rows) {
        await sql`INSERT INTO pgboss.job (name, data, state, start_after)
          VALUES ('webhook-delivery', ${JSON.stringify({ deliveryId: row.id, generation: row.generation })}::jsonb,
                  'created', now())`.execute(db);
      }

      await migrateToLatest(db);
      const pending = await db
        .selectFrom('webhook_deliveries')
        .select(['id', 'next_attempt_at', 'claimed_until'])
        .where('webhook_id', '=', id)
        .where('status', '=', 'pending')
        .execute();
      assert.equal(pending.length, rows.length);
      for (const p of pending) {
        assert.ok(p.next_attempt_at !== null && p.next_attempt_at.getTime() <= Date.now(), p.id);
        assert.equal(p.claimed_until, null);
      }
      // Their jobs went with the old job schema, and none was carried over to the new one.
      const { rows: left } = await sql<{ gone: boolean; n: number }>`
        SELECT to_regnamespace('pgboss') IS NULL AS gone,
               (SELECT count(*)::int FROM atende_jobs.job WHERE name = 'webhook-delivery') AS n`.execute(db);
      assert.deepEqual(left[0], { gone: true, n: 0 });

      // The upgraded node delivers them all.
      app = await startTestApp({ databaseUrl: database.url, env: LOCAL });
      const receiver = r;
      await waitFor('the deliveries', async () => receiver.requests.length >= rows.length);
      const done = await waitFor('the delivery log', async () => {
        const res = await app!.request('GET', `/api/webhooks/${id}/deliveries`, {
          headers: bearer(f.adminToken),
        });
        const items = res.json.items as { id: string; status: string }[];
        return items.every((d) => d.status === 'delivered') && items;
      });
      assert.equal(done.length, rows.length);
      assert.deepEqual(
        [...new Set(r.requests.map((x) => x.headers['atende-delivery']))].sort(),
        rows.map((x) => x.id).sort(),
      );
    } finally {
      await app?.close();
      await r?.close();
      await db.destroy();
      await database.drop();
    }
  });
});
