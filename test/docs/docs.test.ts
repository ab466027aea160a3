import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DATABASE_UNAVAILABLE_MESSAGE } from '../../src/http/errors.js';
import { CHAT_BUSY } from '../../src/modules/chats/held-change.js';
import { TEAM_NOT_FOUND } from '../../src/modules/teams/teams.service.js';
import { INVALID_API_TOKEN, MISSING_CHANNEL_KEY } from '../../src/modules/channels/channel-keys.js';

// The repository's documents are the ones a newcomer has: code and docs cite only files of the
// repository, every `docs/…` file they cite exists, every link between the documents leads somewhere
// (the file, and the heading it names), and the Channel API reference quotes the messages clients
// match on exactly as the code answers them.

const ROOT = path.dirname(path.dirname(path.dirname(fileURLToPath(import.meta.url))));
const SKIP = new Set(['node_modules', 'dist', '.git', 'results']);
const TEXT = /\.(ts|tsx|mjs|js|md|css|html|json|yaml|yml)$/;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    if (SKIP.has(entry)) continue;
    const p = path.join(dir, entry);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else if (TEXT.test(entry)) out.push(p);
  }
  return out;
}

const files = [
  ...['src', 'test', 'web', 'bench', 'scripts', 'docs'].flatMap((d) => filesUnder(path.join(ROOT, d))),
  path.join(ROOT, 'README.md'),
]
  .filter((f) => !/\.js$/.test(f) || !existsSync(f.replace(/\.js$/, '.ts'))) // compiled beside its source (npm test)
  .filter((f) => f.replace(/\.js$/, '.ts') !== fileURLToPath(import.meta.url).replace(/\.js$/, '.ts'));

/** The lines of a Markdown document outside its fenced code blocks. */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced) return true;
    return false;
  });
}

/** The targets of a document's inline links, `[text](target)`, outside code. */
function linksOf(markdown: string): string[] {
  const text = prose(markdown)
    .join('\n')
    .replace(/`[^`]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/** The anchors a document's headings get, as GitHub makes them (repeats numbered -1, -2, …). */
function headingSlugs(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const slugs = new Set<string>();
  for (const line of prose(markdown)) {
    const m = /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    const base = m[1]!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    slugs.add(n === 0 ? base : `${base}-${n}`);
  }
  return slugs;
}

describe('docs', () => {
  it('code and docs cite no document outside the repository', () => {
    const outside = /\bDESIGN\b|WHATSAPP\.md|CONTRACT\.md|§/;
    const found = files.flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          outside.test(line) ? [`${path.relative(ROOT, f)}:${i + 1}: ${line.trim()}`] : [],
        ),
    );
    assert.deepEqual(found, []);
  });

  it('every docs/ file cited exists', () => {
    const missing = new Set<string>();
    for (const f of files)
      for (const m of readFileSync(f, 'utf8').matchAll(/\bdocs\/[\w./-]+\.md\b/g))
        if (!existsSync(path.join(ROOT, m[0]))) missing.add(`${path.relative(ROOT, f)}: ${m[0]}`);
    assert.deepEqual([...missing], []);
  });

  it('every link between the documents leads to a file and a heading that exist', () => {
    const documents = [...files.filter((f) => f.endsWith('.md')), path.join(ROOT, 'bench', 'README.md')];
    const broken: string[] = [];
    for (const f of documents) {
      for (const target of linksOf(readFileSync(f, 'utf8'))) {
        if (/^[a-z]+:/i.test(target)) continue; // http:, https:, mailto:
        const [file = '', anchor] = target.split('#');
        const to = file === '' ? f : path.resolve(path.dirname(f), decodeURIComponent(file));
        const where = `${path.relative(ROOT, f)}: ${target}`;
        if (!existsSync(to)) broken.push(`${where} (no such file)`);
        else if (anchor && statSync(to).isFile() && !headingSlugs(readFileSync(to, 'utf8')).has(anchor))
          broken.push(`${where} (no such heading)`);
      }
    }
    assert.deepEqual(broken, []);
  });

  it('the Channel API reference quotes the messages as the code answers them', () => {
    const reference = readFileSync(path.join(ROOT, 'docs', 'channel-api.md'), 'utf8');
    for (const message of [
      INVALID_API_TOKEN,
      MISSING_CHANNEL_KEY,
      CHAT_BUSY.base,
      TEAM_NOT_FOUND.base,
      DATABASE_UNAVAILABLE_MESSAGE.base,
    ])
      assert.ok(reference.includes(`\`${message}\``), message);
  });
});
