#!/usr/bin/env node
// Runs the fault suite (test/faults/*.test.ts): each file starts a PostgreSQL and a Redis of its own
// on free ports, two nodes of the built server and a fake Graph API, drives a send load and injects
// one fault. It never touches the PostgreSQL or Redis of DATABASE_URL/REDIS_URL. One file at a time:
// each holds two nodes and two servers. Prints the figures measured as a table at the end
// (docs/reliability.md explains them). The server is (re)built first when dist/ is missing or stale.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildIfStale } from './build-if-stale.mjs';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const args = process.argv.slice(2);
const files =
  args.length > 0
    ? args
    : readdirSync(path.join(root, 'test', 'faults'))
        .filter((f) => f.endsWith('.test.ts'))
        .sort()
        .map((f) => path.join('test', 'faults', f));

buildIfStale({ server: true });

const tmp = mkdtempSync(path.join(tmpdir(), 'atende-faults-'));
const results = path.join(tmp, 'results.jsonl');
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...files],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test', ATENDE_FAULT_RESULTS: results } },
);
const code = await new Promise((resolve) => child.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0))));

const rows = existsSync(results)
  ? readFileSync(results, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
  : [];
rmSync(tmp, { recursive: true, force: true });
if (rows.length > 0) {
  const s = (ms) => (ms === null || ms === undefined ? '—' : `${(ms / 1000).toFixed(1)} s`);
  const table = [
    [
      'scenario',
      'load',
      'fault',
      'requests',
      'accepted',
      'delivered',
      'lost',
      'duplicated',
      'recovery',
      'drain',
    ],
    ...rows.map((r) => [
      r.scenario,
      r.load,
      r.fault,
      String(r.requests),
      String(r.accepted),
      String(r.delivered),
      String(r.lost),
      String(r.duplicated),
      s(r.recoveryMs),
      s(r.drainMs),
    ]),
  ];
  const widths = table[0].map((_, i) => Math.max(...table.map((row) => row[i].length)));
  const line = (row) => `| ${row.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  console.log('\nFault suite results');
  console.log(line(table[0]));
  console.log(`| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`);
  for (const row of table.slice(1)) console.log(line(row));
  for (const r of rows) {
    console.log(`- ${r.scenario}: ${r.notes}; test process stalled at most ${r.loopDelayMaxMs} ms`);
  }
}
process.exit(code);
