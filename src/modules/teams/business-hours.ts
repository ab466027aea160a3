/**
 * Business hours: when a team attends, as a pure function of the configuration and an instant
 * (docs/adr/0084-team-business-hours.md). Wall-clock times are read in the team's IANA time zone with
 * `Intl.DateTimeFormat`, so daylight-saving changes are the runtime's time zone data, not ours.
 *
 * - `weekly[d]` (d = 0 Sunday … 6 Saturday) lists the day's open intervals, `HH:MM`–`HH:MM` local
 *   time, start before end, `24:00` only as an end; an empty list is a closed day. `weekly: null` is
 *   "no weekly hours": open at any hour that is not a holiday. No configuration at all is always open.
 * - `holidays`: local dates (`YYYY-MM-DD`) closed all day whatever the weekly hours say.
 * - An interval covers its start minute and not its end minute: 09:00–18:00 is open at 09:00 and
 *   closed at 18:00. A wall time that a spring-forward skips never happens (an interval starting at
 *   02:30 on that day opens when the clocks jump, 03:00); one a fall-back repeats happens twice.
 */

export interface Interval {
  start: string;
  end: string;
}

export interface BusinessHours {
  timeZone: string;
  /** Seven lists, Sunday first; null: no weekly hours (open except on holidays). */
  weekly: Interval[][] | null;
  holidays: string[];
}

import { wallMs } from '../../lib/wall-clock.js';

export const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';
export const MAX_INTERVALS_PER_DAY = 4;
export const MAX_HOLIDAYS = 100;

const MINUTE = 60_000;
const DAY = 86_400_000;
/** Beyond every UTC offset in use (−12:00 … +14:00): how far a local time can be from its instant. */
const OFFSET_MARGIN = 15 * 3_600_000;
/** A state unchanged for this many local days does not change (holidays are at most 100 dates). */
const MAX_SCAN_DAYS = 400;

/**
 * The IANA name the runtime knows for `timeZone`, in its canonical spelling
 * (`america/sao_paulo` → `America/Sao_Paulo`), or undefined when it knows none.
 */
export function canonicalTimeZone(timeZone: string): string | undefined {
  if (timeZone.trim() === '' || timeZone.length > 64) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** Minutes after local midnight of `HH:MM` (`24:00` is 1440), or undefined when it is not such a time. */
export function minutesOf(time: string): number | undefined {
  const m = /^(\d{2}):(\d{2})$/.exec(time);
  if (!m) return undefined;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (min > 59 || h > 24 || (h === 24 && min !== 0)) return undefined;
  return h * 60 + min;
}

/** Whether `date` is a real calendar date written `YYYY-MM-DD`. */
export function isCalendarDate(date: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.toISOString().slice(0, 10) === date;
}

/** The zone's offset from UTC at an instant, in milliseconds (whole seconds of the instant). */
function offsetAt(timeZone: string, t: number): number {
  const whole = Math.floor(t / 1000) * 1000;
  return wallMs(timeZone, whole) - whole;
}

const dateKey = (wall: number) => new Date(wall).toISOString().slice(0, 10);

/** Open intervals of one local day, in minutes [start, end), from the configuration. */
function dayIntervals(hours: BusinessHours, dayStartWall: number): [number, number][] {
  if (hours.holidays.includes(dateKey(dayStartWall))) return [];
  if (hours.weekly === null) return [[0, 1440]];
  const day = hours.weekly[new Date(dayStartWall).getUTCDay()] ?? [];
  const out: [number, number][] = [];
  for (const i of day) {
    const s = minutesOf(i.start);
    const e = minutesOf(i.end);
    if (s !== undefined && e !== undefined && s < e) out.push([s, e]);
  }
  return out;
}

/** Whether the team attends at `instant`. No configuration (null/undefined): always open. */
export function isOpenAt(hours: BusinessHours | null | undefined, instant: Date): boolean {
  if (!hours) return true;
  const wall = wallMs(hours.timeZone, instant.getTime());
  const dayStart = Math.floor(wall / DAY) * DAY;
  const minute = Math.floor((wall - dayStart) / MINUTE);
  return dayIntervals(hours, dayStart).some(([s, e]) => s <= minute && minute < e);
}

/**
 * The first instant after `instant` at which the team opens (when closed at `instant`) or closes
 * (when open), or null when that never happens: no configuration, open all week without holidays
 * ahead, or closed every day.
 *
 * The state changes only where the local time crosses an interval's start or end or a midnight, or
 * where the clocks jump (a time-zone transition). Each such wall time is turned into the instants it
 * names (none in a spring-forward gap, two in a fall-back overlap), the transitions are found by
 * bisection, and these candidates are tried in time order: the first whose state differs is the change.
 */
export function nextChange(hours: BusinessHours | null | undefined, instant: Date): Date | null {
  if (!hours) return null;
  const tz = hours.timeZone;
  const now = instant.getTime();
  const weeklyNeverOpen = hours.weekly !== null && hours.weekly.every((d) => d.length === 0);
  if (weeklyNeverOpen) return null;
  const firstDay = Math.floor(wallMs(tz, now) / DAY) * DAY - DAY;
  if (hours.weekly === null && !hours.holidays.some((h) => h >= dateKey(firstDay))) return null;
  const open = isOpenAt(hours, instant);
  const pending: number[] = [];
  const windowStart = (dayWall: number) => dayWall - OFFSET_MARGIN;
  for (let k = 0; k < MAX_SCAN_DAYS; k++) {
    const day = firstDay + k * DAY;
    // Wall times where the state may change on this local day, turned into instants.
    const minutes = new Set<number>([0]);
    for (const [s, e] of dayIntervals(hours, day)) {
      minutes.add(s);
      if (e < 1440) minutes.add(e);
    }
    for (const m of minutes) {
      const wall = day + m * MINUTE;
      const offsets = new Set([offsetAt(tz, wall - DAY), offsetAt(tz, wall), offsetAt(tz, wall + DAY)]);
      for (const o of offsets) {
        const t = wall - o;
        if (t > now && wallMs(tz, t) === wall) pending.push(t);
      }
    }
    // A transition in this day's window [start, next start): the first minute with the new offset.
    let lo = windowStart(day);
    let hi = windowStart(day + DAY);
    if (offsetAt(tz, lo) !== offsetAt(tz, hi)) {
      const before = offsetAt(tz, lo);
      lo = Math.floor(lo / MINUTE) * MINUTE;
      while (hi - lo > MINUTE) {
        const mid = lo + Math.floor((hi - lo) / MINUTE / 2) * MINUTE;
        if (offsetAt(tz, mid) === before) lo = mid;
        else hi = mid;
      }
      if (hi > now) pending.push(hi);
    }
    // Every change point before the next window's start is now known: try them in order.
    pending.sort((a, b) => a - b);
    const limit = windowStart(day + DAY);
    while (pending.length > 0 && (pending[0] ?? Infinity) < limit) {
      const t = pending.shift() ?? 0;
      if (isOpenAt(hours, new Date(t)) !== open) return new Date(t);
    }
  }
  return null;
}

/** What is wrong with a configuration, one English sentence and its Portuguese per problem. */
export interface HoursProblem {
  en: string;
  pt: string;
}

/**
 * The rules no schema states: a time zone the runtime knows, `HH:MM` times that exist, start before
 * end, intervals of a day that do not overlap, real dates. Empty: valid.
 */
export function problemsOf(hours: BusinessHours): HoursProblem[] {
  const out: HoursProblem[] = [];
  if (!canonicalTimeZone(hours.timeZone))
    out.push({
      en: `timeZone ${hours.timeZone} is not a known IANA time zone`,
      pt: `timeZone ${hours.timeZone} não é um fuso horário IANA conhecido`,
    });
  hours.weekly?.forEach((day, d) => {
    if (day.length > MAX_INTERVALS_PER_DAY)
      out.push({
        en: `weekly.${d} has more than ${MAX_INTERVALS_PER_DAY} intervals`,
        pt: `weekly.${d} tem mais de ${MAX_INTERVALS_PER_DAY} intervalos`,
      });
    const spans: [number, number, number][] = [];
    day.forEach((interval, i) => {
      const s = minutesOf(interval.start);
      const e = minutesOf(interval.end);
      for (const [field, value, m] of [
        ['start', interval.start, s],
        ['end', interval.end, e],
      ] as const) {
        if (m === undefined)
          out.push({
            en: `weekly.${d}.${i}.${field} ${value} is not a time HH:MM`,
            pt: `weekly.${d}.${i}.${field} ${value} não é um horário HH:MM`,
          });
      }
      if (s === undefined || e === undefined) return;
      if (s >= e)
        out.push({
          en: `weekly.${d}.${i} must start before it ends`,
          pt: `weekly.${d}.${i} deve começar antes de terminar`,
        });
      else spans.push([s, e, i]);
    });
    spans.sort((a, b) => a[0] - b[0]);
    for (let j = 1; j < spans.length; j++) {
      const prev = spans[j - 1];
      const cur = spans[j];
      if (prev && cur && cur[0] < prev[1])
        out.push({
          en: `weekly.${d}.${Math.min(prev[2], cur[2])} and weekly.${d}.${Math.max(prev[2], cur[2])} overlap`,
          pt: `weekly.${d}.${Math.min(prev[2], cur[2])} e weekly.${d}.${Math.max(prev[2], cur[2])} se sobrepõem`,
        });
    }
  });
  if (hours.holidays.length > MAX_HOLIDAYS)
    out.push({
      en: `holidays has more than ${MAX_HOLIDAYS} dates`,
      pt: `holidays tem mais de ${MAX_HOLIDAYS} datas`,
    });
  hours.holidays.forEach((date, i) => {
    if (!isCalendarDate(date))
      out.push({
        en: `holidays.${i} ${date} is not a date YYYY-MM-DD`,
        pt: `holidays.${i} ${date} não é uma data AAAA-MM-DD`,
      });
  });
  return out;
}
