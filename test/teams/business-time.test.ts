import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BusinessHours, Interval } from '../../src/modules/teams/business-hours.js';
import { addBusinessMinutes, businessMsBetween } from '../../src/modules/teams/business-time.js';

// Business time: N open minutes after an instant, and the open time between two instants, in the
// team's time zone — over nights, weekends, holidays, intervals across midnight and clock changes.

const at = (iso: string) => new Date(iso);
const iso = (d: Date | null) => d?.toISOString() ?? null;
const MIN = 60_000;
const week = (days: Partial<Record<number, Interval[]>>): Interval[][] =>
  Array.from({ length: 7 }, (_, d) => days[d] ?? []);
const nineToSix = [{ start: '09:00', end: '18:00' }];
const weekdays = (intervals: Interval[]) =>
  week({ 1: intervals, 2: intervals, 3: intervals, 4: intervals, 5: intervals });
// São Paulo keeps UTC−3 all year; 4 December 2026 is a Friday.
const saoPaulo: BusinessHours = { timeZone: 'America/Sao_Paulo', weekly: weekdays(nineToSix), holidays: [] };

describe('business time', () => {
  it('a team without hours counts wall-clock time', () => {
    assert.equal(iso(addBusinessMinutes(null, at('2026-12-05T23:30:00Z'), 90)), '2026-12-06T01:00:00.000Z');
    assert.equal(businessMsBetween(null, at('2026-12-05T00:00:00Z'), at('2026-12-05T01:30:00Z')), 90 * MIN);
  });

  it('within one open stretch, and exactly up to the closing minute', () => {
    // Friday 10:00 BRT + 30 minutes.
    assert.equal(
      iso(addBusinessMinutes(saoPaulo, at('2026-12-04T13:00:00Z'), 30)),
      '2026-12-04T13:30:00.000Z',
    );
    // Friday 17:00 + 60 minutes is 18:00, the closing instant itself, not Monday.
    assert.equal(
      iso(addBusinessMinutes(saoPaulo, at('2026-12-04T20:00:00Z'), 60)),
      '2026-12-04T21:00:00.000Z',
    );
  });

  it('over the weekend: Friday 17:00 + 2 hours is Monday 10:00', () => {
    const due = addBusinessMinutes(saoPaulo, at('2026-12-04T20:00:00Z'), 120);
    assert.equal(iso(due), '2026-12-07T13:00:00.000Z');
    assert.equal(businessMsBetween(saoPaulo, at('2026-12-04T20:00:00Z'), due!), 120 * MIN);
  });

  it('a start while closed counts from the next opening', () => {
    // Saturday noon: Monday 09:00 + 30 minutes.
    assert.equal(
      iso(addBusinessMinutes(saoPaulo, at('2026-12-05T15:00:00Z'), 30)),
      '2026-12-07T12:30:00.000Z',
    );
    // Zero minutes while closed is the next opening; while open, the start itself.
    assert.equal(
      iso(addBusinessMinutes(saoPaulo, at('2026-12-05T15:00:00Z'), 0)),
      '2026-12-07T12:00:00.000Z',
    );
    assert.equal(
      iso(addBusinessMinutes(saoPaulo, at('2026-12-04T15:00:00Z'), 0)),
      '2026-12-04T15:00:00.000Z',
    );
  });

  it('a holiday is skipped whole', () => {
    const h = { ...saoPaulo, holidays: ['2026-12-07'] };
    assert.equal(iso(addBusinessMinutes(h, at('2026-12-04T20:00:00Z'), 120)), '2026-12-08T13:00:00.000Z');
    assert.equal(businessMsBetween(h, at('2026-12-04T20:00:00Z'), at('2026-12-08T13:00:00Z')), 120 * MIN);
  });

  it('a night shift across midnight counts on from 23:30 to 00:30', () => {
    const night = [
      { start: '00:00', end: '06:00' },
      { start: '22:00', end: '24:00' },
    ];
    const h: BusinessHours = {
      timeZone: 'UTC',
      weekly: week({ 0: night, 1: night, 2: night, 3: night, 4: night, 5: night, 6: night }),
      holidays: [],
    };
    assert.equal(iso(addBusinessMinutes(h, at('2026-12-01T23:30:00Z'), 60)), '2026-12-02T00:30:00.000Z');
    // 05:30 + 60: half an hour before the morning close, half an hour after the evening opening.
    assert.equal(iso(addBusinessMinutes(h, at('2026-12-02T05:30:00Z'), 60)), '2026-12-02T22:30:00.000Z');
    assert.equal(businessMsBetween(h, at('2026-12-02T05:30:00Z'), at('2026-12-02T22:30:00Z')), 60 * MIN);
  });

  it('across New York’s spring-forward: open hours keep their wall-clock times, elapsed time is real time', () => {
    const h: BusinessHours = { timeZone: 'America/New_York', weekly: weekdays(nineToSix), holidays: [] };
    // Friday 6 March 2026 17:00 EST (UTC−5) + 2 h: Monday 9 March 10:00 EDT (UTC−4).
    assert.equal(iso(addBusinessMinutes(h, at('2026-03-06T22:00:00Z'), 120)), '2026-03-09T14:00:00.000Z');
    // Open all day: 24 business hours are 24 real hours even though the wall clock moved 25.
    const allDay = {
      timeZone: 'America/New_York',
      weekly: week(
        Object.fromEntries(Array.from({ length: 7 }, (_, d) => [d, [{ start: '00:00', end: '24:00' }]])),
      ),
      holidays: [],
    };
    assert.equal(
      iso(addBusinessMinutes(allDay, at('2026-03-07T17:00:00Z'), 1440)),
      '2026-03-08T17:00:00.000Z',
    );
    assert.equal(
      businessMsBetween(allDay, at('2026-03-07T17:00:00Z'), at('2026-03-08T17:00:00Z')),
      1440 * MIN,
    );
  });

  it('across the autumn fall-back in Lisbon: the repeated hour counts twice', () => {
    // 25 October 2026: 02:00 WEST goes back to 01:00 WET. Open 00:00–06:00 every day.
    const early = [{ start: '00:00', end: '06:00' }];
    const h: BusinessHours = {
      timeZone: 'Europe/Lisbon',
      weekly: week(Object.fromEntries(Array.from({ length: 7 }, (_, d) => [d, early]))),
      holidays: [],
    };
    // Local 00:00 WEST is 23:00Z the day before; 06:00 WET is 06:00Z: seven real hours open.
    assert.equal(businessMsBetween(h, at('2026-10-24T23:00:00Z'), at('2026-10-25T12:00:00Z')), 7 * 60 * MIN);
    assert.equal(iso(addBusinessMinutes(h, at('2026-10-24T23:00:00Z'), 7 * 60)), '2026-10-25T06:00:00.000Z');
  });

  it('never: a team closed every day has no due instant; a span that is all closed is zero', () => {
    const closed: BusinessHours = { timeZone: 'UTC', weekly: week({}), holidays: [] };
    assert.equal(addBusinessMinutes(closed, at('2026-12-01T12:00:00Z'), 1), null);
    assert.equal(businessMsBetween(closed, at('2026-12-01T00:00:00Z'), at('2026-12-09T00:00:00Z')), 0);
    assert.equal(businessMsBetween(saoPaulo, at('2026-12-05T00:00:00Z'), at('2026-12-06T00:00:00Z')), 0);
    assert.equal(businessMsBetween(saoPaulo, at('2026-12-07T13:00:00Z'), at('2026-12-07T12:00:00Z')), 0);
  });

  it('agrees with itself: the open time up to the due instant is the target', () => {
    const h = { ...saoPaulo, holidays: ['2026-12-25'] };
    for (const start of ['2026-12-03T11:59:30Z', '2026-12-24T20:10:00Z', '2026-12-26T03:00:00Z']) {
      for (const minutes of [1, 59, 540, 541, 3000]) {
        const due = addBusinessMinutes(h, at(start), minutes);
        assert.ok(due, `${start} + ${minutes}`);
        assert.equal(businessMsBetween(h, at(start), due), minutes * MIN, `${start} + ${minutes}`);
      }
    }
  });
});
