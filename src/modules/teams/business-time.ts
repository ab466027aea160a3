import { isOpenAt, nextChange, type BusinessHours } from './business-hours.js';

/**
 * Business time: durations counted only while a team attends (docs/adr/0088-slas.md). Pure functions
 * of the team's hours (business-hours.ts) and instants, so SLA targets, the console and tests share
 * one rule. No hours (null) is always open: business time is wall-clock time.
 *
 * Both walk the open and closed stretches with `nextChange`, a few per day, so their cost grows with
 * the number of openings crossed, not with the minutes counted.
 */

const MINUTE = 60_000;
/** Openings crossed at most (about 11 years of one opening a day): beyond, the answer is "never". */
const MAX_STRETCHES = 8_000;

/**
 * The instant at which `minutes` of the team's open time have passed since `start`, or null when that
 * never happens (closed every day, or beyond the search). A start while closed counts from the next
 * opening; a target reached exactly at a closing instant answers that instant.
 */
export function addBusinessMinutes(
  hours: BusinessHours | null | undefined,
  start: Date,
  minutes: number,
): Date | null {
  let remaining = Math.max(0, minutes) * MINUTE;
  let t = start.getTime();
  if (!hours) return new Date(t + remaining);
  for (let i = 0; i < MAX_STRETCHES; i++) {
    const change = nextChange(hours, new Date(t));
    if (isOpenAt(hours, new Date(t))) {
      if (change === null || change.getTime() - t >= remaining) return new Date(t + remaining);
      remaining -= change.getTime() - t;
    } else if (change === null) {
      return null;
    }
    t = change.getTime();
  }
  return null;
}

/** How much of the team's open time lies between `from` and `to`, in milliseconds (0 when `to` is not after `from`). */
export function businessMsBetween(hours: BusinessHours | null | undefined, from: Date, to: Date): number {
  const end = to.getTime();
  let t = from.getTime();
  if (end <= t) return 0;
  if (!hours) return end - t;
  let total = 0;
  for (let i = 0; i < MAX_STRETCHES && t < end; i++) {
    const change = nextChange(hours, new Date(t));
    const stop = change === null ? end : Math.min(change.getTime(), end);
    if (isOpenAt(hours, new Date(t))) total += stop - t;
    t = stop;
  }
  return total;
}
