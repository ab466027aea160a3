import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { Tally, type TallyRow } from '../../src/modules/reports/tally.js';

// A report adds rollup rows' histograms from their jsonb text as PostgreSQL prints it (tally.ts). The
// text comes from the real server here, with the number forms it prints (integers, long decimals)
// and a bin past the tally's first allocation.

describe('report tally', () => {
  let db: pg.Pool;
  before(() => {
    db = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
  });
  after(() => db.end());

  const asPrinted = async (hist: Record<string, [number, number]>) =>
    (await db.query<{ t: string }>('SELECT $1::jsonb::text AS t', [JSON.stringify(hist)])).rows[0]!.t;

  const row = (hist: string[], n: number[], sum: number[]): TallyRow => ({
    hour: 0,
    group: '',
    counters: [1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    csat: [0, 0, 0, 1, 1],
    n,
    sum,
    hist,
  });

  it('adds histograms from their jsonb text and answers nearest-rank percentiles per bin', async () => {
    // fr: 3 values in bin 0 (sum 1.5), 1 in bin 37.
    const fr = await asPrinted({ '0': [3, 1.5], '37': [1, 7.5e-1] });
    // resolution: bin 400 (beyond the first 320 bins) and a long decimal.
    const resolution = await asPrinted({ '12': [1, 2.123456789012345], '400': [2, 66666.66] });
    assert.match(fr, /^\{"0": \[3, 1\.5\], "37": \[1, 0\.75\]\}$/);
    const t = new Tally();
    t.addRow(row([fr, '{}', '{}', resolution], [4, 0, 0, 3], [2.25, 0, 0, 66668.783456789]));
    const second = new Tally();
    second.addRow(
      row([await asPrinted({ '37': [2, 1.25] }), '{}', '{}', '{}'], [2, 0, 0, 0], [1.25, 0, 0, 0]),
    );
    t.addTally(second);
    const m = t.metrics();
    assert.equal(m.opened, 2);
    assert.equal(m.closed, 4);
    assert.deepEqual(m.csat, { count: 4, average: 4.5, distribution: [0, 0, 0, 2, 2] });
    // 6 values: ranks 3 (p50), 6 (p90, p95); bin 0 holds ranks 1–3 (mean 0.5), bin 37 ranks 4–6 (2/3).
    assert.deepEqual(m.firstResponse, {
      count: 6,
      averageSeconds: 0.583,
      p50Seconds: 0.5,
      p90Seconds: 0.667,
      p95Seconds: 0.667,
    });
    assert.deepEqual(m.resolution, {
      count: 3,
      averageSeconds: 22222.928,
      p50Seconds: 33333.33,
      p90Seconds: 33333.33,
      p95Seconds: 33333.33,
    });
    assert.equal(m.wait.count, 0);
    assert.equal(m.wait.p50Seconds, null);

    t.clear();
    assert.equal(t.filled, false);
    assert.deepEqual(t.metrics(), new Tally().metrics());
  });
});
