import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { ContactType } from '../../db/types.js';

export type Normalized = { ok: true; value: string } | { ok: false; message: string };

/**
 * Canonical contact values: phones as E.164 digits without `+` (default region BR; a Brazilian mobile
 * written without its ninth digit gains it), emails trimmed and lower-cased.
 */
export function normalizeContact(type: ContactType, raw: string): Normalized {
  const value = raw.trim();
  if (type === 'phone') return recentPhones.get(value);
  const email = value.toLowerCase();
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)
    ? { ok: true, value: email }
    : { ok: false, message: 'contact.value must be an email' };
}

/**
 * Phone answers kept for inputs seen recently. Parsing a number with its metadata is most of a send
 * request's own CPU, and integrations send to the same contacts again and again. Two generations of
 * at most `size` entries each: a full young generation becomes the old one and the old one is dropped
 * whole (constant time, no per-entry eviction); an input found in the old generation moves back to
 * the young one, so numbers in steady use stay.
 */
class RecentPhones {
  private young = new Map<string, Normalized>();
  private old = new Map<string, Normalized>();

  constructor(private readonly size: number) {}

  get(value: string): Normalized {
    const known = this.young.get(value);
    if (known !== undefined) return known;
    const answer = this.old.get(value) ?? normalizePhone(value);
    if (this.young.size >= this.size) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(value, answer);
    return answer;
  }
}

const recentPhones = new RecentPhones(5_000);

function normalizePhone(value: string): Normalized {
  const digits = value.replace(/[\s().-]/g, '');
  if (!/^\+?\d{8,15}$/.test(digits))
    return { ok: false, message: 'contact.value must be a valid phone number' };
  const withPlus = digits.startsWith('+') ? digits : digits.length > 11 ? `+${digits}` : digits;
  let phone = parsePhoneNumberFromString(withPlus, 'BR');
  if (phone && phone.countryCallingCode === '55' && !phone.isValid()) {
    const fixed = addBrazilianNinthDigit(phone.number.slice(1));
    if (fixed) phone = parsePhoneNumberFromString(`+${fixed}`, 'BR');
  }
  if (!phone || !phone.isValid()) return { ok: false, message: 'contact.value must be a valid phone number' };
  return { ok: true, value: phone.number.slice(1) };
}

/** `55 DD XXXXXXXX` with a mobile-looking subscriber number (6–9) → `55 DD 9XXXXXXXX`; else null. */
export function addBrazilianNinthDigit(e164Digits: string): string | null {
  const m = /^55(\d{2})([6-9]\d{7})$/.exec(e164Digits);
  return m ? `55${m[1]}9${m[2]}` : null;
}
