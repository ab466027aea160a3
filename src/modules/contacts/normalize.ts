import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { ContactType } from '../../db/types.js';

export type Normalized = { ok: true; value: string } | { ok: false; message: string };

/**
 * Canonical contact values: phones as E.164 digits without `+` (default region BR; a Brazilian mobile
 * written without its ninth digit gains it), emails trimmed and lower-cased.
 */
export function normalizeContact(type: ContactType, raw: string): Normalized {
  const value = raw.trim();
  if (type === 'phone') {
    // Parsing a number with its metadata is most of a send request's own CPU, and integrations send to
    // the same contacts again and again: recent answers are kept, a bounded number of them.
    let known = recentPhones.get(value);
    if (known === undefined) {
      known = normalizePhone(value);
      if (recentPhones.size >= RECENT_PHONES) recentPhones.delete(recentPhones.keys().next().value ?? '');
      recentPhones.set(value, known);
    }
    return known;
  }
  const email = value.toLowerCase();
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)
    ? { ok: true, value: email }
    : { ok: false, message: 'contact.value must be an email' };
}

const RECENT_PHONES = 10_000;
const recentPhones = new Map<string, Normalized>();

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
