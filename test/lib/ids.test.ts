import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { uuidv7 } from '../../src/lib/ids.js';

describe('uuidv7', () => {
  it('makes RFC 9562 version 7 UUIDs that sort in the order they were made', () => {
    const before = Date.now();
    const ids = Array.from({ length: 20_000 }, () => uuidv7());
    const after = Date.now();
    for (const id of ids)
      assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual([...ids].sort(), ids, 'lexical order is creation order, also within a millisecond');
    assert.equal(new Set(ids).size, ids.length);
    const ms = parseInt(ids[0]?.replace(/-/g, '').slice(0, 12) ?? '', 16);
    assert.ok(ms >= before && ms <= after, 'the first 48 bits are the Unix time in milliseconds');
  });
});
