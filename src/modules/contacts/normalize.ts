import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import type { ContactType } from '../../db/types.js';

export type Normalized = { ok: true; value: string } | { ok: false; message: string };

/**
 * The country a phone written without its country code is read in (`ATENDE_PHONE_DEFAULT_COUNTRY`),
 * or null: such a phone is refused. Only people's writing (the Channel API, the sandbox) is ever read
 * under it; a provider's address never is (`providerPhoneValue`).
 */
export type PhoneDefaultCountry = CountryCode | null;

const INVALID_PHONE = 'contact.value must be a valid phone number';

/**
 * Canonical contact values as people write them (Channel API `contact.value`, the sandbox's customer):
 * phones as E.164 digits without `+` (docs/channel-api.md "How phone numbers are read"), e-mails
 * trimmed and lower-cased. A phone is read as an international number, `+` or not, or — only without
 * a `+` — as a national number of `defaultCountry`: the reading valid as written wins (a Brazilian
 * mobile without its ninth digit gains it only when neither is), and one valid both ways, as two
 * different numbers, is refused rather than guessed.
 */
export function normalizeContact(
  type: ContactType,
  raw: string,
  defaultCountry: PhoneDefaultCountry,
): Normalized {
  const value = raw.trim();
  if (type === 'phone') return recentPhones(defaultCountry).get(value);
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
 * the young one, so numbers in steady use stay. An answer depends on the input and the default
 * country, so there is one cache per default country (`recentPhones`).
 */
class RecentPhones {
  private young = new Map<string, Normalized>();
  private old = new Map<string, Normalized>();

  constructor(
    private readonly size: number,
    private readonly defaultCountry: PhoneDefaultCountry,
  ) {}

  get(value: string): Normalized {
    const known = this.young.get(value);
    if (known !== undefined) return known;
    const answer = this.old.get(value) ?? readPhone(value, this.defaultCountry);
    if (this.young.size >= this.size) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(value, answer);
    return answer;
  }
}

/** One cache per default country (an installation uses one; tests try several). */
const caches = new Map<PhoneDefaultCountry, RecentPhones>();

function recentPhones(defaultCountry: PhoneDefaultCountry): RecentPhones {
  let cache = caches.get(defaultCountry);
  if (!cache) caches.set(defaultCountry, (cache = new RecentPhones(5_000, defaultCountry)));
  return cache;
}

function readPhone(value: string, defaultCountry: PhoneDefaultCountry): Normalized {
  const written = value.replace(/[\s().-]/g, '');
  if (!/^\+?\d{6,15}$/.test(written)) return { ok: false, message: INVALID_PHONE };
  const digits = written.replace(/^\+/, '');
  const international = parsePhoneNumberFromString(`+${digits}`);
  // A `+` says the country code is there: such a number is never read as a national one.
  const national =
    written.startsWith('+') || defaultCountry === null
      ? undefined
      : parsePhoneNumberFromString(digits, defaultCountry);
  // A number valid as written wins; valid as written both ways (`51 98765-4321`: a mobile of Peru, or
  // one of Porto Alegre) is refused, since a guess could reach a stranger.
  const asWritten = [international, national].flatMap((p) => (p?.isValid() ? [p.number.slice(1)] : []));
  if (asWritten.length === 2 && asWritten[0] !== asWritten[1]) {
    return {
      ok: false,
      message: `contact.value reads as +${asWritten[0]} and as +${asWritten[1]}; write it with + and its country code`,
    };
  }
  // Else a Brazilian mobile written without its ninth digit, international reading first.
  const found = asWritten[0] ?? validE164(international) ?? validE164(national);
  return found ? { ok: true, value: found } : { ok: false, message: INVALID_PHONE };
}

type Parsed = ReturnType<typeof parsePhoneNumberFromString>;

/**
 * The E.164 digits of a valid number; a Brazilian mobile written without its ninth digit gains it
 * (`brazilianNinthDigit`). Null when it is no valid number.
 */
function validE164(phone: Parsed | undefined): string | null {
  if (!phone) return null;
  const digits = phone.number.slice(1);
  if (phone.isValid()) return digits;
  return phone.countryCallingCode === '55' ? brazilianNinthDigit(digits) : null;
}

/**
 * A provider's phone address (WhatsApp's `wa_id`, a full international number in digits) as a contact
 * value: exactly the digits given, never read under a default country, with one exception — a
 * Brazilian mobile id without its ninth digit (`55 DD XXXXXXXX`) is keyed by its 13-digit form, so
 * both spellings of one customer are one contact. Null when the address is not a number at all.
 */
export function providerPhoneValue(address: string): string | null {
  const digits = address.startsWith('+') ? address.slice(1) : address;
  if (!/^\d{6,15}$/.test(digits)) return null;
  return brazilianNinthDigit(digits) ?? digits;
}

/**
 * `55 DD XXXXXXXX` whose subscriber number looks like a mobile's (6–9) and whose 13-digit form
 * `55 DD 9XXXXXXXX` is a valid Brazilian mobile (the area code exists) → that 13-digit form; else
 * null. Landlines (2–5), numbers of other countries and unknown area codes are never touched.
 */
export function brazilianNinthDigit(e164Digits: string): string | null {
  const m = /^55(\d{2})([6-9]\d{7})$/.exec(e164Digits);
  if (!m) return null;
  const twelve = parsePhoneNumberFromString(`+${e164Digits}`);
  // A valid 12-digit number is that number (none today: Brazilian numbers starting 6–9 are mobiles).
  if (twelve?.isValid()) return null;
  const withNine = `55${m[1]}9${m[2]}`;
  const mobile = parsePhoneNumberFromString(`+${withNine}`);
  return mobile?.isValid() && mobile.getType() === 'MOBILE' ? withNine : null;
}
