// A test reporter beside `spec` (scripts/test.mjs): at the end of a run, the time each file's tests
// took (its top-level suites and tests, their hooks included), slowest first, so the file where the
// suite's time goes is named instead of guessed.
import path from 'node:path';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const SHOWN = 15;

/** A file as the repository names it: the run executes a compiled mirror (compile-tests.mjs). */
const shown = (file) =>
  file.startsWith(root)
    ? path.relative(root, file)
    : path.relative(process.cwd(), file).replace(/\.js$/, '.ts');

export default async function* fileTimes(source) {
  const perFile = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { nesting, file, details } = event.data;
    if (nesting !== 0 || !file) continue;
    perFile.set(file, (perFile.get(file) ?? 0) + (details.duration_ms ?? 0));
  }
  if (perFile.size < 2) return;
  const rows = [...perFile].sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, ms]) => sum + ms, 0);
  yield `\n# time per file (${rows.length} files, ${(total / 1000).toFixed(0)} s in all), slowest first\n`;
  for (const [file, ms] of rows.slice(0, SHOWN)) {
    yield `#   ${(ms / 1000).toFixed(1).padStart(6)} s  ${shown(file)}\n`;
  }
}
