#!/usr/bin/env node
// Runs the cluster suite (test/cluster/*.test.ts): a PostgreSQL and a Redis of its own on free ports,
// three nodes of the built server behind nginx (its own process, config and prefix in a temporary
// directory; never the system service), driven through nginx. Also checks the deployment files
// (deploy/), and rolls the previous release's nodes (deploy/previous-release, built from git) to this
// tree. Never touches DATABASE_URL/REDIS_URL. The server is (re)built first when dist/ is stale.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { clearTimeout, setTimeout } from 'node:timers';
import path from 'node:path';
import { buildIfStale } from './build-if-stale.mjs';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const args = process.argv.slice(2);
const files =
  args.length > 0
    ? args
    : readdirSync(path.join(root, 'test', 'cluster'))
        .filter((f) => f.endsWith('.test.ts'))
        .sort()
        .map((f) => path.join('test', 'cluster', f));

buildIfStale({ server: true });

const child = spawn(
  process.execPath,
  // --test-force-exit: a client or socket left open by a failed test must not keep the run alive.
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=1',
    '--test-force-exit',
    '--test-timeout=300000',
    '--test-reporter=spec',
    ...files,
  ],
  { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
// A bound on the whole run, for CI: the suite takes about three minutes on two cores (the rolling
// upgrade builds the previous release once, about 20 s, then reuses it).
const watchdog = setTimeout(() => {
  console.error('test:cluster: still running after 10 minutes; stopping it');
  child.kill('SIGKILL');
}, 600_000);
const code = await new Promise((resolve) => child.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0))));
clearTimeout(watchdog);
process.exit(code);
