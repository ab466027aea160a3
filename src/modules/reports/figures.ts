/**
 * Figures as the rollups keep them and as reports add them up (tally.ts; docs/adr/0089-reports-and-rollups.md):
 * counters, and for each duration its count, sum and a histogram of log-scale bins. Bin 0 holds values
 * up to 1 s; bin b ≥ 1 holds (2^((b-1)/16), 2^(b/16)] seconds, so a bin is 4.4 % wide. Each bin keeps
 * its count and the sum of its values: a percentile answers the mean of the values of the bin where
 * its rank falls, exact when they are equal and within the bin's width otherwise.
 */

export const BINS_PER_DOUBLING = 16;

/** A histogram: bin → [count, sum of seconds]. JSON objects in the rollups (`{"37": [2, 7.5]}`). */
export type Hist = Record<string, [number, number]>;

export function binOf(seconds: number): number {
  if (seconds <= 1) return 0;
  return Math.ceil(BINS_PER_DOUBLING * Math.log2(seconds));
}

export const DURATIONS = ['fr', 'wait', 'handling', 'resolution'] as const;
export type DurationKey = (typeof DURATIONS)[number];

export const COUNTERS = [
  'opened',
  'closed',
  'reopened',
  'transfers',
  'attended',
  'messages_in',
  'messages_out',
  'sla_fr_met',
  'sla_fr_breached',
  'sla_res_met',
  'sla_res_breached',
] as const;
export type CounterKey = (typeof COUNTERS)[number];

export interface DurationAcc {
  n: number;
  sum: number;
  hist: Hist;
}

/** Figures being added up: a rollup row, a bucket, a group or the totals. */
export interface Acc {
  counters: Record<CounterKey, number>;
  csat: number[];
  durations: Record<DurationKey, DurationAcc>;
}

export function emptyAcc(): Acc {
  return {
    counters: {
      opened: 0,
      closed: 0,
      reopened: 0,
      transfers: 0,
      attended: 0,
      messages_in: 0,
      messages_out: 0,
      sla_fr_met: 0,
      sla_fr_breached: 0,
      sla_res_met: 0,
      sla_res_breached: 0,
    },
    csat: [0, 0, 0, 0, 0],
    durations: {
      fr: { n: 0, sum: 0, hist: {} },
      wait: { n: 0, sum: 0, hist: {} },
      handling: { n: 0, sum: 0, hist: {} },
      resolution: { n: 0, sum: 0, hist: {} },
    },
  };
}

export function addDuration(acc: Acc, key: DurationKey, seconds: number): void {
  const d = acc.durations[key];
  const s = Math.max(0, seconds);
  d.n += 1;
  d.sum += s;
  const bin = String(binOf(s));
  const cell = d.hist[bin];
  if (cell) {
    cell[0] += 1;
    cell[1] += s;
  } else {
    d.hist[bin] = [1, s];
  }
}
