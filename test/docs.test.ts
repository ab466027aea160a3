import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DATABASE_UNAVAILABLE_MESSAGE } from '../src/http/errors.js';
import { CHAT_BUSY, TEAM_NOT_FOUND } from '../src/modules/chats/chats.service.js';
import { INVALID_API_TOKEN, MISSING_CHANNEL_KEY } from '../src/modules/channel-api/channel-keys.js';

// The repository's documents are the ones a newcomer has: code and docs cite only files of the
// repository, every `docs/…` file they cite exists, and the Channel API reference quotes the messages
// clients match on exactly as the code answers them.

const ROOT = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
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
].filter((f) => f !== fileURLToPath(import.meta.url));

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
      for (const m of readFileSync(f, 'utf8').matchAll(/\bdocs\/[\w.-]+\.md\b/g))
        if (!existsSync(path.join(ROOT, m[0]))) missing.add(`${path.relative(ROOT, f)}: ${m[0]}`);
    assert.deepEqual([...missing], []);
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
