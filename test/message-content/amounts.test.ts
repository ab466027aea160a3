import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAmount } from '../../src/modules/message-content/amounts.js';

const F = 'order.subtotal';
const ok = (value: number) => ({ ok: true, value });
const bad = (message: string, field = `${F}.value`) => ({ ok: false, field, message: `${field} ${message}` });
const MALFORMED = 'must be a decimal amount such as 1234.56, 1.234,56 or 25';
const NOT_INTEGER = 'must be a non-negative integer in the smallest currency unit, or a decimal string';
const TOO_LARGE = `is too large (at most ${Number.MAX_SAFE_INTEGER} in the smallest unit)`;

describe('parseAmount', () => {
  it('takes integers as already in the smallest unit', () => {
    assert.deepEqual(parseAmount(123456, 100, F), ok(123456));
    assert.deepEqual(parseAmount(0, 100, F), ok(0));
    assert.deepEqual(parseAmount(-0, 100, F), ok(0));
    assert.deepEqual(parseAmount(7, 1, F), ok(7));
    assert.deepEqual(parseAmount(Number.MAX_SAFE_INTEGER, 100, F), ok(Number.MAX_SAFE_INTEGER));
  });

  it('refuses numbers that are not safe non-negative integers', () => {
    for (const v of [12.5, -1, Number.MAX_SAFE_INTEGER + 1, NaN, Infinity]) {
      assert.deepEqual(parseAmount(v, 100, F), bad(NOT_INTEGER), String(v));
    }
  });

  it('reads ERP decimal strings in major units', () => {
    for (const v of ['1234.56', '1234,56', '1.234,56', '1,234.56']) {
      assert.deepEqual(parseAmount(v, 100, F), ok(123456), v);
    }
    assert.deepEqual(parseAmount('25', 100, F), ok(2500));
    assert.deepEqual(parseAmount('0', 100, F), ok(0));
    assert.deepEqual(parseAmount('0,5', 100, F), ok(50));
    assert.deepEqual(parseAmount('12.3', 100, F), ok(1230));
    assert.deepEqual(parseAmount('007', 100, F), ok(700));
  });

  it('reads a repeated separator as thousands grouping', () => {
    assert.deepEqual(parseAmount('1.234.567', 100, F), ok(123456700));
    assert.deepEqual(parseAmount('1,234,567', 100, F), ok(123456700));
    assert.deepEqual(parseAmount('1.234.567,89', 100, F), ok(123456789));
    assert.deepEqual(parseAmount('1,234,567.89', 100, F), ok(123456789));
  });

  it('scales by the offset in integers, for any power of ten', () => {
    assert.deepEqual(parseAmount('1.5', 1000, F), ok(1500));
    assert.deepEqual(parseAmount('1,234', 1000, F), ok(1234));
    assert.deepEqual(parseAmount('25', 1, F), ok(25));
    assert.deepEqual(parseAmount('0.1', 10, F), ok(1));
    // A float computation gets this one wrong (1.005 * 1000 = 1004.9999…).
    assert.deepEqual(parseAmount('1.005', 1000, F), ok(1005));
    assert.deepEqual(parseAmount('90071992547409.91', 100, F), ok(Number.MAX_SAFE_INTEGER));
  });

  it('refuses more decimals than the offset allows', () => {
    // One separator that does not repeat is the decimal mark: three decimals at offset 100.
    assert.deepEqual(
      parseAmount('1.234', 100, F),
      bad('has more decimal places than offset 100 allows (at most 2)'),
    );
    assert.deepEqual(
      parseAmount('1234,567', 100, F),
      bad('has more decimal places than offset 100 allows (at most 2)'),
    );
    assert.deepEqual(
      parseAmount('25.0', 1, F),
      bad('has more decimal places than offset 1 allows (at most 0)'),
    );
  });

  it('refuses signs, spaces, currency symbols and other shapes', () => {
    for (const v of [
      '',
      '-10',
      '+10',
      '1 234,56',
      ' 12',
      '12 ',
      'R$ 12,00',
      '12€',
      '$12',
      '1e3',
      '0x10',
      '12.',
      '.5',
      ',5',
      '1..2',
      '1.2.3,4.5',
      '1,234,56.7,8',
      '12.34.567',
      '1234.567,89',
      '1.23,45',
      '١٢',
      'abc',
    ]) {
      assert.deepEqual(parseAmount(v, 100, F), bad(MALFORMED), JSON.stringify(v));
    }
  });

  it('refuses values beyond the safe integer range', () => {
    assert.deepEqual(parseAmount('90071992547409.92', 100, F), bad(TOO_LARGE));
    assert.deepEqual(parseAmount('90.071.992.547.410', 100, F), bad(TOO_LARGE));
    assert.deepEqual(parseAmount('9'.repeat(400), 100, F), bad(TOO_LARGE));
  });

  it('refuses offsets that are not powers of ten', () => {
    const badOffset = bad('must be a power of ten (1, 10, 100, 1000, …)', `${F}.offset`);
    for (const offset of [0, -100, 2, 50, 101, 1.5, 1e21, NaN]) {
      assert.deepEqual(parseAmount('1', offset, F), badOffset, String(offset));
    }
  });
});
