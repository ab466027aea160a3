import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkSite, SITE_CONF } from '../helpers/nginx.js';
import { startOwnPostgres, type OwnPostgres } from '../helpers/own-postgres.js';
import { ROOT, startBuiltServer, type Child } from '../helpers/processes.js';

// The deployment files (deploy/) against the server as built: the dashboard and the alert rules
// name only metrics a node exposes (a real scrape of /metrics), and nginx accepts the site file.

const read = (...p: string[]) => readFileSync(path.join(ROOT, ...p), 'utf8');
const NAME = /\b(?:atende|nodejs|process)_[a-z0-9_]+\b/g;

/**
 * Sample names of a Prometheus text exposition, from its `# TYPE` lines (a labelled counter with no
 * samples yet is declared all the same): a histogram gives _bucket, _sum and _count.
 */
function sampleNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (!m) continue;
    const [name, type] = [m[1]!, m[2]!];
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(`${name}${s}`);
    else names.add(name);
  }
  return names;
}

/** The PromQL expressions of the dashboard's panels. */
function dashboardExprs(): string[] {
  const d = JSON.parse(read('deploy', 'grafana', 'atende-dashboard.json')) as {
    panels: Array<{ targets?: Array<{ expr: string }> }>;
    templating: { list: Array<{ query?: unknown }> };
  };
  return [
    ...d.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)),
    ...d.templating.list.map((v) => (typeof v.query === 'string' ? v.query : '')),
  ];
}

/** The `expr:` values of the alert rules (single-line or folded blocks). */
function alertExprs(): string[] {
  const text = read('deploy', 'prometheus', 'alerts.yml');
  const exprs: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)expr:\s*(.*)$/.exec(lines[i]!);
    if (!m) continue;
    if (m[2] !== '|') {
      exprs.push(m[2]!);
      continue;
    }
    const block: string[] = [];
    while (i + 1 < lines.length && (lines[i + 1]!.startsWith(`${m[1]!}  `) || lines[i + 1]!.trim() === '')) {
      block.push(lines[++i]!);
    }
    exprs.push(block.join('\n'));
  }
  return exprs;
}

describe('deployment files', () => {
  let pg: OwnPostgres | undefined;
  let node: Child | undefined;
  let exposed = new Set<string>();

  before(async () => {
    pg = await startOwnPostgres();
    const started = await startBuiltServer({
      DATABASE_URL: pg.url(),
      ATENDE_JWT_SECRET: 'deploy-files-secret-deploy-files-secret-0123',
      LOG_LEVEL: 'info',
    });
    node = started.child;
    // One answered request, so that the request histogram has samples.
    await fetch(`${started.url}/healthz`);
    const res = await fetch(`${started.url}/metrics`);
    assert.equal(res.status, 200, 'a loopback scrape is allowed');
    exposed = sampleNames(await res.text());
  });
  after(async () => {
    node?.proc.kill('SIGTERM');
    await node?.exited;
    await pg?.destroy();
  });

  it('the dashboard names only metrics the server exposes, and every Atende metric', () => {
    const exprs = dashboardExprs();
    assert.ok(exprs.length >= 10);
    const named = new Set(exprs.flatMap((e) => e.match(NAME) ?? []));
    assert.deepEqual(
      [...named].filter((n) => !exposed.has(n)),
      [],
      'unknown metrics in the dashboard',
    );
    // Each Atende metric family (histograms by their _count) is on some panel.
    const families = [...exposed].filter((n) => n.startsWith('atende_') && !/_(bucket|sum)$/.test(n));
    assert.deepEqual(
      families.filter((f) => !named.has(f)),
      [],
      'Atende metrics missing from the dashboard',
    );
  });

  it('the alert rules name only metrics the server exposes', () => {
    const exprs = alertExprs();
    assert.ok(exprs.length >= 8, `alert expressions found: ${exprs.length}`);
    const named = new Set(exprs.flatMap((e) => e.match(NAME) ?? []));
    assert.ok(named.size > 0);
    assert.deepEqual(
      [...named].filter((n) => !exposed.has(n)),
      [],
      'unknown metrics in the alerts',
    );
    for (const e of exprs) assert.match(e, /job="atende"/, `every rule is scoped to the job: ${e}`);
  });

  it('nginx accepts the site file', async () => {
    const r = await checkSite(SITE_CONF);
    assert.ok(r.ok, r.output);
  });
});
