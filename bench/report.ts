import type { LoadResult } from './load.js';

export interface Row extends LoadResult {
  id: string;
  label: string;
  request: string;
  server: 'memory' | 'redis';
  /** req/s relative to the baseline row of the same run. */
  ratio: number | null;
  serverCpuUsPerRequest: number | null;
  dbCpuUsPerRequest: number | null;
  extraCpuUsOverBaseline: number | null;
  /** No non-2xx answers and no connection errors. */
  valid: boolean;
  target: { ratio: number; p99Ms: number; met: boolean } | null;
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
    totalsExact: boolean;
    countsExactAfterTransfers: boolean | null;
    countsExactAfterRestore: boolean;
  };
  rows: Row[];
}

const fmt = (n: number | null, digits = 0) => (n === null ? '–' : n.toFixed(digits));

/** The results as a Markdown table (also what the terminal shows). */
export function renderTable(report: BenchReport): string {
  const head =
    '| row | request | limiter | req/s | p50 ms | p99 ms | × baseline | server CPU µs/req | DB CPU µs/req | target |\n' +
    '|---|---|---|---:|---:|---:|---:|---:|---:|---|';
  const lines = report.rows.map((r) => {
    const target = r.target
      ? `${r.target.met ? 'met' : '**missed**'} (≥ ${r.target.ratio * 100} %, p99 ≤ ${r.target.p99Ms} ms)`
      : '';
    const bad = r.valid ? '' : ` ⚠ ${r.non2xx} non-2xx, ${r.errors} errors`;
    const extra =
      r.extraCpuUsOverBaseline !== null && r.id.startsWith('limiter')
        ? ` (+${r.extraCpuUsOverBaseline})`
        : '';
    return (
      `| ${r.label}${bad} | \`${r.request}\` | ${r.server} | ${r.rps} | ${fmt(r.p50)} | ${fmt(r.p99)} | ` +
      `${fmt(r.ratio, 2)} | ${fmt(r.serverCpuUsPerRequest)}${extra} | ${fmt(r.dbCpuUsPerRequest)} | ${target} |`
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
      `transfers: ${yes(c.countsExactAfterTransfers)}; after restoring the transferred chats: ${yes(c.countsExactAfterRestore)}.`,
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
