import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizeContact, providerPhoneValue } from '../../src/modules/contacts/normalize.js';

const INVALID = { ok: false, message: 'contact.value must be a valid phone number' } as const;
const ok = (value: string) => ({ ok: true, value }) as const;

describe('providerPhoneValue (a WhatsApp wa_id as a contact key)', () => {
  it('keeps every full international number exactly as given', () => {
    for (const [country, waId] of [
      ['SG', '6591234567'],
      ['HK', '85291234567'],
      ['US', '12025550143'],
      ['DE mobile', '4915123456789'],
      ['DE landline', '4930123456'],
      ['PT', '351912345678'],
      ['AR mobile', '5491123456789'],
      ['AR landline', '541123456789'],
      ['MX (the spelling Meta uses)', '5215512345678'],
      ['MX', '525512345678'],
      ['IN', '919876543210'],
      ['AO', '244923456789'],
      ['BR landline', '551133334444'],
      ['BR mobile', '5511987654321'],
      ['BR mobile of area 65', '5565991234567'],
      ['CG, unknown to the phone metadata', '2423423243'],
      ['no country at all', '99912345678'],
    ] as const) {
      assert.equal(providerPhoneValue(waId), waId, country);
    }
  });

  it('keys a 12-digit Brazilian mobile id by its 13-digit form, and nothing else', () => {
    assert.equal(providerPhoneValue('551187654321'), '5511987654321');
    assert.equal(providerPhoneValue('556591234567'), '5565991234567');
    // The same customer, both spellings: one key. The Singapore number is not one of them.
    assert.equal(providerPhoneValue('6591234567'), '6591234567');
    assert.notEqual(providerPhoneValue('6591234567'), providerPhoneValue('5565991234567'));
    // A landline's 8 digits (2–5) and an area code that does not exist are never touched.
    assert.equal(providerPhoneValue('551133334444'), '551133334444');
    assert.equal(providerPhoneValue('552087654321'), '552087654321');
    // Not Brazil: 12 digits starting 55 of nobody else, and 10 digits are never read as Brazilian.
    assert.equal(providerPhoneValue('2423423243'), '2423423243');
  });

  it('takes a leading + and refuses what is not a number', () => {
    assert.equal(providerPhoneValue('+6591234567'), '6591234567');
    for (const junk of ['', 'abc', '12345', '65 9123 4567', '1234567890123456', 'US.1234']) {
      assert.equal(providerPhoneValue(junk), null, junk);
    }
  });
});

describe('normalizeContact (Channel API contact.value)', () => {
  it('reads international numbers, with or without +, of any country', () => {
    const cases: Array<[string, string]> = [
      ['+65 9123 4567', '6591234567'],
      ['6591234567', '6591234567'],
      ['+852 9123 4567', '85291234567'],
      ['+1 (202) 555-0143', '12025550143'],
      ['12025550143', '12025550143'],
      ['+49 151 23456789', '4915123456789'],
      ['+49 30 123456', '4930123456'],
      ['+351 912 345 678', '351912345678'],
      ['+54 9 11 2345-6789', '5491123456789'],
      ['+52 55 1234 5678', '525512345678'],
      ['+91 98765 43210', '919876543210'],
      ['244 923 456 789', '244923456789'],
      ['+55 11 3333-4444', '551133334444'],
      ['+55 (11) 98765-4321', '5511987654321'],
      ['5511987654321', '5511987654321'],
      // A Brazilian mobile written without its ninth digit is the same contact.
      ['551187654321', '5511987654321'],
      ['+55 65 9123-4567', '5565991234567'],
    ];
    for (const country of ['BR', 'PT', null] as const) {
      for (const [raw, value] of cases)
        assert.deepEqual(normalizeContact('phone', raw, country), ok(value), `${raw} (${country})`);
    }
  });

  it('reads a number without country code under the default country, only when it is set', () => {
    const brazilian: Array<[string, string]> = [
      ['(11) 3333-4444', '551133334444'],
      ['11 98765-4321', '5511987654321'],
      ['11 8765-4321', '5511987654321'],
      ['0 11 98765-4321', '5511987654321'],
      // Not a number of Congo as libphonenumber knows it: read as a landline of area 24.
      ['2423423243', '552423423243'],
    ];
    for (const [raw, value] of brazilian) {
      assert.deepEqual(normalizeContact('phone', raw, 'BR'), ok(value), raw);
      assert.deepEqual(normalizeContact('phone', raw, null), INVALID, `${raw} without a default`);
    }
    assert.deepEqual(normalizeContact('phone', '912 345 678', 'PT'), ok('351912345678'));
    assert.deepEqual(normalizeContact('phone', '912 345 678', 'BR'), INVALID);
    // A + says the country code is written: never read as a national number.
    assert.deepEqual(normalizeContact('phone', '+11 98765-4321', 'BR'), INVALID);
    assert.deepEqual(normalizeContact('phone', '+912 345 678', 'PT'), INVALID);
    // A valid number of another country is that country's, whatever its length…
    assert.deepEqual(normalizeContact('phone', '6591234567', 'BR'), ok('6591234567'));
    // …unless it is a valid number of the default country as written too: refused, not guessed.
    assert.deepEqual(normalizeContact('phone', '51 98765-4321', 'BR'), {
      ok: false,
      message:
        'contact.value reads as +51987654321 and as +5551987654321; write it with + and its country code',
    });
    assert.deepEqual(normalizeContact('phone', '51 98765-4321', null), ok('51987654321'));
    assert.deepEqual(normalizeContact('phone', '+55 51 98765-4321', 'BR'), ok('5551987654321'));
  });

  it('answers the same for a number seen before, also after many others pushed it out', () => {
    const cases: Array<[string, ReturnType<typeof normalizeContact>]> = [
      ['+55 (11) 98765-4321', ok('5511987654321')],
      ['11 8765-4321', ok('5511987654321')],
      ['551187654321', ok('5511987654321')],
      ['6591234567', ok('6591234567')],
      ['12345', INVALID],
    ];
    for (const [raw, expected] of cases)
      assert.deepEqual(normalizeContact('phone', raw, 'BR'), expected, raw);
    for (let i = 0; i < 12_000; i++) {
      const n = String(10_000_000 + i);
      assert.deepEqual(normalizeContact('phone', `5521 9${n}`, 'BR'), ok(`55219${n}`));
    }
    for (const [raw, expected] of cases)
      assert.deepEqual(normalizeContact('phone', raw, 'BR'), expected, raw);
    for (const [raw, expected] of cases)
      assert.deepEqual(normalizeContact('phone', raw, 'BR'), expected, raw);
    // The default country is part of the answer: a remembered answer under BR is not the one without.
    assert.deepEqual(normalizeContact('phone', '11 8765-4321', null), INVALID);
    assert.deepEqual(normalizeContact('phone', '11 8765-4321', 'BR'), ok('5511987654321'));
  });

  it('keeps emails apart from phones', () => {
    assert.deepEqual(normalizeContact('phone', 'ana@example.com', 'BR'), INVALID);
    assert.deepEqual(normalizeContact('email', 'ana@example.com', 'BR'), ok('ana@example.com'));
    assert.deepEqual(normalizeContact('email', ' Ana@Example.COM ', null), ok('ana@example.com'));
    assert.deepEqual(normalizeContact('email', '11987654321', 'BR'), {
      ok: false,
      message: 'contact.value must be an email',
    });
  });
});
