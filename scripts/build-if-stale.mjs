// Builds what a test run starts as a separate process — the server in dist/ (`node dist/src/main.js`,
// the `atende` command) and the console in web/dist — when it is missing or older than its sources,
// so the test scripts never run yesterday's build against today's code and a fresh checkout needs no
// `npm run build` first. After `npm ci` (which builds) nothing is rebuilt. The server build is
// incremental (dist/.tsbuildinfo): after a small change it takes seconds, not a full compile.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const at = (...p) => path.join(root, ...p);

/** Newest modification time (ms) of the files under these paths; 0 when none exists. */
function newest(paths) {
  let max = 0;
  const visit = (p) => {
    if (!existsSync(p)) return;
    const s = statSync(p);
    if (s.isDirectory()) for (const e of readdirSync(p)) visit(path.join(p, e));
    else max = Math.max(max, s.mtimeMs);
  };
  for (const p of paths) visit(p);
  return max;
}

const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);

const SERVER_SOURCES = [at('src'), at('tsconfig.json'), at('tsconfig.build.json'), at('package-lock.json')];
const SERVER_STAMP = at('dist', '.build-stamp');
const WEB_SOURCES = [
  at('web', 'src'),
  at('web', 'public'),
  at('web', 'index.html'),
  at('web', 'vite.config.ts'),
  at('web', 'tsconfig.json'),
  // The console imports the server's list of media types.
  at('src', 'providers', 'whatsapp-cloud', 'media-types.ts'),
  at('package-lock.json'),
];

/** When the server was last built: `npm run build` rewrites every file, an incremental build the stamp. */
const serverBuiltAt = () =>
  existsSync(at('dist', 'src', 'main.js'))
    ? Math.max(mtime(SERVER_STAMP), mtime(at('dist', 'src', 'main.js')))
    : 0;

function run(what, args) {
  console.log(`# ${what}`);
  const started = Date.now();
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.error(`# ${what} failed`);
    process.exit(r.status ?? 1);
  }
  console.log(`# ${what}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return started;
}

/** Builds the server and/or the console where their sources changed since their last build. */
export function buildIfStale({ server = false, web = false } = {}) {
  if (server && newest(SERVER_SOURCES) > serverBuiltAt()) {
    const started = run('building the server (dist/ is missing or older than src/)', [
      at('node_modules', 'typescript', 'bin', 'tsc'),
      '-p',
      'tsconfig.build.json',
      '--incremental',
      '--tsBuildInfoFile',
      at('dist', '.tsbuildinfo'),
    ]);
    // The build's start: a source saved while it ran is newer, and builds again next time.
    writeFileSync(SERVER_STAMP, '');
    utimesSync(SERVER_STAMP, started / 1000, started / 1000);
  }
  if (web && newest(WEB_SOURCES) > mtime(at('web', 'dist', 'index.html'))) {
    run('building the console (web/dist is missing or older than web/)', [
      at('node_modules', 'vite', 'bin', 'vite.js'),
      'build',
      '--config',
      'web/vite.config.ts',
      '--logLevel',
      'warn',
    ]);
  }
}

/**
 * What these test files start as separate processes: the built server (through
 * test/helpers/processes.ts or fault-cluster.ts) and the built console (its directory, `consoleDir`).
 * A file that names neither runs from the sources alone, through tsx.
 */
export function buildsNeededBy(files, read) {
  const needs = { server: false, web: false };
  for (const f of files) {
    const text = read(f);
    if (/\b(MAIN|CLI|startBuiltServer|spawnNode|runNode)\b|fault-cluster/.test(text)) needs.server = true;
    if (/\bconsoleDir\b/.test(text)) needs.web = true;
  }
  return needs;
}
