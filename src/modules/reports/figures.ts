import type { DurationT, MetricsT } from './reports.schemas.js';

/**
 * Figures as the rollups keep them and as reports add them up (docs/adr/0089-reports-and-rollups.md):
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

/** Adds `from` into `into`, whose cells are its own (copied in, then added to in place). */
export function mergeHist(into: Hist, from: Hist): void {
  for (const bin in from) {
    const add = from[bin];
    if (!add) continue;
    const cell = into[bin];
    if (cell) {
      cell[0] += add[0];
      cell[1] += add[1];
    } else {
      into[bin] = [add[0], add[1]];
    }
  }
}

export function mergeAcc(into: Acc, from: Acc): void {
  for (const c of COUNTERS) into.counters[c] += from.counters[c];
  for (let i = 0; i < 5; i++) into.csat[i] = (into.csat[i] ?? 0) + (from.csat[i] ?? 0);
  for (const d of DURATIONS) {
    into.durations[d].n += from.durations[d].n;
    into.durations[d].sum += from.durations[d].sum;
    mergeHist(into.durations[d].hist, from.durations[d].hist);
  }
}

/**
 * Nearest-rank percentiles `ps` (ascending, each in (0, 1]) of a histogram of `n` values: for each,
 * the mean of the values of the bin holding its rank.
 */
export function percentiles(hist: Hist, n: number, ps: readonly number[]): (number | null)[] {
  const out: (number | null)[] = ps.map(() => null);
  if (n <= 0) return out;
  const bins = Object.keys(hist)
    .map(Number)
    .sort((a, b) => a - b);
  let seen = 0;
  let i = 0;
  for (const b of bins) {
    const [count, sum] = hist[String(b)] ?? [0, 0];
    seen += count;
    while (i < ps.length && count > 0 && seen >= Math.max(1, Math.ceil((ps[i] ?? 1) * n))) {
      out[i++] = round(sum / count);
    }
    if (i === ps.length) break;
  }
  return out;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

const NO_VALUES: DurationT = {
  count: 0,
  averageSeconds: null,
  p50Seconds: null,
  p90Seconds: null,
  p95Seconds: null,
};

function duration(d: DurationAcc): DurationT {
  if (d.n <= 0) return { ...NO_VALUES };
  const [p50, p90, p95] = percentiles(d.hist, d.n, [0.5, 0.9, 0.95]);
  return {
    count: d.n,
    averageSeconds: round(d.sum / d.n),
    p50Seconds: p50 ?? null,
    p90Seconds: p90 ?? null,
    p95Seconds: p95 ?? null,
  };
}

export function toMetrics(acc: Acc): MetricsT {
  const c = acc.counters;
  const csatCount = acc.csat.reduce((a, b) => a + b, 0);
  const csatSum = acc.csat.reduce((a, b, i) => a + b * (i + 1), 0);
  const met = c.sla_fr_met + c.sla_res_met;
  const all = met + c.sla_fr_breached + c.sla_res_breached;
  return {
    opened: c.opened,
    closed: c.closed,
    reopened: c.reopened,
    transfers: c.transfers,
    attended: c.attended,
    messagesIn: c.messages_in,
    messagesOut: c.messages_out,
    firstResponse: duration(acc.durations.fr),
    wait: duration(acc.durations.wait),
    handling: duration(acc.durations.handling),
    resolution: duration(acc.durations.resolution),
    csat: {
      count: csatCount,
      average: csatCount > 0 ? round(csatSum / csatCount) : null,
      distribution: [...acc.csat],
    },
    sla: {
      firstResponse: { met: c.sla_fr_met, breached: c.sla_fr_breached },
      resolution: { met: c.sla_res_met, breached: c.sla_res_breached },
      compliance: all > 0 ? round(met / all) : null,
    },
  };
}
