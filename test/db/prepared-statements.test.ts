import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { createDb, type Db } from '../../src/db/index.js';
import { ApiKeysRepo } from '../../src/modules/api-keys/api-keys.repo.js';
import { ChatListsRepo } from '../../src/modules/chats/chat-lists.repo.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { startTestServices, type TestServices } from '../helpers/services.js';

// The hot statements (API-key lookup, chat list page) run as named prepared statements, and
// PostgreSQL settles on a generic plan for them: what saves parsing and planning on every request.

interface PreparedRow {
  statement: string;
  generic_plans: number;
  custom_plans: number;
}

describe('prepared hot statements', () => {
  let t: TestServices;
  let f: Fixture;
  // One connection, so pg_prepared_statements (per session) shows what the repositories prepared.
  let db: Db;
  let chats: ChatListsRepo;

  const prepared = async () =>
    (
      await sql<PreparedRow>`SELECT statement, generic_plans::int, custom_plans::int FROM pg_prepared_statements`.execute(
        db,
      )
    ).rows;

  before(async () => {
    t = await startTestServices();
    f = await seedAccount(t.services);
    for (let i = 0; i < 3; i++) await f.inbound(0, `55119870000${i}0`, `oi ${i}`);
    db = createDb(t.databaseUrl, 1).db;
    chats = new ChatListsRepo(db);
  });
  after(async () => {
    await db.destroy();
    await t.close();
  });

  it('runs a first page as a prepared statement with a generic plan, and answers as before', async () => {
    const filter = { accountId: f.accountId, status: 'open' as const, channelId: f.channels[0]!.id };
    const first = await chats.listPage(filter, 1, 20);
    assert.equal(first.total, 3);
    assert.equal(first.rows.length, 3);
    // PostgreSQL plans the first five executions with the values, then compares with a generic plan.
    for (let i = 0; i < 7; i++) assert.deepEqual(await chats.listPage(filter, 1, 20), first);

    // Sizes up to the same power of two share the text (the size is a parameter under that bound).
    const seventeen = await chats.listPage(filter, 1, 17);
    assert.deepEqual(seventeen, first);
    const page = (await prepared()).filter((p) => p.statement.includes('FROM chat_totals WHERE'));
    assert.equal(page.length, 1, 'one prepared statement for the shape and sizes 17–32');
    assert.match(page[0]!.statement, /LIMIT 32 OFFSET 0\) AS p/);
    assert.ok(page[0]!.generic_plans > 0, `generic plan in use: ${JSON.stringify(page[0])}`);
    // The size itself still cuts the page.
    const two = await chats.listPage(filter, 1, 2);
    assert.deepEqual(two.rows, first.rows.slice(0, 2));
    assert.equal(two.total, 3);
  });

  it('leaves deeper pages unnamed, so offsets cannot fill every connection with statements', async () => {
    const filter = { accountId: f.accountId, status: 'open' as const };
    const before = (await prepared()).length;
    const second = await chats.listPage(filter, 2, 2);
    assert.equal(second.rows.length, 1);
    assert.equal(second.total, 3);
    assert.equal((await prepared()).length, before);
  });

  it('prepares the API-key lookup', async () => {
    const id = f.apiKey.split('_')[1]!;
    const row = await new ApiKeysRepo(db).findActiveWithHash(id);
    assert.equal(row?.account_id, f.accountId);
    const lookups = (await prepared()).filter((p) => p.statement.includes('FROM account_api_keys'));
    assert.equal(lookups.length, 1);
  });

  it('plans every connection’s statements without parallel workers, from its first statement', async () => {
    const pool = createDb(t.databaseUrl, 3).db;
    try {
      // Three transactions held at once take three connections, each asked first thing.
      let entered = 0;
      let release!: () => void;
      const all = new Promise<void>((resolve) => (release = resolve));
      const settings = await Promise.all(
        [0, 1, 2].map(() =>
          pool.transaction().execute(async (tx) => {
            const { rows } = await sql<{
              max_parallel_workers_per_gather: string;
            }>`SHOW max_parallel_workers_per_gather`.execute(tx);
            if (++entered === 3) release();
            await all;
            const pid = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx);
            return { workers: rows[0]!.max_parallel_workers_per_gather, pid: pid.rows[0]!.pid };
          }),
        ),
      );
      assert.deepEqual(
        settings.map((s) => s.workers),
        ['0', '0', '0'],
      );
      assert.equal(new Set(settings.map((s) => s.pid)).size, 3);
    } finally {
      await pool.destroy();
    }
  });
});
