import type { Lang } from '../i18n';
import type { Granularity } from './query';

// How the reports write their figures: the same text in a chart's tooltip and in its table.

/** A duration in seconds as "45 s", "3 min 20 s", "2 h 05 min"; null (nothing measured) as "—". */
export function formatDuration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '—';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) {
    const rest = s % 60;
    return rest ? `${Math.floor(s / 60)} min ${rest} s` : `${s / 60} min`;
  }
  const h = Math.floor(s / 3600);
  const min = Math.round((s % 3600) / 60);
  return `${h} h ${String(min).padStart(2, '0')} min`;
}

/** Seconds as minutes with one decimal, a chart's y value (null: no point). */
export const minutes = (seconds: number | null | undefined): number | null =>
  seconds === null || seconds === undefined ? null : Math.round((seconds / 60) * 10) / 10;

/** A share 0..1 as a whole percentage ("87%"); null as "—". */
export function formatPercent(lang: Lang, share: number | null | undefined): string {
  if (share === null || share === undefined) return '—';
  return new Intl.NumberFormat(lang, { style: 'percent', maximumFractionDigits: 1 }).format(share);
}

/** A CSAT average (1..5) with one decimal; null as "—". */
export function formatScore(lang: Lang, score: number | null | undefined): string {
  if (score === null || score === undefined) return '—';
  return new Intl.NumberFormat(lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(score);
}

export const formatCount = (lang: Lang, n: number): string => new Intl.NumberFormat(lang).format(n);

/**
 * A bucket's start in the report's time zone: a day as "05/12" (with the weekday when it helps), an
 * hour as "14:00", or "05/12 14:00" when the range has several days.
 */
export function bucketFormatter(
  lang: Lang,
  timeZone: string,
  granularity: Granularity,
  severalDays: boolean,
): (iso: string) => string {
  const opts: Intl.DateTimeFormatOptions =
    granularity === 'day'
      ? { timeZone, day: '2-digit', month: '2-digit' }
      : severalDays
        ? { timeZone, day: '2-digit', month: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }
        : { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
  const fmt = new Intl.DateTimeFormat(lang, opts);
  return (iso) => fmt.format(new Date(iso));
}

/** "hh:mm" of an instant in a time zone, with the date before it when it is not `today`. */
export function formatUpTo(lang: Lang, timeZone: string, iso: string, today: string): string {
  const d = new Date(iso);
  const day = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(d);
  const opts: Intl.DateTimeFormatOptions =
    day === today
      ? { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }
      : { timeZone, day: '2-digit', month: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' };
  return new Intl.DateTimeFormat(lang, opts).format(d);
}
