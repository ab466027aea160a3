import { COUNTERS, DURATIONS } from './figures.js';
import type { DurationT, MetricsT } from './reports.schemas.js';

/**
 * Figures being added up for a report: a bucket, a group or the totals. The rollups' histograms
 * (`{"<bin>": [count, sum]}`, figures.ts) are read as their JSON text and added straight into dense
 * arrays indexed by bin, so adding a rollup row allocates nothing and a percentile is one pass over
 * the bins: a 30-day report adds up to a few thousand rows, and building an object per bin of each
 * (then merging and sorting them) was most of its CPU and garbage (bench/README.md, report-30d).
 */

/** A rollup row as a report reads it: counters in `COUNTERS` order, histograms as JSON text. */
export interface TallyRow {
  hour: number;
  group: string;
  counters: readonly number[];
  csat: readonly number[];
  n: readonly number[];
  sum: readonly number[];
  hist: readonly string[];
}

/** Bins a histogram starts with: 2^(320/16) s is 12 days; later bins grow the array. */
const INITIAL_BINS = 320;

class DenseHist {
  /** bin b's count at 2b, its sum of seconds at 2b + 1. */
  cells = new Float64Array(2 * INITIAL_BINS);
  /** One past the highest bin holding a value. */
  top = 0;

  add(bin: number, count: number, sum: number): void {
    if (bin < 0 || !Number.isInteger(bin)) return;
    if (2 * bin + 1 >= this.cells.length) {
      const grown = new Float64Array(Math.max(2 * (bin + 1), 2 * this.cells.length));
      grown.set(this.cells);
      this.cells = grown;
    }
    this.cells[2 * bin] = (this.cells[2 * bin] ?? 0) + count;
    this.cells[2 * bin + 1] = (this.cells[2 * bin + 1] ?? 0) + sum;
    if (bin + 1 > this.top) this.top = bin + 1;
  }

  addAll(from: DenseHist): void {
    for (let b = 0; b < from.top; b++) {
      const count = from.cells[2 * b] ?? 0;
      if (count !== 0) this.add(b, count, from.cells[2 * b + 1] ?? 0);
    }
  }

  /**
   * Adds a histogram's JSON text as PostgreSQL prints a jsonb object of `"bin": [count, sum]`: its
   * numbers in order are bin, count, sum, bin, count, sum… — read without building the object.
   */
  addText(text: string): void {
    let k = 0;
    let bin = 0;
    let count = 0;
    const len = text.length;
    for (let i = 0; i < len;) {
      const c = text.charCodeAt(i);
      if (!isNumberChar(c)) {
        i++;
        continue;
      }
      let j = i;
      let integer = 0;
      let plain = true;
      while (j < len) {
        const d = text.charCodeAt(j);
        if (d >= 48 && d <= 57) integer = integer * 10 + (d - 48);
        else if (isNumberChar(d)) plain = false;
        else break;
        j++;
      }
      const value = plain ? integer : Number(text.slice(i, j));
      i = j;
      if (k === 0) bin = value;
      else if (k === 1) count = value;
      else this.add(bin, count, value);
      k = (k + 1) % 3;
    }
  }

  clear(): void {
    this.cells.fill(0, 0, 2 * this.top);
    this.top = 0;
  }

  /** Nearest-rank percentiles `ps` (ascending) of `n` values: each the mean of its rank's bin. */
  percentiles(n: number, ps: readonly number[]): (number | null)[] {
    const out: (number | null)[] = ps.map(() => null);
    if (n <= 0) return out;
    let seen = 0;
    let i = 0;
    for (let b = 0; b < this.top && i < ps.length; b++) {
      const count = this.cells[2 * b] ?? 0;
      if (count <= 0) continue;
      seen += count;
      while (i < ps.length && seen >= Math.max(1, Math.ceil((ps[i] ?? 1) * n))) {
        out[i++] = round((this.cells[2 * b + 1] ?? 0) / count);
      }
    }
    return out;
  }
}

/** Digits, sign, decimal point and exponent: what a JSON number is made of. */
const isNumberChar = (c: number) =>
  (c >= 48 && c <= 57) || c === 45 || c === 46 || c === 43 || c === 101 || c === 69;

const round = (x: number) => Math.round(x * 1000) / 1000;

/** `into[i] += from[i]` for each of `into`'s places. */
function addInto(into: number[], from: readonly number[]): void {
  for (let i = 0; i < into.length; i++) into[i] = (into[i] ?? 0) + (from[i] ?? 0);
}

export class Tally {
  private readonly counters = new Array<number>(COUNTERS.length).fill(0);
  private readonly csat = [0, 0, 0, 0, 0];
  private readonly n = [0, 0, 0, 0];
  private readonly sum = [0, 0, 0, 0];
  private readonly hists = DURATIONS.map(() => new DenseHist());
  /** Whether anything was added. */
  filled = false;

  addRow(row: TallyRow): void {
    this.addSums(row.counters, row.csat, row.n, row.sum);
    row.hist.forEach((text, d) => {
      if (text.length > 2) this.hists[d]?.addText(text);
    });
  }

  addTally(from: Tally): void {
    if (!from.filled) return;
    this.addSums(from.counters, from.csat, from.n, from.sum);
    from.hists.forEach((h, d) => this.hists[d]?.addAll(h));
  }

  /** Adds the counters, CSAT answers and durations' counts and sums of a row or a tally. */
  private addSums(
    counters: readonly number[],
    csat: readonly number[],
    n: readonly number[],
    sum: readonly number[],
  ): void {
    this.filled = true;
    addInto(this.counters, counters);
    addInto(this.csat, csat);
    addInto(this.n, n);
    addInto(this.sum, sum);
  }

  /** Empties it for reuse (its arrays kept). */
  clear(): void {
    if (!this.filled) return;
    this.filled = false;
    this.counters.fill(0);
    this.csat.fill(0);
    this.n.fill(0);
    this.sum.fill(0);
    for (const h of this.hists) h.clear();
  }

  metrics(): MetricsT {
    const c = (key: (typeof COUNTERS)[number]) => this.counters[COUNTERS.indexOf(key)] ?? 0;
    const csatCount = this.csat.reduce((a, b) => a + b, 0);
    const csatSum = this.csat.reduce((a, b, i) => a + b * (i + 1), 0);
    const met = c('sla_fr_met') + c('sla_res_met');
    const all = met + c('sla_fr_breached') + c('sla_res_breached');
    const duration = (key: (typeof DURATIONS)[number]): DurationT => {
      const d = DURATIONS.indexOf(key);
      const n = this.n[d] ?? 0;
      if (n <= 0)
        return { count: 0, averageSeconds: null, p50Seconds: null, p90Seconds: null, p95Seconds: null };
      const [p50, p90, p95] = this.hists[d]?.percentiles(n, [0.5, 0.9, 0.95]) ?? [];
      return {
        count: n,
        averageSeconds: round((this.sum[d] ?? 0) / n),
        p50Seconds: p50 ?? null,
        p90Seconds: p90 ?? null,
        p95Seconds: p95 ?? null,
      };
    };
    return {
      opened: c('opened'),
      closed: c('closed'),
      reopened: c('reopened'),
      transfers: c('transfers'),
      attended: c('attended'),
      messagesIn: c('messages_in'),
      messagesOut: c('messages_out'),
      firstResponse: duration('fr'),
      wait: duration('wait'),
      handling: duration('handling'),
      resolution: duration('resolution'),
      csat: {
        count: csatCount,
        average: csatCount > 0 ? round(csatSum / csatCount) : null,
        distribution: [...this.csat],
      },
      sla: {
        firstResponse: { met: c('sla_fr_met'), breached: c('sla_fr_breached') },
        resolution: { met: c('sla_res_met'), breached: c('sla_res_breached') },
        compliance: all > 0 ? round(met / all) : null,
      },
    };
  }
}

/**
 * The figures of a report's buckets, filled oldest first: only the open bucket is being added up, and
 * its figures are taken when a row of a later bucket arrives.
 */
export class BucketSeries {
  readonly metrics: MetricsT[] = [];
  readonly open = new Tally();

  /** Takes the figures of each bucket before `upTo` (the open one, then empty ones), each added into `totals` when given. */
  closeUpTo(upTo: number, totals?: Tally): void {
    while (this.metrics.length < upTo) {
      this.metrics.push(this.open.metrics());
      totals?.addTally(this.open);
      this.open.clear();
    }
  }
}
