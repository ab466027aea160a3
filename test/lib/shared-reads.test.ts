import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SharedReads } from '../../src/lib/shared-reads.js';

// The rule the Channel API lists rely on: callers of the same read share a run, but never one that
// started before they asked (its answer could miss a write they saw committed).

interface Run {
  n: number;
  finish: (value: string) => void;
  fail: (err: Error) => void;
}

function loads() {
  const runs: Run[] = [];
  const load = () =>
    new Promise<string>((resolve, reject) => {
      runs.push({ n: runs.length + 1, finish: resolve, fail: reject });
    });
  return { runs, load };
}

describe('SharedReads', () => {
  it('callers who ask while a run is going share the next run, not that one', async () => {
    const reads = new SharedReads<string>();
    const { runs, load } = loads();
    const first = reads.read('k', load);
    const later = [reads.read('k', load), reads.read('k', load), reads.read('k', load)];
    assert.equal(runs.length, 1, 'one run while the first is going');

    runs[0]!.finish('before');
    assert.equal(await first, 'before');
    await new Promise(setImmediate);
    assert.equal(runs.length, 2, 'the callers who waited share one new run');
    runs[1]!.finish('after');
    assert.deepEqual(await Promise.all(later), ['after', 'after', 'after']);
  });

  it('different keys never share, and an idle key runs at once', async () => {
    const reads = new SharedReads<string>();
    const { runs, load } = loads();
    const a = reads.read('a', load);
    const b = reads.read('b', load);
    assert.equal(runs.length, 2);
    runs[0]!.finish('A');
    runs[1]!.finish('B');
    assert.deepEqual(await Promise.all([a, b]), ['A', 'B']);
    const again = reads.read('a', load);
    assert.equal(runs.length, 3, 'nothing going: a run of its own');
    runs[2]!.finish('A2');
    assert.equal(await again, 'A2');
  });

  it('a failed run fails only its own callers; the next run still goes', async () => {
    const reads = new SharedReads<string>();
    const { runs, load } = loads();
    const first = reads.read('k', load);
    const waiting = reads.read('k', load);
    runs[0]!.fail(new Error('database unreachable'));
    await assert.rejects(first, /database unreachable/);
    await new Promise(setImmediate);
    runs[1]!.finish('ok');
    assert.equal(await waiting, 'ok');
  });

  it('a load that throws at once rejects its caller and leaves the key free', async () => {
    const reads = new SharedReads<string>();
    await assert.rejects(
      reads.read('k', () => {
        throw new Error('bad');
      }),
      /bad/,
    );
    assert.equal(await reads.read('k', () => Promise.resolve('fine')), 'fine');
  });
});
