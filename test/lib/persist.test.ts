import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { isDatabaseUnavailable, persist } from '../../src/lib/persist.js';

// How a provider's answer is retried while the database cannot take it: for long while the database is
// unreachable, a few times only when the database itself refuses the write. Errors are the real ones:
// a refused connection, and an error PostgreSQL reports (division by zero).

const fast = { baseDelayMs: 1, maxDelayMs: 2 };

async function refusedConnection(): Promise<unknown> {
  // Port 1 on the loopback: nothing listens there.
  const client = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:1/none' });
  return client.connect().then(
    () => assert.fail('connected to port 1'),
    (err: unknown) => err,
  );
}

async function databaseRefusal(): Promise<unknown> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    return await client.query('SELECT 1 / 0').then(
      () => assert.fail('divided by zero'),
      (err: unknown) => err,
    );
  } finally {
    await client.end();
  }
}

describe('persist', () => {
  it('tells an unreachable database from an error of its own', async () => {
    assert.equal(isDatabaseUnavailable(await refusedConnection()), true);
    assert.equal(isDatabaseUnavailable(await databaseRefusal()), false);
    assert.equal(isDatabaseUnavailable(Object.assign(new Error('terminated'), { code: '57P01' })), true);
    assert.equal(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')), true);
  });

  it('retries until the database takes the write', async () => {
    const unreachable = await refusedConnection();
    let calls = 0;
    const result = await persist(
      async () => {
        if (++calls < 5) throw unreachable;
        return 'stored';
      },
      { ...fast, unavailableForMs: 60_000, refusedAttempts: 2 },
    );
    assert.deepEqual([result, calls], [{ ok: true, value: 'stored' }, 5]);
  });

  it('gives up on an error of the database after a few attempts, and on an outage after its bound', async () => {
    const refused = await databaseRefusal();
    let calls = 0;
    const given = await persist(
      () => {
        calls++;
        return Promise.reject(refused);
      },
      { ...fast, unavailableForMs: 60_000, refusedAttempts: 3 },
    );
    assert.deepEqual([given.ok, calls], [false, 3]);

    const unreachable = await refusedConnection();
    const bounded = await persist(() => Promise.reject(unreachable), {
      ...fast,
      unavailableForMs: 0,
      refusedAttempts: 3,
    });
    assert.deepEqual(bounded, { ok: false, err: unreachable, attempts: 1 });
  });
});
