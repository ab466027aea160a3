import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import type { ApiKeyActor } from '../../src/access/actors.js';

// Many workers of one integration poll the same list with the same key. Those requests share one
// statement instead of each taking a pool connection and running the same page again — yet every
// answer is read after its request arrived (test/lib/shared-reads.test.ts has the rule itself).
// Observed from the database: with the page's statement held back by a lock, identical requests occupy
// one pool connection, so another query still gets the second one; unshared, they would take both.

let phoneSeq = 0;
const phone = () => `5511955${String(++phoneSeq).padStart(6, '0')}`;

describe('Channel API lists asked for at once', () => {
  let t: TestApp;
  let f: Fixture;
  let locker: pg.Client;
  let watcher: pg.Client;

  before(async () => {
    t = await startTestApp({ env: { ATENDE_DB_POOL_SIZE: '2' } });
    f = await seedAccount(t.server.services);
    await f.inbound(0, phone());
    locker = new pg.Client({ connectionString: t.databaseUrl });
    watcher = new pg.Client({ connectionString: t.databaseUrl });
    await locker.connect();
    await watcher.connect();
  });
  after(async () => {
    await locker?.query('ROLLBACK').catch(() => undefined);
    await locker?.end();
    await watcher?.end();
    await t?.close();
  });

  /** Backends of the server's pool waiting for a lock (the statements the lock holds back). */
  const lockWaiters = async () =>
    Number(
      (
        await watcher.query<{ n: string }>(
          `SELECT count(*) AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1`,
          [(locker as unknown as { processID: number }).processID],
        )
      ).rows[0]!.n,
    );

  /** Resolves once `n` statements wait for the lock; `until.stopped` ends the polling. */
  async function untilWaiters(n: number, until = { stopped: false }): Promise<void> {
    while (!until.stopped && (await lockWaiters()) < n) await new Promise((r) => setTimeout(r, 10));
  }

  /**
   * Asks six times at once (in one tick, as six requests handled together would) with the key's table
   * locked (every list statement checks the key in it), shows that a query needing no lock still gets
   * a pool connection meanwhile, and returns the six answers once the lock is gone.
   */
  async function sixAtOnce<T>(ask: (actor: ApiKeyActor) => Promise<T>): Promise<T[]> {
    const actor = () => f.services.apiKeys.authenticate(`ApiKey ${f.apiKey}`);
    // Warm up: the key is read once and remembered, so only the list statements wait on the lock.
    await ask(await actor());
    const actors = await Promise.all(Array.from({ length: 6 }, actor));
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE account_api_keys IN ACCESS EXCLUSIVE MODE');
    try {
      const answers = actors.map((a) => ask(a));
      for (const a of answers) a.catch(() => undefined);
      await untilWaiters(1);
      const other = f.services.teams.list(f.admin).then(() => 'another query answered' as const);
      const watching = { stopped: false };
      const outcome = await Promise.race([
        other,
        untilWaiters(2, watching).then(() => 'a second statement waits' as const),
      ]);
      watching.stopped = true;
      assert.equal(outcome, 'another query answered', 'identical lists took more than one pool connection');
      assert.equal(await lockWaiters(), 1);
      await locker.query('ROLLBACK');
      const result = await Promise.all(answers);
      // Each request's key was checked by the shared statement: none needs a lookup of its own.
      for (const a of actors) assert.equal(a.check.confirmed, true);
      return result;
    } finally {
      await locker.query('ROLLBACK').catch(() => undefined);
    }
  }

  it('identical list chats requests share one statement, and each gets the page', async () => {
    const pages = await sixAtOnce((actor) => f.services.chats.listForApiKey(actor, {}));
    for (const text of pages) {
      const page = JSON.parse(text) as { total: number; chats: unknown[] };
      assert.equal(page.total, 1);
      assert.equal(page.chats.length, 1);
    }
  });

  it('identical list users requests share one statement, and each gets the list', async () => {
    const lists = await sixAtOnce((actor) => f.services.users.listForApiKey(actor));
    for (const text of lists) assert.equal((JSON.parse(text) as unknown[]).length, 3);
  });

  it('a key revoked while its requests wait for a shared statement answers 401 to every one', async () => {
    const key = await f.services.apiKeys.create(f.admin, {
      name: 'revogada durante a espera',
      scopes: ['chats:read'],
      channelIds: null,
    });
    const ask = () => t.request('GET', '/channel-api/chats', { headers: f.authHeader(key.token) });
    assert.equal((await ask()).status, 200);
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE account_api_keys IN ACCESS EXCLUSIVE MODE');
    const answers = Array.from({ length: 4 }, ask);
    await untilWaiters(1);
    // Revoked in the transaction that holds the statements back: they run after it commits.
    await locker.query('UPDATE account_api_keys SET revoked_at = now() WHERE id = $1', [key.id]);
    await locker.query('COMMIT');
    for (const res of await Promise.all(answers)) {
      assert.equal(res.status, 401);
      assert.equal(res.json.message, 'Credencial ausente ou inválida');
    }
  });
});
