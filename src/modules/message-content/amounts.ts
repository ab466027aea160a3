/**
 * Money amounts of the Channel API (docs/channel-api.md, "Amounts"): an integer is already in the smallest unit;
 * a string is a decimal in major units written the way ERPs export it. Everything is computed with
 * BigInt so that no binary floating point ever touches a price.
 */

export type AmountResult =
  | { ok: true; value: number }
  /** `field` is the exact property at fault (`<amount>.value` or `<amount>.offset`). */
  | { ok: false; field: string; message: string };

const MAX = BigInt(Number.MAX_SAFE_INTEGER);

/** Number of decimal places an offset stands for (100 → 2), or null when it is not a power of ten. */
export function offsetDigits(offset: unknown): number | null {
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 1) return null;
  const s = String(offset);
  return /^10*$/.test(s) ? s.length - 1 : null;
}

/**
 * `value` at `offset` → integer in the smallest unit. `field` is the amount's path (for example
 * `template.buttons[0].orderDetails.totalAmount`); failures name `<field>.value` or `<field>.offset`.
 */
export function parseAmount(value: number | string, offset: number, field: string): AmountResult {
  const digits = offsetDigits(offset);
  if (digits === null) {
    const f = `${field}.offset`;
    return { ok: false, field: f, message: `${f} must be a power of ten (1, 10, 100, 1000, …)` };
  }
  const f = `${field}.value`;
  const fail = (message: string): AmountResult => ({ ok: false, field: f, message: `${f} ${message}` });

  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) {
      return fail('must be a non-negative integer in the smallest currency unit, or a decimal string');
    }
    return { ok: true, value: value === 0 ? 0 : value }; // no -0
  }
  if (typeof value !== 'string') {
    return fail('must be a non-negative integer in the smallest currency unit, or a decimal string');
  }

  const split = splitDecimal(value);
  if (!split) return fail('must be a decimal amount such as 1234.56, 1.234,56 or 25');
  const [integer, fraction] = split;
  if (fraction.length > digits) {
    return fail(`has more decimal places than offset ${offset} allows (at most ${digits})`);
  }
  // Bounds the BigInt work on absurd inputs: anything this long is beyond the safe range anyway.
  if (integer.replace(/^0+/, '').length > 16) {
    return fail(`is too large (at most ${Number.MAX_SAFE_INTEGER} in the smallest unit)`);
  }
  const scaled = BigInt(integer) * BigInt(offset) + BigInt(fraction.padEnd(digits, '0') || '0');
  if (scaled > MAX) return fail(`is too large (at most ${Number.MAX_SAFE_INTEGER} in the smallest unit)`);
  return { ok: true, value: Number(scaled) };
}

/**
 * Integer digits and fraction digits of an ERP decimal, or null when it is not one. With both `.`
 * and `,` the last one is the decimal mark; with one kind it is the decimal mark unless it repeats
 * (then it groups thousands). Grouped integers must be grouped by three.
 */
function splitDecimal(s: string): [string, string] | null {
  if (!/^\d[\d.,]*$/.test(s) || !/\d$/.test(s)) return null;
  const dots = count(s, '.');
  const commas = count(s, ',');
  let group: string | null = null;
  let mark: string | null = null;
  if (dots > 0 && commas > 0) {
    mark = s.lastIndexOf('.') > s.lastIndexOf(',') ? '.' : ',';
    group = mark === '.' ? ',' : '.';
    if (count(s, mark) !== 1) return null;
  } else if (dots + commas > 0) {
    const only = dots > 0 ? '.' : ',';
    if (dots + commas === 1) mark = only;
    else group = only;
  }
  let integer = s;
  let fraction = '';
  if (mark !== null) {
    const at = s.lastIndexOf(mark);
    integer = s.slice(0, at);
    fraction = s.slice(at + 1);
    if (!/^\d+$/.test(fraction)) return null;
  }
  if (group !== null) {
    const parts = integer.split(group);
    if (!/^\d{1,3}$/.test(parts[0] ?? '') || parts.slice(1).some((p) => !/^\d{3}$/.test(p))) return null;
    integer = parts.join('');
  }
  return /^\d+$/.test(integer) ? [integer, fraction] : null;
}

function count(s: string, ch: string): number {
  let n = 0;
  for (const c of s) if (c === ch) n++;
  return n;
}
