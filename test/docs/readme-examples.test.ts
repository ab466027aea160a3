// The curl examples of the README and of the guides in docs/ as a newcomer runs them: the server
// started, `atende demo` run, its `export` lines pasted into a shell, then each example pasted as it
// is. Every request they make must get the status the document shows (any 2xx where it shows none),
// with nothing to fill in by hand.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase } from '../helpers/db.js';
import { childEnv, CLI, ROOT, runNode, startBuiltServer, WAIT_MS, type Child } from '../helpers/processes.js';

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
      // Run as a newcomer does, without repeating the server's PORT: the demo finds the port in use.
      const demo = await runNode(CLI, ['demo'], { DATABASE_URL: fresh.url, HOST: '127.0.0.1' });
      assert.equal(demo.code, 0, demo.stderr);
      const exports = demo.stdout
        .split('\n')
        .filter((l) => l.startsWith('export '))
        .join('\n');
      // BASE follows the port the server listens on.
      assert.match(exports, new RegExp(`^export BASE=http://127\\.0\\.0\\.1:${port}$`, 'm'));
      for (const name of ['ACCOUNT_KEY', 'CHANNEL_KEY', 'CHANNEL_ID', 'CHAT_ID', 'TEAM_ID', 'USER_ID']) {
        assert.match(exports, new RegExp(`\\b${name}=`), name);
      }

      const blocks: { heading: string; code: string }[] = [];
      for (const file of await documents()) {
        const text = await readFile(path.join(ROOT, file), 'utf8');
        blocks.push(
          ...curlBlocks(text)
            .map((b) => ({ ...b, heading: `${file} ${b.heading}` }))
            // The bots walk-through needs a server that lets webhooks reach this machine and the example
            // bot running: test/examples/example-bot.test.ts runs it so.
            .filter((b) => b.heading !== 'README.md ### 15. Bots'),
        );
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

  it('the Quick start gives every setting it writes to the command that starts the server', async () => {
    const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
    const quickStart = readme.slice(readme.indexOf('\n## Quick start'), readme.indexOf('\n## A first tour'));
    const commands = [...quickStart.matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
      .map((m) => m[1]!)
      .filter((code) => /\bnpm start\b/.test(code));
    assert.ok(commands.length >= 2, 'the Quick start and its other-port command');
    assert.ok(
      commands.some((code) => /\bPORT=\d+/.test(code)),
      'a command that starts the server on another port',
    );
    // An `npm` that records how it was called and with which environment, in place of the real one.
    const bin = await mkdtemp(path.join(tmpdir(), 'atende-npm-'));
    try {
      await writeFile(
        path.join(bin, 'npm'),
        '#!/bin/sh\n{ echo "npm $*"; env; echo "--"; } >> "$NPM_CALLS"\n',
      );
      await chmod(path.join(bin, 'npm'), 0o755);
      for (const code of commands) {
        const calls = path.join(bin, 'calls');
        await rm(calls, { force: true });
        const proc = spawn('bash', ['-c', `set -euo pipefail\n${code}`], {
          cwd: bin,
          env: { ...childEnv({}), NPM_CALLS: calls, PATH: `${bin}:${process.env.PATH ?? ''}` },
        });
        assert.equal(await new Promise((resolve) => proc.on('exit', resolve)), 0, code);
        const start = (await readFile(calls, 'utf8'))
          .split('--\n')
          .find((call) => call.startsWith('npm start\n'));
        assert.ok(start, `npm start is not run: ${code}`);
        const env = new Map(
          start
            .split('\n')
            .slice(1)
            .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)] as const),
        );
        for (const [, name, value] of withoutComments(code).matchAll(/(?:^|\s)([A-Z][A-Z0-9_]*)=(\S+)/g)) {
          assert.equal(env.get(name!), value, `${name} does not reach npm start in: ${code}`);
        }
      }
    } finally {
      await rm(bin, { recursive: true, force: true });
    }
  });
});
