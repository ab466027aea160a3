import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizeContact } from '../src/modules/contacts/normalize.js';

describe('normalizeContact', () => {
  it('answers the same for a number seen before, also after many others pushed it out', () => {
    const cases: Array<[string, ReturnType<typeof normalizeContact>]> = [
      ['+55 (11) 98765-4321', { ok: true, value: '5511987654321' }],
      ['11 8765-4321', { ok: true, value: '5511987654321' }],
      ['551187654321', { ok: true, value: '5511987654321' }],
      ['12345', { ok: false, message: 'contact.value must be a valid phone number' }],
    ];
    for (const [raw, expected] of cases) assert.deepEqual(normalizeContact('phone', raw), expected, raw);
    for (let i = 0; i < 12_000; i++) {
      const n = String(10_000_000 + i);
      assert.deepEqual(normalizeContact('phone', `5521 9${n}`), { ok: true, value: `55219${n}` });
    }
    for (const [raw, expected] of cases) assert.deepEqual(normalizeContact('phone', raw), expected, raw);
    for (const [raw, expected] of cases) assert.deepEqual(normalizeContact('phone', raw), expected, raw);
  });

  it('keeps emails apart from phones', () => {
    assert.deepEqual(normalizeContact('phone', 'ana@example.com'), {
      ok: false,
      message: 'contact.value must be a valid phone number',
    });
    assert.deepEqual(normalizeContact('email', 'ana@example.com'), { ok: true, value: 'ana@example.com' });
    assert.deepEqual(normalizeContact('email', ' Ana@Example.COM '), { ok: true, value: 'ana@example.com' });
    assert.deepEqual(normalizeContact('email', '11987654321'), {
      ok: false,
      message: 'contact.value must be an email',
    });
  });
});
