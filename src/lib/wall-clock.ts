/**
 * Wall-clock time of an instant in an IANA time zone, with `Intl.DateTimeFormat` (the runtime's zone
 * data): what business hours (modules/teams) and reports' local days (modules/reports) are computed
 * from. One formatter per zone, kept: building one is the expensive part.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

/** Wall-clock time of an instant in a zone, as milliseconds of a UTC date with the same fields. */
export function wallMs(timeZone: string, t: number): number {
  const parts = formatter(timeZone).formatToParts(new Date(t));
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
}
