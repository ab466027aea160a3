// Transpiles the sources and the tests (src/, test/) to JavaScript once per run, so that each test
// file's process loads plain JavaScript instead of compiling TypeScript through a loader hook: tsx's
// hook costs every test process about a second of CPU, the whole suite a minute and a half.
//
// The output is a mirror of the repository in a directory of the run's own (two runs, or two
// checkouts sharing node_modules, never write over each other): each .ts file becomes
// a .js file beside a link to its source (what a test reads as a file — the template database's
// hash, the documents' check — stays the source), and every other top-level entry (README.md,
// docs/, dist/, web/, node_modules/, package.json…) is a link to the real one, so paths a test builds from
// `import.meta.url` lead where they would in the repository. Types are not checked here
// (`npm run typecheck` does); esbuild is what tsx itself uses, so the code runs the same.
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const COMPILED = ['src', 'test'];
/** Every file under dir (relative to the root), skipping what no test loads. */
function filesUnder(dir) {
  const out = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(rel));
    else out.push(rel);
  }
  return out;
}

/** Builds the mirror and answers its directory (the caller removes it); a test file `test/x/y.test.ts` runs as `<root>/test/x/y.test.js`. */
export async function compileTests() {
  const mirror = mkdtempSync(path.join(tmpdir(), 'atende-test-js-'));
  // Readable by all: the suites' own PostgreSQL runs as another user, through these links.
  chmodSync(mirror, 0o755);
  for (const entry of readdirSync(root)) {
    if (entry === '.git' || COMPILED.includes(entry)) continue;
    symlinkSync(path.join(root, entry), path.join(mirror, entry));
  }
  const sources = [];
  for (const dir of COMPILED) {
    for (const rel of filesUnder(dir)) {
      mkdirSync(path.join(mirror, path.dirname(rel)), { recursive: true });
      symlinkSync(path.join(root, rel), path.join(mirror, rel));
      if (rel.endsWith('.ts') && !rel.endsWith('.d.ts')) sources.push(path.join(root, rel));
    }
  }
  await build({
    entryPoints: sources,
    outbase: root,
    outdir: mirror,
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
    tsconfig: path.join(root, 'tsconfig.json'),
  });
  return mirror;
}
