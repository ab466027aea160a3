#!/usr/bin/env node
// Runs the browser tests (test/e2e/*.test.ts): each file starts the built server on an embedded
// PostgreSQL of its own and drives Debian's Chromium. The server and the console are (re)built first
// when missing or older than their sources.
// One file at a time: each holds a server, a database and a browser.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { buildIfStale } from './build-if-stale.mjs';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const chromium = process.env.ATENDE_CHROMIUM ?? '/usr/bin/chromium';
const args = process.argv.slice(2);
const files =
  args.length > 0
    ? args
    : readdirSync(path.join(root, 'test', 'e2e'))
        .filter((f) => f.endsWith('.test.ts'))
        .sort()
        .map((f) => path.join('test', 'e2e', f));

if (!existsSync(chromium)) {
  console.error(`${chromium} is missing: install it (apt-get install chromium) or set ATENDE_CHROMIUM`);
  process.exit(1);
}
buildIfStale({ server: true, web: true });

const child = spawn(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=1', '--test-reporter=spec', ...files],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
const code = await new Promise((resolve) => child.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0))));
process.exit(code);
