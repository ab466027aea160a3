import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { pino } from 'pino';
import { ClaimLoop, listenFor, type ClaimLoopOptions } from '../../src/jobs/claim-loop.js';
import { startOwnPostgres, type OwnPostgres } from '../helpers/own-postgres.js';

// The claim loop every worker queue runs on (src/jobs/claim-loop.ts), over a queue table of the
// test's own on a PostgreSQL of its own (which the outage tests stop and start again): wake-ups,
// the poll, claims through a database outage, the in-flight bound, lease renewal and the bounded
// stop. What each capability does with its items is tested with the capability.

type Line = Record<string, unknown>;

const CHANNEL = 'claim_loop_test';
const HOUR = 3_600_000;
const BOUND_MS = 30_000;

/** A queue table: an item is due until done, and claimed for a lease. */
const SCHEMA = `CREATE TABLE items (
  id serial PRIMARY KEY,
  claimed_until timestamptz,
  renewed int NOT NULL DEFAULT 0,
  done boolean NOT NULL DEFAULT false
)`;

/**
 * One loop over the `items` table and what the test sees of it: the room of each claim, the items
 * started and running, the renewals, the log. Items run until the test releases them; a claim can be
 * held before its statement (`holdNextClaim`).
 */
class Harness {
  readonly claims: number[] = [];
  /** Claims over, whether they worked or failed. */
  claimsEnded = 0;
  readonly started: number[] = [];
  readonly running = new Set<number>();
  maxRunning = 0;
  renewals = 0;
  readonly logs: Line[] = [];
  readonly loop: ClaimLoop<number>;
  stoppedHookRan = false;
  private readonly changes = new EventEmitter();
  private readonly releases = new Map<number, () => void>();
  private releaseAll = false;
  private claimHold: { entered: () => void; released: Promise<void> } | null = null;

  constructor(
    private readonly pool: pg.Pool,
    overrides: Partial<ClaimLoopOptions<number>> & { databaseUrl?: string },
  ) {
    const sink = new Writable({
      write: (chunk: Buffer, _enc, done) => {
        for (const line of chunk.toString().split('\n').filter(Boolean))
          this.logs.push(JSON.parse(line) as Line);
        this.changed();
        done();
      },
    });
    const logger = pino({ level: 'info' }, sink);
    const { databaseUrl, ...rest } = overrides;
    this.loop = new ClaimLoop<number>({
      name: 'test queue',
      concurrency: 10,
      pollMs: HOUR,
      wakeUps: databaseUrl
        ? [
            listenFor({
              databaseUrl,
              channel: CHANNEL,
              retryDelayMs: 100,
              logger,
              name: 'test queue',
              waitsFor: 'items',
            }),
          ]
        : [],
      claim: (room) => this.claim(room),
      run: (ids) => ids.map((id) => this.run(id)),
      stopWaitMs: BOUND_MS,
      stopped: async () => {
        this.stoppedHookRan = true;
      },
      claimFailed: 'claiming failed',
      logger,
      ...rest,
    });
  }

  private changed(): void {
    this.changes.emit('change');
  }

  /** Resolves once `fn` holds, checked at every change the loop makes (bounded). */
  async until(what: string, fn: () => boolean): Promise<void> {
    if (fn()) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.changes.off('change', check);
        reject(new Error(`timed out waiting for ${what}`));
      }, BOUND_MS);
      const check = () => {
        if (!fn()) return;
        clearTimeout(timer);
        this.changes.off('change', check);
        resolve();
      };
      this.changes.on('change', check);
    });
  }

  /** The next claim waits before its statement until `release`; `entered` resolves as it waits. */
  holdNextClaim(): { entered: Promise<void>; release(): void } {
    let entered!: () => void;
    let release!: () => void;
    const enteredP = new Promise<void>((r) => (entered = r));
    this.claimHold = { entered, released: new Promise<void>((r) => (release = r)) };
    return { entered: enteredP, release };
  }

  private async claim(room: number) {
    this.claims.push(room);
    this.changed();
    const hold = this.claimHold;
    if (hold) {
      this.claimHold = null;
      hold.entered();
      await hold.released;
    }
    try {
      const { rows } = await this.pool.query<{ id: number }>(
        `UPDATE items SET claimed_until = now() + interval '1 minute'
         WHERE id IN (SELECT id FROM items
                      WHERE NOT done AND (claimed_until IS NULL OR claimed_until < now())
                      ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
         RETURNING id`,
        [room],
      );
      const ids = rows.map((r) => r.id).sort((a, b) => a - b);
      return { items: ids, more: ids.length === room };
    } finally {
      this.claimsEnded++;
      this.changed();
    }
  }

  private async run(id: number): Promise<void> {
    this.started.push(id);
    this.running.add(id);
    this.maxRunning = Math.max(this.maxRunning, this.running.size);
    this.changed();
    if (!this.releaseAll) await new Promise<void>((r) => this.releases.set(id, r));
    await this.pool.query('UPDATE items SET done = true, claimed_until = NULL WHERE id = $1', [id]);
    this.running.delete(id);
    this.changed();
  }

  /** Lets item `id` finish, or every item (those to come too) without an id. */
  release(id?: number): void {
    if (id === undefined) {
      this.releaseAll = true;
      for (const r of this.releases.values()) r();
      this.releases.clear();
      return;
    }
    this.releases.get(id)?.();
    this.releases.delete(id);
  }

  /** Renews the leases of the items running (counted in `renewals`). */
  async renew(): Promise<void> {
    await this.pool.query(
      `UPDATE items SET claimed_until = now() + interval '1 minute', renewed = renewed + 1
       WHERE id = ANY($1::int[])`,
      [[...this.running]],
    );
    this.renewals++;
    this.changed();
  }

  logged(msg: string): Line[] {
    return this.logs.filter((l) => l.msg === msg);
  }
}

describe('claim loop', () => {
  let own: OwnPostgres;
  let pool: pg.Pool;
  let url: string;
  const loops: Harness[] = [];

  before(async () => {
    own = await startOwnPostgres();
    url = own.url();
    pool = new pg.Pool({ connectionString: url, max: 8, connectionTimeoutMillis: 2_000 });
    pool.on('error', () => undefined);
    await pool.query(SCHEMA);
  });
  after(async () => {
    for (const h of loops) {
      h.release();
      await h.loop.stop();
    }
    await pool?.end();
    await own?.destroy();
  });

  /** A loop over a fresh `items` table with `n` due items (notified when `notify`). */
  async function harness(
    overrides: Partial<ClaimLoopOptions<number>> & { databaseUrl?: string } = {},
  ): Promise<Harness> {
    await pool.query('TRUNCATE items RESTART IDENTITY');
    const h = new Harness(pool, overrides);
    loops.push(h);
    return h;
  }
  const insert = async (n: number, notify = false) => {
    await pool.query(
      `WITH added AS (INSERT INTO items SELECT FROM generate_series(1, $1::int) RETURNING id)
       SELECT ${notify ? `pg_notify('${CHANNEL}', '')` : '1'} FROM (SELECT 1) x`,
      [n],
    );
  };

  it('wakes on a notification: claims at once, with no poll due for an hour', async () => {
    const h = await harness({ databaseUrl: url });
    h.release();
    await h.loop.start();
    await h.until('the first claim', () => h.claims.length === 1);
    await insert(2, true);
    await h.until('both items', () => h.started.length === 2);
    assert.deepEqual(h.started, [1, 2]);
    await h.loop.stop();
    // Its LISTEN connection ends with it (the server process may take a moment to leave).
    const listening = async () =>
      (
        await pool.query(
          `SELECT 1 FROM pg_stat_activity WHERE query = 'LISTEN ${CHANNEL}' AND state = 'idle'`,
        )
      ).rowCount ?? 0;
    for (let i = 0; i < 100 && (await listening()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(await listening(), 0);
  });

  it('polls: finds work nobody notified', async () => {
    const h = await harness({ pollMs: 50 });
    h.release();
    await h.loop.start();
    await insert(3);
    await h.until('the items', () => h.started.length === 3);
    assert.deepEqual(h.started, [1, 2, 3]);
    await h.loop.stop();
  });

  it('with gatherMs, wake-ups close together are one claim (without it, a claim and one more)', async () => {
    for (const [gatherMs, claims] of [
      [100, 2],
      [undefined, 3],
    ] as const) {
      const h = await harness(gatherMs ? { gatherMs } : {});
      h.release();
      await h.loop.start();
      await h.until('the first claim', () => h.claims.length === 1);
      await insert(3);
      for (let i = 0; i < 5; i++) h.loop.wake();
      await h.until('the items', () => h.started.length === 3);
      await h.until('the claims over', () => h.claimsEnded === claims);
      assert.equal(h.claims.length, claims, `gatherMs ${String(gatherMs)}`);
      await h.loop.stop();
    }
  });

  it('runs at most `concurrency` items, claims for the free room, and waits for `minRoom`', async () => {
    const h = await harness({ concurrency: 4, minRoom: 2 });
    await insert(9);
    await h.loop.start();
    await h.until('a full room', () => h.started.length === 4);
    // A full batch: it asked again at once, found no room, and stopped asking.
    assert.deepEqual(h.claims, [4]);

    // One slot free is less than `minRoom`: no claim.
    h.release(1);
    await h.until('item 1 done', () => !h.running.has(1));
    const done1 = await pool.query('SELECT done FROM items WHERE id = 1');
    assert.equal(done1.rows[0].done, true);
    assert.deepEqual(h.claims, [4]);
    // Two free: one claim for both.
    h.release(2);
    await h.until('two more', () => h.started.length === 6);
    assert.deepEqual(h.claims, [4, 2]);

    h.release();
    await h.until('every item', () => h.started.length === 9 && h.running.size === 0);
    assert.equal(h.maxRunning, 4);
    await h.loop.stop();
  });

  it("with finishWakes 'heldBack', a finish claims again only when the last claim left work behind", async () => {
    /** Waits until the loop counts no item in flight: each one's finish (and its wake) has run. */
    const settledIn = async (h: Harness) => {
      while (h.loop.running > 0) await new Promise((r) => setImmediate(r));
    };
    for (const finishWakes of ['heldBack', 'always'] as const) {
      // Two items for four slots: the claim took everything due.
      const h = await harness({ concurrency: 4, finishWakes });
      await insert(2);
      await h.loop.start();
      await h.until('both items', () => h.started.length === 2);
      h.release();
      await settledIn(h);
      // Only the first claim; the default claims again after each finish (finding nothing).
      assert.equal(
        h.claims.length === 1,
        finishWakes === 'heldBack',
        `finishWakes ${finishWakes}: ${h.claims.join()}`,
      );
      await h.loop.stop();
    }

    // Three items for two slots: the claim left one behind, and a finish claims it.
    const h = await harness({ concurrency: 2, finishWakes: 'heldBack' });
    await insert(3);
    await h.loop.start();
    await h.until('a full room', () => h.started.length === 2);
    h.release(1);
    await h.until('the item left behind', () => h.started.length === 3);
    assert.deepEqual(h.started, [1, 2, 3]);
    h.release();
    await settledIn(h);
    await h.loop.stop();
  });

  it('renews the leases of the items in flight, and goes on through the stop’s wait', async () => {
    const h = await harness({ renew: { everyMs: 20, run: () => h.renew() } });
    await insert(1);
    await h.loop.start();
    await h.until('the item', () => h.running.size === 1);
    await h.until('renewals', () => h.renewals >= 2);
    const before = (await pool.query<{ renewed: number }>('SELECT renewed FROM items WHERE id = 1')).rows[0]!;
    assert.ok(before.renewed >= 2);

    const stopping = h.loop.stop();
    const renewed = h.renewals;
    await h.until('a renewal while stopping', () => h.renewals > renewed);
    h.release();
    await stopping;
    // Stopped: the renewal timer is gone (a renewal would need an item in flight anyway).
    assert.equal(h.running.size, 0);
  });

  describe('bounded stop', () => {
    it('waits for a claim still running when it begins, and runs what that claim took', async () => {
      const h = await harness();
      await insert(2);
      const hold = h.holdNextClaim();
      await h.loop.start();
      await hold.entered;

      const stopping = h.loop.stop();
      let stopped = false;
      void stopping.then(() => (stopped = true));
      // Time for the stop to be over, were it not waiting for the claim (a round trip).
      await pool.query('SELECT 1');
      assert.equal(h.stoppedHookRan, false, 'the stop waits for the claim');
      hold.release();
      await h.until('the claimed items', () => h.started.length === 2);
      assert.equal(stopped, false, 'the stop waits for the items of that claim');
      assert.equal(h.stoppedHookRan, false);
      h.release();
      await stopping;
      assert.equal(h.stoppedHookRan, true);
      const { rows } = await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM items WHERE done');
      assert.equal(rows[0]!.n, 2);

      // Nothing of the loop runs after its stop: no claim on a wake.
      h.loop.wake();
      assert.deepEqual(h.claims, [10]);
    });

    it('with giveBack, hands back unstarted what a claim still running at the stop took', async () => {
      const givenBack: number[] = [];
      const h = await harness({
        giveBack: async (ids) => {
          await pool.query('UPDATE items SET claimed_until = NULL WHERE id = ANY($1::int[])', [ids]);
          givenBack.push(...ids);
        },
      });
      await insert(2);
      const { rows: ids } = await pool.query<{ id: number }>(
        'SELECT id FROM items WHERE NOT done ORDER BY id',
      );
      const hold = h.holdNextClaim();
      await h.loop.start();
      await hold.entered;

      const stopping = h.loop.stop();
      // Time for the stop to be over, were it not waiting for the claim (a round trip).
      await pool.query('SELECT 1');
      assert.equal(h.stoppedHookRan, false, 'the stop waits for the claim');
      hold.release();
      await stopping;
      assert.equal(h.stoppedHookRan, true);
      assert.deepEqual(h.started, [], 'nothing the late claim took was started');
      assert.deepEqual(
        givenBack.sort((x, y) => x - y),
        ids.map((r) => r.id),
      );
      const { rows } = await pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM items WHERE claimed_until IS NULL AND NOT done',
      );
      assert.equal(rows[0]!.n, 2, 'free for the next worker at once');
    });

    it('gives up on a claim that outlasts its bound, and starts nothing it took', async () => {
      const h = await harness({ stopWaitMs: 50 });
      h.release();
      await insert(2);
      const hold = h.holdNextClaim();
      await h.loop.start();
      await hold.entered;
      await h.loop.stop();
      assert.equal(h.stoppedHookRan, true);

      hold.release();
      await h.until('the late claim', () =>
        h.logs.some((l) => String(l.msg).startsWith('test queue: a claim answered after the stop')),
      );
      assert.deepEqual(h.started, []);
      // Claimed all the same: the items come back when their lease ends.
      const { rows } = await pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM items WHERE claimed_until > now() AND NOT done',
      );
      assert.equal(rows[0]!.n, 2);
    });

    it('gives up on an item that outlasts its bound, then runs `stopped`', async () => {
      const h = await harness({ stopWaitMs: 100 });
      await insert(1);
      await h.loop.start();
      await h.until('the item', () => h.running.size === 1);
      await h.loop.stop();
      assert.equal(h.stoppedHookRan, true);
      assert.deepEqual([...h.running], [1], 'still running when the stop gave up');
      h.release();
      await h.until('the item done', () => h.running.size === 0);
    });
  });

  describe('through a database outage', () => {
    it('logs the failed claims, keeps a wake-up that comes during one, and claims again once it is back', async () => {
      const h = await harness({ claimWorksAgain: 'claiming works again' });
      h.release();
      await h.loop.start();
      await h.until('the first claim', () => h.claims.length === 1);

      await own.stop();
      try {
        h.loop.wake();
        await h.until('a failed claim', () => h.logged('test queue: claiming failed').length === 1);
        // A wake-up while a claim fails is not lost: one more claim right after, not at the next poll
        // (an hour away).
        const hold = h.holdNextClaim();
        h.loop.wake();
        await hold.entered;
        const claimsSoFar = h.claims.length;
        h.loop.wake();
        hold.release();
        await h.until('the claim the wake-up asked for', () => h.claims.length === claimsSoFar + 1);
        await h.until('its failure', () => h.claimsEnded === h.claims.length);
        // Logged once for the whole outage.
        assert.equal(h.logged('test queue: claiming failed').length, 1);
      } finally {
        await own.start();
      }

      await insert(2);
      h.loop.wake();
      await h.until('the items after the outage', () => h.started.length === 2);
      assert.equal(h.logged('test queue: claiming works again').length, 1);
      await h.loop.stop();
    });

    it('without `claimWorksAgain`, logs every failed claim', async () => {
      const h = await harness();
      await h.loop.start();
      await h.until('the first claim', () => h.claims.length === 1);
      await own.stop();
      try {
        h.loop.wake();
        await h.until('a failed claim', () => h.logged('test queue: claiming failed').length === 1);
        h.loop.wake();
        await h.until('another', () => h.logged('test queue: claiming failed').length === 2);
      } finally {
        await own.start();
      }
      await h.loop.stop();
    });

    it('logs a failed lease renewal once, and when renewal works again', async () => {
      const h = await harness({ renew: { everyMs: 20, run: () => h.renew() } });
      await insert(1);
      await h.loop.start();
      await h.until('the item', () => h.running.size === 1);
      await own.stop();
      try {
        await h.until('a failed renewal', () => h.logged('test queue: lease renewal failed').length === 1);
      } finally {
        await own.start();
      }
      await h.until('renewal again', () => h.logged('test queue: lease renewal works again').length === 1);
      assert.equal(h.logged('test queue: lease renewal failed').length, 1);
      h.release();
      await h.loop.stop();
    });
  });
});
