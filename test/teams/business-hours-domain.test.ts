import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canonicalTimeZone,
  isOpenAt,
  nextChange,
  problemsOf,
  type BusinessHours,
  type Interval,
} from '../../src/modules/teams/business-hours.js';

// The business-hours rules as pure functions: open or closed at an instant, and when that next
// changes, in the team's time zone — across daylight-saving changes and holidays.

const at = (iso: string) => new Date(iso);
const iso = (d: Date | null) => d?.toISOString() ?? null;
const week = (days: Partial<Record<number, Interval[]>>): Interval[][] =>
  Array.from({ length: 7 }, (_, d) => days[d] ?? []);
const nineToSix = [{ start: '09:00', end: '18:00' }];
const weekdays = (intervals: Interval[]) =>
  week({ 1: intervals, 2: intervals, 3: intervals, 4: intervals, 5: intervals });

describe('business hours', () => {
  it('no configuration is always open and never changes', () => {
    assert.equal(isOpenAt(null, at('2026-03-08T07:00:00Z')), true);
    assert.equal(nextChange(null, at('2026-03-08T07:00:00Z')), null);
  });

  it('weekdays 09:00–18:00 in New York: the opening after the March 2026 change is an hour earlier in UTC', () => {
    const h: BusinessHours = { timeZone: 'America/New_York', weekly: weekdays(nineToSix), holidays: [] };
    // Friday 6 March, 10:00 EST (UTC−5): open until 18:00 EST.
    assert.equal(isOpenAt(h, at('2026-03-06T15:00:00Z')), true);
    assert.equal(iso(nextChange(h, at('2026-03-06T15:00:00Z'))), '2026-03-06T23:00:00.000Z');
    // 09:00 is open, 18:00 is closed (the end minute is out).
    assert.equal(isOpenAt(h, at('2026-03-06T14:00:00Z')), true);
    assert.equal(isOpenAt(h, at('2026-03-06T13:59:59Z')), false);
    assert.equal(isOpenAt(h, at('2026-03-06T23:00:00Z')), false);
    // Friday evening: closed over the weekend (clocks go forward on Sunday 8 March) until Monday 09:00 EDT (UTC−4).
    assert.equal(isOpenAt(h, at('2026-03-07T01:00:00Z')), false);
    assert.equal(iso(nextChange(h, at('2026-03-07T01:00:00Z'))), '2026-03-09T13:00:00.000Z');
    assert.equal(isOpenAt(h, at('2026-03-09T13:00:00Z')), true);
    assert.equal(isOpenAt(h, at('2026-03-09T12:59:00Z')), false);
  });

  it('an interval that starts in the spring-forward gap opens when the clocks jump', () => {
    // Sunday 8 March 2026, New York: 02:00 EST becomes 03:00 EDT at 07:00Z; 02:30 never happens.
    const h: BusinessHours = {
      timeZone: 'America/New_York',
      weekly: week({ 0: [{ start: '02:30', end: '04:00' }] }),
      holidays: [],
    };
    assert.equal(isOpenAt(h, at('2026-03-08T06:59:00Z')), false);
    assert.equal(iso(nextChange(h, at('2026-03-08T06:00:00Z'))), '2026-03-08T07:00:00.000Z');
    assert.equal(isOpenAt(h, at('2026-03-08T07:00:00Z')), true);
    assert.equal(iso(nextChange(h, at('2026-03-08T07:00:00Z'))), '2026-03-08T08:00:00.000Z');
  });

  it('an interval in the fall-back hour happens twice', () => {
    // Sunday 1 November 2026, New York: 02:00 EDT becomes 01:00 EST at 06:00Z; 01:00–01:59 twice.
    const h: BusinessHours = {
      timeZone: 'America/New_York',
      weekly: week({ 0: [{ start: '01:00', end: '01:30' }] }),
      holidays: [],
    };
    const changes: string[] = [];
    let t: Date | null = at('2026-11-01T04:00:00Z');
    for (let i = 0; i < 4 && t; i++) {
      t = nextChange(h, t);
      if (t) changes.push(`${t.toISOString()} ${isOpenAt(h, t) ? 'open' : 'closed'}`);
    }
    assert.deepEqual(changes, [
      '2026-11-01T05:00:00.000Z open',
      '2026-11-01T05:30:00.000Z closed',
      '2026-11-01T06:00:00.000Z open',
      '2026-11-01T06:30:00.000Z closed',
    ]);
  });

  it('a holiday closes the whole local day; the next opening skips it', () => {
    // São Paulo (UTC−3, no daylight saving): Christmas 2026 is a Friday.
    const h: BusinessHours = {
      timeZone: 'America/Sao_Paulo',
      weekly: weekdays([{ start: '08:00', end: '17:00' }]),
      holidays: ['2026-12-25'],
    };
    assert.equal(isOpenAt(h, at('2026-12-24T12:00:00Z')), true);
    assert.equal(isOpenAt(h, at('2026-12-25T12:00:00Z')), false);
    assert.equal(iso(nextChange(h, at('2026-12-24T21:00:00Z'))), '2026-12-28T11:00:00.000Z');
    // With no weekly hours, open except on holidays: closes at the holiday's local midnight.
    const always: BusinessHours = { timeZone: 'America/Sao_Paulo', weekly: null, holidays: ['2026-12-25'] };
    assert.equal(isOpenAt(always, at('2026-12-24T12:00:00Z')), true);
    assert.equal(iso(nextChange(always, at('2026-12-24T12:00:00Z'))), '2026-12-25T03:00:00.000Z');
    assert.equal(iso(nextChange(always, at('2026-12-25T12:00:00Z'))), '2026-12-26T03:00:00.000Z');
    assert.equal(nextChange(always, at('2026-12-27T12:00:00Z')), null);
  });

  it('intervals that meet at midnight are one open stretch; a week closed every day never opens', () => {
    const h: BusinessHours = {
      timeZone: 'UTC',
      weekly: week({ 6: [{ start: '22:00', end: '24:00' }], 0: [{ start: '00:00', end: '02:00' }] }),
      holidays: [],
    };
    // Saturday 7 March 2026, 23:00 UTC: open until Sunday 02:00.
    assert.equal(isOpenAt(h, at('2026-03-07T23:00:00Z')), true);
    assert.equal(iso(nextChange(h, at('2026-03-07T23:00:00Z'))), '2026-03-08T02:00:00.000Z');
    const closed: BusinessHours = { timeZone: 'UTC', weekly: week({}), holidays: [] };
    assert.equal(isOpenAt(closed, at('2026-03-07T23:00:00Z')), false);
    assert.equal(nextChange(closed, at('2026-03-07T23:00:00Z')), null);
  });

  it('the same instant reads differently in different zones', () => {
    const tokyo: BusinessHours = { timeZone: 'Asia/Tokyo', weekly: weekdays(nineToSix), holidays: [] };
    // Monday 9 March 2026 01:00Z is 10:00 in Tokyo (open) and 22:00 Sunday in São Paulo.
    assert.equal(isOpenAt(tokyo, at('2026-03-09T01:00:00Z')), true);
    assert.equal(isOpenAt({ ...tokyo, timeZone: 'America/Sao_Paulo' }, at('2026-03-09T01:00:00Z')), false);
  });

  it('states what is wrong with a configuration', () => {
    assert.equal(canonicalTimeZone('america/sao_paulo'), 'America/Sao_Paulo');
    assert.equal(canonicalTimeZone('Mars/Olympus'), undefined);
    assert.deepEqual(
      problemsOf({ timeZone: 'UTC', weekly: weekdays(nineToSix), holidays: ['2026-12-25'] }),
      [],
    );
    const problems = problemsOf({
      timeZone: 'Mars/Olympus',
      weekly: week({
        1: [
          { start: '09:00', end: '12:00' },
          { start: '11:00', end: '13:00' },
        ],
        2: [{ start: '18:00', end: '09:00' }],
        3: [{ start: '25:00', end: '26:00' }],
      }),
      holidays: ['2026-02-30'],
    }).map((p) => p.en);
    assert.deepEqual(problems, [
      'timeZone Mars/Olympus is not a known IANA time zone',
      'weekly.1.0 and weekly.1.1 overlap',
      'weekly.2.0 must start before it ends',
      'weekly.3.0.start 25:00 is not a time HH:MM',
      'weekly.3.0.end 26:00 is not a time HH:MM',
      'holidays.0 2026-02-30 is not a date YYYY-MM-DD',
    ]);
  });
});
