import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from './processes.js';

/**
 * The previous release (its commit in deploy/previous-release) built as an operator deploys it: its
 * tree from `git archive`, its dependencies, `tsc` as its `npm run build` does, run as its
 * `npm start` does (`node dist/src/main.js`). Its dependencies are this tree's node_modules when the
 * release's own are the same versions (checked against both lock files), since `npm ci` would need
 * the network; its web console is not built (the test drives the API). Kept in the system's temporary
 * directory by commit, so a second run reuses it.
 */
export interface PreviousRelease {
  commit: string;
  /** `node <main>` starts one of its nodes. */
  main: string;
  /** Its migrations' names, in order: the schema its nodes expect. */
  migrations: string[];
}

export function previousReleaseCommit(): string {
  const lines = readFileSync(path.join(ROOT, 'deploy', 'previous-release'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const commit = lines[0] ?? '';
  if (!/^[0-9a-f]{40}$/.test(commit)) {
    throw new Error(`deploy/previous-release must hold a full commit id, not "${commit}"`);
  }
  return commit;
}

function git(args: string[], input?: Buffer): Buffer {
  const r = spawnSync('git', ['-C', ROOT, ...args], { maxBuffer: 1 << 30, input });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.toString().trim()}`);
  return r.stdout;
}

/** Lock-file versions of the packages a package.json names directly. */
function directVersions(pkg: string, lock: string): Map<string, string | undefined> {
  const manifest = JSON.parse(pkg) as {
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const packages = (JSON.parse(lock) as { packages: Record<string, { version?: string }> }).packages;
  const names = [...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.devDependencies ?? {})];
  return new Map(names.map((n) => [n, packages[`node_modules/${n}`]?.version]));
}

/**
 * Points the release's tree at this tree's node_modules (their versions were checked to match), at
 * every use: a tree built earlier may link to a checkout that is gone since (another clone, a removed
 * work tree), and the release would not start.
 */
async function linkModules(tree: string): Promise<void> {
  const link = path.join(tree, 'node_modules');
  await rm(link, { force: true });
  await symlink(path.join(ROOT, 'node_modules'), link, 'dir');
}

export async function buildPreviousRelease(): Promise<PreviousRelease> {
  const commit = previousReleaseCommit();
  const has = spawnSync('git', ['-C', ROOT, 'cat-file', '-e', `${commit}^{commit}`]);
  if (has.status !== 0) {
    // CI clones with history; a shallow clone lacks the release: fail, saying how to get it.
    throw new Error(
      `the previous release ${commit} (deploy/previous-release) is not in this clone: ` +
        'fetch the history (`git fetch --unshallow`, or clone without --depth)',
    );
  }

  // Its direct dependencies at the versions it was released with, or the test would run another program.
  const theirs = directVersions(
    git(['show', `${commit}:package.json`]).toString(),
    git(['show', `${commit}:package-lock.json`]).toString(),
  );
  const ours = directVersions(
    await readFile(path.join(ROOT, 'package.json'), 'utf8'),
    await readFile(path.join(ROOT, 'package-lock.json'), 'utf8'),
  );
  const differ = [...theirs]
    .filter(([name, version]) => ours.get(name) !== version)
    .map(([name, version]) => `${name} ${version ?? '?'} (here ${ours.get(name) ?? 'none'})`);
  if (differ.length > 0) {
    throw new Error(
      `the previous release's dependencies differ from this tree's: ${differ.join(', ')}; ` +
        'this test cannot borrow node_modules for it (install its own with `npm ci` in its tree)',
    );
  }

  const dir = path.join(tmpdir(), `atende-release-${commit}`);
  const main = path.join(dir, 'dist', 'src', 'main.js');
  const migrations = git(['ls-tree', '--name-only', `${commit}`, 'src/db/migrations/'])
    .toString()
    .split('\n')
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.basename(f, '.ts'))
    .sort();
  if (existsSync(path.join(dir, '.built'))) {
    await linkModules(dir);
    return { commit, main, migrations };
  }

  await mkdir(tmpdir(), { recursive: true });
  const staging = await mkdtemp(path.join(tmpdir(), 'atende-release-build-'));
  try {
    const tar = spawnSync('tar', ['-x', '-C', staging], {
      input: git(['archive', '--format=tar', commit]),
      maxBuffer: 1 << 20,
    });
    if (tar.status !== 0) throw new Error(`tar: ${tar.stderr.toString().trim()}`);
    await linkModules(staging);
    const started = Date.now();
    const tsc = spawnSync(
      process.execPath,
      [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
      { cwd: staging, maxBuffer: 1 << 26 },
    );
    if (tsc.status !== 0) {
      throw new Error(`building ${commit}: ${tsc.stdout.toString().slice(-3000)}${tsc.stderr.toString()}`);
    }
    await writeFile(path.join(staging, '.built'), `${commit} built in ${Date.now() - started} ms\n`);
    // Whole or not at all: a run stopped halfway leaves no tree that looks built.
    await rm(dir, { recursive: true, force: true });
    await rename(staging, dir);
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    throw err;
  }
  return { commit, main, migrations };
}
