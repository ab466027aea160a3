/**
 * Local dates and hours of a report's time zone, with `Intl.DateTimeFormat` (the runtime's zone data).
 * Rollups are kept per UTC hour; a report's day is the hours whose start falls on that local date, so
 * in zones whose offset is not a whole number of hours (India, Nepal…) a day's edges move by the
 * offset's fraction (docs/adr/0089-reports-and-rollups.md).
 */

import { wallMs } from '../../lib/wall-clock.js';

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** The local date (`YYYY-MM-DD`) of an instant. */
export function localDate(timeZone: string, t: number): string {
  return new Date(wallMs(timeZone, t)).toISOString().slice(0, 10);
}

const dayStarts = new Map<string, number>();

/** The first whole hour (UTC) whose start is on or after local midnight of `date` (remembered). */
export function dayStart(timeZone: string, date: string): number {
  const key = `${timeZone} ${date}`;
  let t = dayStarts.get(key);
  if (t === undefined) {
    t = computeDayStart(timeZone, date);
    if (dayStarts.size > 100_000) dayStarts.clear();
    dayStarts.set(key, t);
  }
  return t;
}

function computeDayStart(timeZone: string, date: string): number {
  const wall = Date.parse(`${date}T00:00:00Z`);
  // Two rounds settle the offset at that instant (it differs from the guess's across a transition).
  let t = wall - (wallMs(timeZone, wall) - wall);
  t = wall - (wallMs(timeZone, t) - t);
  // A midnight skipped by a spring-forward: the day starts at the first instant on that date.
  while (localDate(timeZone, t) < date) t += HOUR;
  return Math.ceil(t / HOUR) * HOUR;
}

/** The local date after `date`. */
export function nextDate(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
}

/** Local dates from `from` to `to` inclusive (at most `max` + 1 are produced). */
export function datesBetween(from: string, to: string, max: number): string[] {
  const out: string[] = [];
  for (let d = from; d <= to && out.length <= max; d = nextDate(d)) out.push(d);
  return out;
}

/**
 * The buckets of a range: their starts (UTC hours, ascending) and the bucket each hour of the range
 * falls in. Day buckets start at each local date's `dayStart`.
 */
export function bucketsOf(
  timeZone: string,
  from: string,
  to: string,
  granularity: 'hour' | 'day',
): { starts: number[]; start: number; end: number } {
  const start = dayStart(timeZone, from);
  const end = dayStart(timeZone, nextDate(to));
  if (granularity === 'hour') {
    const starts: number[] = [];
    for (let t = start; t < end; t += HOUR) starts.push(t);
    return { starts, start, end };
  }
  return { starts: datesBetween(from, to, 400).map((d) => dayStart(timeZone, d)), start, end };
}

/** Index of the bucket holding `hour` in ascending `starts` (binary search). */
export function bucketIndex(starts: readonly number[], hour: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= hour) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
