import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './ports.js';
import { ROOT } from './processes.js';

/**
 * nginx as a process of the test's own (never the system service): its own prefix, main config, logs
 * and temp directories in a temporary directory, on a free 127.0.0.1 port, running the site file
 * operators install (deploy/nginx/atende.conf) with only the upstream addresses and the listen port
 * replaced. Needs the `nginx` binary (Debian package nginx).
 */

export const SITE_CONF = path.join(ROOT, 'deploy', 'nginx', 'atende.conf');

export function nginxBinary(): string | null {
  for (const p of ['/usr/sbin/nginx', '/usr/local/sbin/nginx', '/usr/local/nginx/sbin/nginx']) {
    if (existsSync(p)) return p;
  }
  const which = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim() : null;
}

/** The site file with these upstreams (host:port lists) and listen address. */
export function renderSite(site: string, opts: { listen: string; api: string[]; gateway: string[] }): string {
  // The server lines are replaced; their parameters (e.g. max_fails) are kept, as written.
  const replaceUpstream = (text: string, name: string, addrs: string[]) => {
    const re = new RegExp(`(upstream ${name} \\{[\\s\\S]*?)((?:\\n    server [^;]+;)+)`);
    const m = re.exec(text);
    if (!m) throw new Error(`no upstream ${name} with server lines in the site file`);
    const params = /server \S+([^;]*);/.exec(m[2]!)![1]!;
    const lines = addrs.map((a) => `\n    server ${a}${params};`).join('');
    return text.replace(re, (_all, head: string) => `${head}${lines}`);
  };
  let out = replaceUpstream(site, 'atende_api', opts.api);
  out = replaceUpstream(out, 'atende_gateway', opts.gateway);
  if (!/\n {4}listen 80;/.test(out)) throw new Error('no `listen 80;` in the site file');
  return out.replace(/\n {4}listen 80;/, `\n    listen ${opts.listen};`);
}

/** A main nginx.conf that keeps everything under `prefix` and includes `site`. */
export function mainConf(prefix: string, site: string): string {
  const p = (f: string) => path.join(prefix, f);
  return [
    'worker_processes 1;',
    `pid ${p('nginx.pid')};`,
    `error_log ${p('error.log')} info;`,
    'events { worker_connections 1024; }',
    'http {',
    `  access_log ${p('access.log')};`,
    `  client_body_temp_path ${p('tmp/body')};`,
    `  proxy_temp_path ${p('tmp/proxy')};`,
    `  fastcgi_temp_path ${p('tmp/fastcgi')};`,
    `  uwsgi_temp_path ${p('tmp/uwsgi')};`,
    `  scgi_temp_path ${p('tmp/scgi')};`,
    `  include ${site};`,
    '}',
    '',
  ].join('\n');
}

/** `nginx -t` of `site` inside a main config of its own: exit code and output. */
export async function checkSite(site: string): Promise<{ ok: boolean; output: string }> {
  const bin = nginxBinary();
  if (!bin) return { ok: false, output: 'nginx is not installed' };
  const dir = await mkdtemp(path.join(tmpdir(), 'atende-nginx-t-'));
  try {
    await mkdir(path.join(dir, 'tmp'));
    await writeFile(path.join(dir, 'nginx.conf'), mainConf(dir, site));
    const r = spawnSync(bin, ['-t', '-p', dir, '-c', path.join(dir, 'nginx.conf')], { encoding: 'utf8' });
    return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface OwnNginx {
  url: string;
  accessLog(): string;
  errorLog(): string;
  close(): Promise<void>;
}

export async function startNginx(opts: { api: string[]; gateway: string[] }): Promise<OwnNginx> {
  const bin = nginxBinary();
  if (!bin) throw new Error('nginx is not installed (apt-get install -y nginx)');
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'atende-nginx-'));
  await mkdir(path.join(dir, 'tmp'));
  const site = path.join(dir, 'atende.conf');
  await writeFile(
    site,
    renderSite(readFileSync(SITE_CONF, 'utf8'), { listen: `127.0.0.1:${port}`, ...opts }),
  );
  const conf = path.join(dir, 'nginx.conf');
  await writeFile(conf, mainConf(dir, site));
  // In the foreground (daemon off): the test owns the process and its exit.
  const proc: ChildProcess = spawn(bin, ['-p', dir, '-c', conf, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const killOnExit = () => proc.kill('SIGKILL');
  process.once('exit', killOnExit);
  const read = (f: string) => (existsSync(path.join(dir, f)) ? readFileSync(path.join(dir, f), 'utf8') : '');
  const deadline = Date.now() + 15_000;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => (s.end(), resolve(true)));
      s.once('error', () => resolve(false));
    });
    if (up) break;
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`nginx did not start:\n${stderr}\n${read('error.log')}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    accessLog: () => read('access.log'),
    errorLog: () => read('error.log'),
    close: async () => {
      // SIGQUIT: a graceful stop; the test's clients are closed by then.
      if (proc.exitCode === null) proc.kill('SIGQUIT');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
      process.off('exit', killOnExit);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
