import { randomBytes } from 'node:crypto';

let lastMs = 0;
let counter = 0n; // 74 bits after the version and variant: rand_a (12) + rand_b (62)
const COUNTER_BITS = 74n;
const COUNTER_MAX = (1n << COUNTER_BITS) - 1n;

/**
 * UUIDv7 (RFC 9562) that increase strictly within this process: the millisecond clock, then a
 * counter that starts at a random point each millisecond and is incremented for every id of the same
 * millisecond (method 2 of RFC 9562 §6.2). PostgreSQL compares uuids bytewise, so later ids sort after
 * earlier ones even when they share a timestamp.
 */
export function uuidv7(): string {
  let ms = Date.now();
  if (ms > lastMs) {
    lastMs = ms;
    // Start in the lower half so that increments within one millisecond cannot overflow in practice.
    counter = BigInt(`0x${randomBytes(10).toString('hex')}`) & (COUNTER_MAX >> 1n);
  } else {
    ms = lastMs; // the clock went back or stood still: keep counting from the last id
    counter++;
    if (counter > COUNTER_MAX) {
      lastMs = ++ms;
      counter = 0n;
    }
  }
  const randA = (counter >> 62n) & 0xfffn;
  const randB = counter & ((1n << 62n) - 1n);
  const hex =
    ms.toString(16).padStart(12, '0') +
    (0x7000n | randA).toString(16).padStart(4, '0') +
    ((2n << 62n) | randB).toString(16).padStart(16, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
