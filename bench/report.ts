import type { LoadResult } from './load.js';

export interface Row extends LoadResult {
  id: string;
  label: string;
  request: string;
  server: 'memory' | 'redis';
  /** Concurrent connections of this row. */
  connections?: number;
  /** req/s relative to the baseline row of the same run. */
  ratio: number | null;
  serverCpuUsPerRequest: number | null;
  dbCpuUsPerRequest: number | null;
  extraCpuUsOverBaseline: number | null;
  /** No non-2xx answers and no connection errors. */
  valid: boolean;
  target: { ratio?: number; rps?: number; p99Ms: number; met: boolean } | null;
}

/**
 * A row of the send pipeline or the gateway: each measures something of its own (accepted requests,
 * delivered messages, latency to the provider or to a socket, memory per socket), so its main result
 * carries its unit, and `notes` the facts needed to read it.
 */
export interface LiveRow {
  id: string;
  label: string;
  request: string;
  /** `ATENDE_ROLES` of the server process measured. */
  roles: string;
  value: number | null;
  unit: string;
  p50: number | null;
  p99: number | null;
  /** × the reference row named in `ratioOf` (e.g. the one-INSERT baseline). */
  ratio: number | null;
  ratioOf: string | null;
  /** Server process CPU per request or message (µs), and the database's. */
  serverCpuUs: number | null;
  dbCpuUs: number | null;
  target: { text: string; met: boolean } | null;
  notes: string[];
  /** No errors or lost messages: the numbers describe what they claim to. */
  valid: boolean;
  /** The raw measurements, for the JSON result file. */
  details: Record<string, unknown>;
}

export interface BenchReport {
  startedAt: string;
  finishedAt: string;
  revision: string;
  settings: {
    duration: number;
    warmup: number;
    connections: number;
    transferPool: number;
    rateLimitPoints: number;
  };
  dataset: Record<string, string | number | boolean>;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGiB: number;
    node: string;
    loadavgBefore: number[];
    loadavgAfter: number[];
    postgres: Record<string, string>;
  };
  checks: {
    totalsExact: boolean | null;
    countsExactAfterTransfers: boolean | null;
    countsExactAfterRestore: boolean;
    /** The canned picker's answers are what the agent sees (absent in result files of earlier revisions). */
    cannedPickerCorrect?: boolean | null;
    /** The console rows' requests find what they should (absent in result files of earlier revisions). */
    consoleAnswers?: boolean | null;
  };
  rows: Row[];
  /** Send pipeline and gateway rows (absent in result files of earlier revisions). */
  liveRows?: LiveRow[];
}

const fmt = (n: number | null, digits = 0) => (n === null ? '–' : n.toFixed(digits));

/** The results as a Markdown table (also what the terminal shows). */
export function renderTable(report: BenchReport): string {
  const head =
    '| row | request | limiter | req/s | p50 ms | p99 ms | × baseline | server CPU µs/req | DB CPU µs/req | load | target |\n' +
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|';
  const lines = report.rows.map((r) => {
    const floor =
      r.target?.ratio !== undefined
        ? `≥ ${r.target.ratio * 100} %, `
        : r.target?.rps !== undefined
          ? `≥ ${r.target.rps}/s, `
          : '';
    const target = r.target
      ? `${r.target.met ? 'met' : '**missed**'} (${floor}p99 ≤ ${r.target.p99Ms} ms)`
      : '';
    const conns =
      r.connections !== undefined && r.connections !== report.settings.connections
        ? `, ${r.connections} connections`
        : '';
    const bad = r.valid ? '' : ` ⚠ ${r.non2xx} non-2xx, ${r.errors} errors`;
    const extra =
      r.extraCpuUsOverBaseline !== null && r.id.startsWith('limiter')
        ? ` (+${r.extraCpuUsOverBaseline})`
        : '';
    return (
      `| ${r.label}${conns}${bad} | \`${r.request}\` | ${r.server} | ${r.rps} | ${fmt(r.p50)} | ${fmt(r.p99)} | ` +
      `${fmt(r.ratio, 2)} | ${fmt(r.serverCpuUsPerRequest)}${extra} | ${fmt(r.dbCpuUsPerRequest)} | ` +
      `${fmt(r.loadAvg ?? null, 1)} | ${target} |`
    );
  });
  const live = report.liveRows ?? [];
  if (live.length === 0) return [head, ...lines].join('\n');
  return [head, ...lines].join('\n') + '\n\n' + renderLiveTable(live);
}

/** The send pipeline and gateway rows, in a table of their own (their results have their own units). */
export function renderLiveTable(rows: LiveRow[]): string {
  const head =
    '| row | measures | server roles | result | p50 ms | p99 ms | ratio | server CPU µs | DB CPU µs | target | notes |\n' +
    '|---|---|---|---:|---:|---:|---:|---:|---:|---|---|';
  const lines = rows.map((r) => {
    const bad = r.valid ? '' : ' ⚠';
    const target = r.target ? `${r.target.met ? 'met' : '**missed**'} (${r.target.text})` : '';
    const ratio = r.ratio === null ? '–' : `${fmt(r.ratio, 2)} × ${r.ratioOf ?? ''}`;
    const value = r.value === null ? '–' : `${fmt(r.value, r.value < 100 ? 1 : 0)} ${r.unit}`;
    return (
      `| ${r.label}${bad} | ${r.request} | ${r.roles} | ${value} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ` +
      `${ratio} | ${fmt(r.serverCpuUs)} | ${fmt(r.dbCpuUs)} | ${target} | ${r.notes.join('; ')} |`
    );
  });
  return [head, ...lines].join('\n');
}

function summary(report: BenchReport): string {
  const m = report.machine;
  const s = report.settings;
  const c = report.checks;
  const yes = (b: boolean | null) => (b === null ? 'not run' : b ? 'yes' : '**NO**');
  return [
    `Run of ${report.startedAt} (revision ${report.revision}): ${m.cpus} × ${m.cpuModel}, ${m.memoryGiB} GiB, ` +
      `Node ${m.node}, ${m.postgres.version?.split(' on ')[0] ?? 'PostgreSQL'} ` +
      `(shared_buffers ${m.postgres.shared_buffers}). ${s.connections} connections, ${s.warmup} s warm-up + ` +
      `${s.duration} s per row. Load average before/after: ${m.loadavgBefore.join(' ')} / ${m.loadavgAfter.join(' ')}` +
      ' — other processes (tests of other work) may have been running on the machine; compare ratios, not absolutes.',
    '',
    `Checks: list totals equal exact counts: ${yes(c.totalsExact)}; chat_counts exact after the concurrent ` +
      `transfers: ${yes(c.countsExactAfterTransfers)}; after restoring the transferred chats: ${yes(c.countsExactAfterRestore)}` +
      (c.cannedPickerCorrect === undefined
        ? ''
        : `; canned picker answers what the agent sees: ${yes(c.cannedPickerCorrect)}`) +
      (c.consoleAnswers !== undefined
        ? `; console rows find what they search: ${yes(c.consoleAnswers)}.`
        : '.'),
  ].join('\n');
}

const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';

/** Replaces the generated section of bench/README.md (between the markers) with this run. */
export function renderReadmeSection(readme: string, report: BenchReport): string {
  const section = `${START}\n\n${summary(report)}\n\n${renderTable(report)}\n\n${END}`;
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a === -1 || b === -1 || b < a) return `${readme.trimEnd()}\n\n## Last results\n\n${section}\n`;
  return readme.slice(0, a) + section + readme.slice(b + END.length);
}
