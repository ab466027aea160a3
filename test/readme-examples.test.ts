// The curl examples of the README and of the guides in docs/ as a newcomer runs them: the server
// started, `atende demo` run, its `export` lines pasted into a shell, then each example pasted as it
// is. Every request they make must get the status the document shows (any 2xx where it shows none),
// with nothing to fill in by hand.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase } from './helpers/db.js';
import { childEnv, CLI, ROOT, runNode, startBuiltServer, WAIT_MS, type Child } from './helpers/processes.js';

const TEST_TIMEOUT = 4 * WAIT_MS;

/** The documents whose examples run, in this order: the README (its tour), then the guides. */
async function documents(): Promise<string[]> {
  const guides = (await readdir(path.join(ROOT, 'docs'))).filter((f) => f.endsWith('.md')).sort();
  return ['README.md', ...guides.map((f) => `docs/${f}`)];
}

/**
 * The fenced `sh` blocks of a document that make requests, with the heading they are under; a block
 * indented inside a list item counts too, read without its indentation.
 */
function curlBlocks(doc: string): { heading: string; code: string }[] {
  const blocks: { heading: string; code: string }[] = [];
  let heading = '';
  let fenced = false;
  const lines = doc.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const sh = /^(\s*)```sh$/.exec(line);
    if (!sh && /^\s*```/.test(line)) fenced = !fenced;
    if (!fenced && line.startsWith('#')) heading = line;
    if (!sh) continue;
    const indent = sh[1]!.length;
    const body: string[] = [];
    for (i++; i < lines.length && lines[i]!.trim() !== '```'; i++) body.push(lines[i]!.slice(indent));
    const code = body.join('\n');
    if (/(^|\$\(|\s)curl\s/m.test(withoutComments(code))) blocks.push({ heading, code });
  }
  return blocks;
}

/**
 * Runs `code` in bash after `exports`, every curl writing its status to stderr as `HTTP <code>`.
 * `set -e`: a step that fails (an answer without the id the next step takes) stops the block there.
 */
function runShell(
  exports: string,
  code: string,
  cwd: string,
): Promise<{ exit: number | null; stdout: string; stderr: string }> {
  const script = [
    'set -euo pipefail',
    exports,
    // Last, so that it wins over an example's own -w.
    `curl() { command curl "$@" -w '%{stderr}HTTP %{http_code}\\n'; }`,
    code,
  ].join('\n');
  const proc = spawn('bash', ['-c', script], { cwd, env: childEnv({}) });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  proc.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  return new Promise((resolve) => proc.on('exit', (exit) => resolve({ exit, stdout, stderr })));
}

/** Shell code without its comments (a `#` that starts a line or follows a space). */
const withoutComments = (code: string) =>
  code
    .split('\n')
    .map((l) => l.replace(/(^|\s)#.*$/, ''))
    .join('\n');

/**
 * The status each `curl` of a block should get, in order: the one a comment after it names
 * (`# → 202 …`, `# {"statusCode":400,…}`), else null for any 2xx.
 */
function expectedStatuses(code: string): (number | null)[] {
  const out: (number | null)[] = [];
  for (const line of code.split('\n')) {
    const command = withoutComments(line);
    if (/(^|\$\(|\s)curl\s/.test(command)) out.push(null);
    const comment = line.slice(command.length);
    const named = /→\s*(\d{3})\b/.exec(comment) ?? /"statusCode":\s*(\d{3})/.exec(comment);
    if (named && out.length > 0 && out[out.length - 1] === null) out[out.length - 1] = Number(named[1]);
  }
  return out;
}

describe('README and guide examples', () => {
  let fresh: { url: string; drop: () => Promise<void> };
  let server: { child: Child; url: string } | undefined;
  let cwd: string;
  before(async () => {
    fresh = await createTestDatabase();
    cwd = await mkdtemp(path.join(tmpdir(), 'atende-readme-'));
  });
  after(async () => {
    server?.child.proc.kill('SIGKILL');
    await server?.child.exited;
    await fresh?.drop();
    await rm(cwd, { recursive: true, force: true });
  });

  it(
    'run as pasted after the demo, every request answered as the document says',
    { timeout: TEST_TIMEOUT },
    async () => {
      server = await startBuiltServer({ DATABASE_URL: fresh.url });
      const port = new URL(server.url).port;
      const demo = await runNode(CLI, ['demo'], { DATABASE_URL: fresh.url, HOST: '127.0.0.1', PORT: port });
      assert.equal(demo.code, 0, demo.stderr);
      const exports = demo.stdout
        .split('\n')
        .filter((l) => l.startsWith('export '))
        .join('\n');
      // BASE follows the PORT in use.
      assert.match(exports, new RegExp(`^export BASE=http://127\\.0\\.0\\.1:${port}$`, 'm'));
      for (const name of ['ACCOUNT_KEY', 'CHANNEL_KEY', 'CHANNEL_ID', 'CHAT_ID', 'TEAM_ID', 'USER_ID']) {
        assert.match(exports, new RegExp(`\\b${name}=`), name);
      }

      const blocks: { heading: string; code: string }[] = [];
      for (const file of await documents()) {
        const text = await readFile(path.join(ROOT, file), 'utf8');
        blocks.push(...curlBlocks(text).map((b) => ({ ...b, heading: `${file} ${b.heading}` })));
      }
      // The README's tour and the guides' examples: fewer means examples were lost, not moved.
      assert.ok(blocks.length >= 11, `only ${blocks.length} curl blocks found`);
      for (const file of ['README.md', 'docs/channel-api.md', 'docs/agent-api.md', 'docs/webhooks.md']) {
        assert.ok(
          blocks.some((b) => b.heading.startsWith(`${file} `)),
          `no example runs from ${file}`,
        );
      }
      // The demo's own commands too: they promise the same.
      const demoCommands = demo.stdout.slice(demo.stdout.lastIndexOf('export AUTH='));
      // The demo's commands first, as printed; then each document's, in its order.
      for (const { heading, code } of [{ heading: 'npm run demo', code: demoCommands }, ...blocks]) {
        const res = await runShell(exports, code, cwd);
        const where = `${heading}\n${code}\n--- stdout ---\n${res.stdout}\n--- stderr ---\n${res.stderr}`;
        assert.equal(res.exit, 0, where);
        const statuses = [...res.stderr.matchAll(/^HTTP (\d{3})$/gm)].map((m) => Number(m[1]));
        const expected = expectedStatuses(code);
        assert.equal(statuses.length, expected.length, `requests answered: ${where}`);
        statuses.forEach((status, i) => {
          const want = expected[i];
          if (want === null || want === undefined)
            assert.ok(status >= 200 && status < 300, `HTTP ${status}: ${where}`);
          else assert.equal(status, want, `request ${i + 1}: ${where}`);
        });
        // No variable left for the reader to set.
        assert.doesNotMatch(res.stderr, /unbound variable/, where);
      }
    },
  );
});
