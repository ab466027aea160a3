/**
 * `npm run bench`: seeds (or reuses) a benchmark database with 1,000,000 chats and measures the Channel
 * API with autocannon against a server running in a separate process on 127.0.0.1. See bench/README.md.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import * as prettier from 'prettier';
import { measure, round, type LoadResult, type LoadSpec } from './load.js';
import { renderReadmeSection, renderTable, type BenchReport, type LiveRow, type Row } from './report.js';
import {
  backendPids,
  compactCounts,
  countsExact,
  exactLabelTotal,
  referenceMessageSearch,
  HISTORY_CHATS,
  ensureSeeded,
  exactTotal,
  restoreTransferPool,
  saveTransferPool,
  SEED_VERSION,
  serverFacts,
  withClient,
  type Seeded,
} from './seed.js';
import { buildServer, killAllServers, startServerProcess, type ServerUnderTest } from './server.js';
import { BenchGraph } from './fake-graph.js';
import { createLiveAccount, dropLiveAccount, GRAPH_TOKEN, type LiveAccount } from './live.js';
import { GATEWAY_ROWS, login, runGatewayPhase } from './gateway.js';
import { runSendPhase, SEND_ROWS } from './send.js';
import { FLOW_ROW, runFlowRow } from './flows.js';
import { runWebhooksRow } from './webhooks.js';
import { MEDIA_ROW, runMediaRow } from './media.js';
import { BULK_ROW, runBulkRow } from './bulk.js';
import { ASSIGN_ROW, runAssignRow } from './assign.js';
import { REPORT_ROW, ROLLUP_ROW, runReportRow, runRollupRow } from './reports.js';
import { BOARD_ROW, runBoardRow } from './board.js';
import { CANNED_ROW, checkPicker, ensureCanned, loginAgents, runCannedRow } from './canned.js';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const resultsDir = path.join(root, 'bench', 'results');

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '50' },
    chats: { type: 'string', default: '1000000' },
    open: { type: 'string', default: '100000' },
    messages: { type: 'string', default: '10000000' },
    database: { type: 'string', default: 'atende_bench' },
    reseed: { type: 'boolean', default: false },
    only: { type: 'string' },
    'no-redis': { type: 'boolean', default: false },
    'no-build': { type: 'boolean', default: false },
    main: { type: 'string' },
    'graph-delay': { type: 'string', default: '0' },
    'send-roles': { type: 'string', default: 'api' },
    'no-write': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

if (args.help) {
  process.stdout.write(`npm run bench -- [options]
  --duration <s>      measured seconds per row (default 10)
  --warmup <s>        discarded warm-up seconds per row (default 2)
  --connections <n>   concurrent connections (default 50)
  --chats <n>         chats to seed (default 1000000)
  --open <n>          of which open (default 100000)
  --messages <n>      messages to seed, a multiple of --chats (default 10000000)
  --database <name>   benchmark database on the DATABASE_URL server (default atende_bench)
  --reseed            drop and seed the database again even if it matches
  --only <ids>        comma-separated row ids (partial run: a timestamped result file only)
  --no-redis          skip the Redis rows
  --no-build          run ./dist/src/main.js (npm run build) instead of compiling the sources privately
  --main <file>       run this compiled entry point instead (e.g. an experimental build, for A/B runs)
  --graph-delay <ms>  the fake Graph API holds each answer this long (default 0: answers at once)
  --send-roles <r>    roles of the server of insert-baseline and send (default api: acceptance alone; drain and
                      latency then run on an api,worker server started on the backlog; api,worker: one server)
  --no-write          print only; write no result file and leave the README alone
Environment: DATABASE_URL (admin connection; default postgres://postgres@127.0.0.1:5432/test),
             REDIS_URL (default redis://127.0.0.1:6379) for the Redis limiter rows.
`);
  process.exit(0);
}

const num = (name: string, v: string | undefined, min: number, max: number): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max) {
    process.stderr.write(`--${name} must be a number between ${min} and ${max}\n`);
    process.exit(2);
  }
  return n;
};
const duration = num('duration', args.duration, 1, 300);
const warmup = num('warmup', args.warmup, 0, 60);
const connections = num('connections', args.connections, 1, 1000);
const graphDelay = num('graph-delay', args['graph-delay'], 0, 10_000);
const chats = num('chats', args.chats, 1000, 10_000_000);
const open = num('open', args.open, 100, chats);
const messages = num('messages', args.messages, chats, 100_000_000);
if (messages % chats !== 0) {
  process.stderr.write('--messages must be a multiple of --chats\n');
  process.exit(2);
}
const adminUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const redisUrl = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

const log = (line: string) => process.stderr.write(`${line}\n`);

// Bounded in time whatever happens: the servers this process started die with it. Allowance: seeding
// (10,000,000 messages and their indexes take most of an hour on a busy two-core machine), every row,
// and the send pipeline's wait for its backlog to drain (at most 5 min).
const rowsUpperBound = 24;
const hardCapMs = (90 * 60 + rowsUpperBound * (duration + warmup + 20)) * 1000;
const watchdog = setTimeout(() => {
  log(`bench: hard time limit of ${Math.round(hardCapMs / 60000)} min reached; stopping`);
  killAllServers();
  process.exit(3);
}, hardCapMs);
watchdog.unref();
process.on('exit', killAllServers);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    killAllServers();
    process.exit(130);
  });
}

interface RowDef {
  id: string;
  label: string;
  server: 'memory' | 'redis';
  request: string;
  /** The issue's target: a share of the baseline's req/s (lists) or a rate (transfers), and a p99. */
  target: RowTarget | null;
  /** Concurrent connections, when not `--connections` (the console's rows: 20 agents at once). */
  connections?: number;
  spec: (base: string) => Omit<LoadSpec, 'url' | 'connections' | 'duration'>;
}

/**
 * What a row must reach: `ratio` of the baseline's req/s, or `rps` requests a second, with p99 ≤ `p99Ms`
 * (the console's rows: the p99 alone).
 */
interface RowTarget {
  ratio?: number;
  rps?: number;
  p99Ms: number;
}
const LIST_TARGET: RowTarget = { ratio: 0.25, p99Ms: 50 };
const TRANSFER_TARGET: RowTarget = { rps: 2_000, p99Ms: 50 };
const TRANSFER_POOL = 20_000;
/** The console's rows: 20 agents searching (or opening a history) at once, each waiting for its answer. */
const CONSOLE_CONNECTIONS = 20;
/**
 * What the search agent types (bench/words.ts): common words (each in 1–6 % of the messages, so the
 * newest page is found among the newest messages), two words, an inflection and a word without its
 * accents, uncommon words (≈ 1,000 messages each) and rare ones (≈ 50), whose every match is read.
 */
export const MESSAGE_QUERIES = [
  'pedido',
  'pagamento',
  'boleto atrasado',
  'acoes',
  'segunda via',
  'ouvidoria',
  'portabilidade',
  'jabuticaba',
  'ornitorrinco',
  'reembolsos',
];
/**
 * Parts of contacts' numbers (as typed: with a space, with the country code) and names (a common
 * surname, a first name without its accent, a first name and the start of a surname).
 */
export const CONTACT_QUERIES = [
  '98765',
  '1234 5',
  '55119',
  'silva',
  'joao',
  'mariana cost',
  'conceição',
  'fernanda l',
];

async function redisReachable(url: string): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 2000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

function gitRevision(): string {
  try {
    const rev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root }).toString().trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: root })
      .toString()
      .trim();
    return dirty ? `${rev} (src modified)` : rev;
  } catch {
    return 'unknown';
  }
}

function writeAtomic(file: string, text: string): void {
  const tmp = path.join(resultsDir, `${path.basename(file)}.${process.pid}.tmp`);
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

function rowDefs(seed: Seeded, pool: string[], agent: { token: string }): RowDef[] {
  const auth = { authorization: `ApiKey ${seed.apiKey}` };
  // The search agent's token, known once the server is up (a login).
  const asAgent = () => ({ authorization: `Bearer ${agent.token}` });
  const rotating = (path: (q: string) => string, queries: readonly string[]): RowDef['spec'] => {
    let n = 0;
    return () => ({
      headers: asAgent(),
      next: () => ({ method: 'GET', path: path(queries[n++ % queries.length]!) }),
    });
  };
  const label = seed.labels[0]!;
  const chatsGet =
    (query: string): RowDef['spec'] =>
    () => ({
      path: `/channel-api/chats${query}`,
      headers: auth,
    });
  const [channelId, teamId, userId] = [seed.channelIds[0]!, seed.teamIds[0]!, seed.agentIds[0]!];
  let k = 0;
  let d = 0;
  const distinctFilters = [
    '',
    `&channelId=${channelId}`,
    '&queue=Espera',
    `&teamId=${teamId}`,
    `&userId=${userId}`,
  ];
  return [
    {
      id: 'baseline',
      label: 'baseline: bare validated GET',
      server: 'memory',
      request: 'GET /bench/echo?n=1',
      target: null,
      spec: () => ({ path: '/bench/echo?n=1', headers: {} }),
    },
    {
      id: 'limiter-memory',
      label: 'limiter only, memory store',
      server: 'memory',
      request: 'GET /bench/limited?n=1',
      target: null,
      spec: () => ({ path: '/bench/limited?n=1', headers: {} }),
    },
    {
      id: 'chats',
      label: 'list chats, page 1',
      server: 'memory',
      request: 'GET /channel-api/chats',
      target: LIST_TARGET,
      spec: chatsGet(''),
    },
    {
      id: 'chats-channel',
      label: 'list chats ?channelId',
      server: 'memory',
      request: 'GET /channel-api/chats?channelId=<channel 0>',
      target: LIST_TARGET,
      spec: chatsGet(`?channelId=${channelId}`),
    },
    {
      id: 'chats-queue',
      label: 'list chats ?queue=Espera',
      server: 'memory',
      request: 'GET /channel-api/chats?queue=Espera',
      target: LIST_TARGET,
      spec: chatsGet('?queue=Espera'),
    },
    {
      id: 'chats-team',
      label: 'list chats ?teamId',
      server: 'memory',
      request: 'GET /channel-api/chats?teamId=<team 0>',
      target: LIST_TARGET,
      spec: chatsGet(`?teamId=${teamId}`),
    },
    {
      id: 'chats-user',
      label: 'list chats ?userId',
      server: 'memory',
      request: 'GET /channel-api/chats?userId=<agent 0>',
      target: LIST_TARGET,
      spec: chatsGet(`?userId=${userId}`),
    },
    {
      id: 'chats-distinct',
      label: 'list chats, no two requests alike',
      server: 'memory',
      request: 'GET /channel-api/chats?<100 filter/limit combinations>',
      // What a list costs when no other request asks the same at once (one statement each): issue 25
      // asks 0.2 × the baseline (the shared lists' 25 % rests on sharing).
      target: { ratio: 0.2, p99Ms: 50 },
      spec: () => ({
        headers: auth,
        next: () => {
          const i = d++;
          return {
            method: 'GET',
            path: `/channel-api/chats?limit=${11 + (i % 20)}${distinctFilters[Math.floor(i / 20) % 5]}`,
          };
        },
      }),
    },
    {
      id: 'chats-label',
      label: `list chats ?label (${label.permille / 10} % of chats)`,
      server: 'memory',
      request: `GET /channel-api/chats?label=<${label.name}>`,
      target: LIST_TARGET,
      spec: chatsGet(`?label=${label.id}`),
    },
    {
      id: 'search-messages',
      label: "search messages, an agent's teams",
      server: 'memory',
      request: `GET /api/search?q=<${MESSAGE_QUERIES.length} words in turn>&page=1&limit=20`,
      target: { p99Ms: 100 },
      connections: CONSOLE_CONNECTIONS,
      spec: rotating((q) => `/api/search?q=${encodeURIComponent(q)}&page=1&limit=20`, MESSAGE_QUERIES),
    },
    {
      id: 'search-contacts',
      label: 'search contacts, part of a number or name',
      server: 'memory',
      request: `GET /api/search/contacts?q=<${CONTACT_QUERIES.length} parts in turn>&page=1&limit=20`,
      target: { p99Ms: 30 },
      connections: CONSOLE_CONNECTIONS,
      spec: rotating(
        (q) => `/api/search/contacts?q=${encodeURIComponent(q)}&page=1&limit=20`,
        CONTACT_QUERIES,
      ),
    },
    {
      id: 'contact-history',
      label: `a customer's history (${HISTORY_CHATS} conversations)`,
      server: 'memory',
      request: `GET /api/customers/<customer>/chats?page=1&limit=20`,
      target: { p99Ms: 50 },
      connections: CONSOLE_CONNECTIONS,
      spec: () => ({
        path: `/api/customers/${seed.historyCustomerId}/chats?page=1&limit=20`,
        headers: asAgent(),
      }),
    },
    {
      id: 'users',
      label: 'list users',
      server: 'memory',
      request: 'GET /channel-api/users',
      target: LIST_TARGET,
      spec: () => ({ path: '/channel-api/users', headers: auth }),
    },
    {
      id: 'transfer',
      label: 'transfer (team / user alternately)',
      server: 'memory',
      request: `POST /channel-api/chats/<${pool.length} chats>/transfer/{team,user}`,
      target: TRANSFER_TARGET,
      spec: () => ({
        headers: { ...auth, 'content-type': 'application/json' },
        // Every request takes the next chat of the pool, so concurrent transfers never queue on one row.
        next: () => {
          const i = k++;
          const chatId = pool[i % pool.length]!;
          if (i % 2 === 0) {
            const team = seed.teamIds[Math.floor(i / 2) % seed.teamIds.length]!;
            return {
              method: 'POST',
              path: `/channel-api/chats/${chatId}/transfer/team`,
              body: JSON.stringify({ teamId: team, reasonCode: 'bench', reason: 'benchmark transfer' }),
            };
          }
          const user = seed.agentIds[Math.floor(i / 2) % seed.agentIds.length]!;
          return {
            method: 'POST',
            path: `/channel-api/chats/${chatId}/transfer/user`,
            body: JSON.stringify({ userId: user }),
          };
        },
      }),
    },
    {
      id: 'limiter-redis',
      label: 'limiter only, Redis store',
      server: 'redis',
      request: 'GET /bench/limited?n=1',
      target: null,
      spec: () => ({ path: '/bench/limited?n=1', headers: {} }),
    },
    {
      id: 'chats-redis',
      label: 'list chats, page 1, Redis limiter',
      server: 'redis',
      request: 'GET /channel-api/chats',
      target: LIST_TARGET,
      spec: chatsGet(''),
    },
  ];
}

/** The list routes' `total` must equal an exact COUNT(*) of the same filter. */
async function checkTotals(base: string, url: string, seed: Seeded): Promise<boolean> {
  const cases: Array<Record<string, string>> = [
    {},
    { channelId: seed.channelIds[0]! },
    { queue: 'Espera' },
    { queue: 'Observação' },
    { teamId: seed.teamIds[0]! },
    { userId: seed.agentIds[0]! },
    { channelId: seed.channelIds[1]!, teamId: seed.teamIds[1]! },
  ];
  let ok = true;
  for (const q of cases) {
    const qs = new URLSearchParams(q).toString();
    const res = await fetch(`${base}/channel-api/chats${qs ? `?${qs}` : ''}`, {
      headers: { authorization: `ApiKey ${seed.apiKey}` },
    });
    const body = (await res.json()) as { total?: number; chats?: unknown[] };
    const exact = await exactTotal(url, seed.accountId, q);
    const good =
      res.status === 200 && body.total === exact && (body.chats?.length ?? 0) === Math.min(20, exact);
    if (!good) log(`  total mismatch for ?${qs}: status ${res.status}, total ${body.total}, exact ${exact}`);
    ok &&= good;
  }
  return ok;
}

/**
 * The console rows ask what they should: every search word finds messages (the rare ones too), every
 * contact search finds contacts, the history has its conversations (all visible to the agent), and
 * the label's list total equals an exact count.
 */
async function checkConsole(base: string, url: string, seed: Seeded, token: string): Promise<boolean> {
  const get = async (path: string, headers: Record<string, string>) => {
    const res = await fetch(`${base}${path}`, { headers });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const asAgent = { authorization: `Bearer ${token}` };
  let ok = true;
  const expect = (good: boolean, what: string) => {
    if (!good) log(`  ${what}`);
    ok &&= good;
  };
  for (const q of MESSAGE_QUERIES) {
    const r = await get(`/api/search?q=${encodeURIComponent(q)}&page=1&limit=20`, asAgent);
    const ids = ((r.body.results as { id: string }[] | undefined) ?? []).map((h) => h.id);
    const expected = await referenceMessageSearch(url, seed.accountId, seed.searchAgentEmail, q, 20);
    expect(
      r.status === 200 && ids.length > 0 && ids.join() === expected.join(),
      `search ${q}: status ${r.status}, ${ids.length} results, ${expected.length} expected, same: ${ids.join() === expected.join()}`,
    );
  }
  for (const q of CONTACT_QUERIES) {
    const r = await get(`/api/search/contacts?q=${encodeURIComponent(q)}&page=1&limit=20`, asAgent);
    const n = (r.body.results as unknown[] | undefined)?.length ?? 0;
    expect(r.status === 200 && n > 0, `contact search ${q}: status ${r.status}, ${n} results`);
  }
  const h = await get(`/api/customers/${seed.historyCustomerId}/chats?page=1&limit=20`, asAgent);
  expect(
    h.status === 200 && h.body.total === HISTORY_CHATS,
    `history: status ${h.status}, total ${String(h.body.total)} (expected ${HISTORY_CHATS})`,
  );
  const label = seed.labels[0]!;
  const l = await get(`/channel-api/chats?label=${label.id}`, { authorization: `ApiKey ${seed.apiKey}` });
  const exact = await exactLabelTotal(url, seed.accountId, label.id);
  expect(
    l.status === 200 && l.body.total === exact,
    `label list: total ${String(l.body.total)}, exact ${exact}`,
  );
  return ok;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = os.loadavg();
  const only = args.only ? new Set(args.only.split(',').map((s) => s.trim())) : null;
  const params = { chats, open, channels: 5, teams: 10, agentsPerTeam: 2, messages, version: SEED_VERSION };

  const main = args.main
    ? path.resolve(args.main)
    : args['no-build']
      ? path.join(root, 'dist', 'src', 'main.js')
      : await buildServer(root, log);
  const db = await ensureSeeded({
    adminUrl,
    name: args.database,
    params,
    reseed: args.reseed,
    migrate: args.main === undefined,
    log,
  });
  log(db.reused ? `reusing the seeded database ${args.database}` : `database ${args.database} seeded`);
  await restoreTransferPool(db.url); // repairs a run that died during the transfers
  const seed = db.seed;
  await compactCounts(db.url, seed.accountId);
  const pool = await saveTransferPool(db.url, seed.accountId, TRANSFER_POOL);

  const agent = { token: '' };
  let defs = rowDefs(seed, pool, agent);
  // The bare baseline goes with any row of the list server; `send` needs its own baseline.
  if (only) {
    const listRows = defs.some((d) => d.id !== 'baseline' && only.has(d.id));
    defs = defs.filter((d) => only.has(d.id) || (d.id === 'baseline' && listRows));
  }
  const sendIds = SEND_ROWS.filter(
    (id) => !only || only.has(id) || (id === 'insert-baseline' && only.has('send')),
  );
  const sendWanted = new Set<string>(sendIds);
  const gatewayIds = GATEWAY_ROWS.filter((id) => !only || only.has(id));
  const webhooksRow = !only || only.has('webhooks');
  const mediaRow = !only || only.has(MEDIA_ROW);
  const bulkRow = !only || only.has(BULK_ROW);
  const assignRow = !only || only.has(ASSIGN_ROW);
  const boardRow = !only || only.has(BOARD_ROW);
  const flowRow = !only || only.has(FLOW_ROW);
  const reportRow = !only || only.has(REPORT_ROW);
  const rollupRow = !only || only.has(ROLLUP_ROW);
  const withRedis =
    !args['no-redis'] && defs.some((d) => d.server === 'redis') && (await redisReachable(redisUrl));
  if (!withRedis && defs.some((d) => d.server === 'redis')) {
    log(
      args['no-redis']
        ? 'skipping the Redis rows (--no-redis)'
        : `Redis not reachable at ${redisUrl}: skipping its rows`,
    );
    defs = defs.filter((d) => d.server === 'memory');
  }

  const serverEnv = (redis: boolean) => ({
    DATABASE_URL: db.url,
    // "Lifted": the limiter still runs on every Channel API request, it just never refuses one.
    ATENDE_RATE_LIMIT_POINTS: '100000000',
    ATENDE_RATE_LIMIT_WINDOW_SECONDS: '60',
    // The webhooks row's receiver listens on this machine.
    ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    REDIS_URL: redis ? redisUrl : undefined,
  });

  const checks = {
    totalsExact: null as boolean | null,
    countsExactAfterTransfers: null as boolean | null,
    countsExactAfterRestore: false,
    cannedPickerCorrect: null as boolean | null,
    consoleAnswers: null as boolean | null,
  };
  const results: Array<{ def: RowDef; result: LoadResult & { connections: number } }> = [];
  const runRows = async (server: ServerUnderTest, which: RowDef[]) => {
    for (const def of which) {
      const conns = def.connections ?? connections;
      log(`→ ${def.id}: ${def.request} (${warmup} s warm-up + ${duration} s, ${conns} connections)`);
      const result = await measure(
        { url: server.url, connections: conns, duration, ...def.spec(server.url) },
        warmup,
        server.pid,
        () => backendPids(db.url),
      );
      const bad = result.non2xx + result.errors;
      log(
        `  ${Math.round(result.rps)} req/s, p50 ${result.p50} ms, p99 ${result.p99} ms, ` +
          `server ${result.serverCpu} cores, db ${result.dbCpu} cores, loader ${result.loaderCpu} cores, ` +
          `load ${result.loadAvg}` +
          (bad
            ? `, ${result.non2xx} non-2xx ${JSON.stringify(result.statusCodes)}, ${result.errors} errors`
            : ''),
      );
      results.push({ def, result: { ...result, connections: conns } });
      // Requests autocannon gave up on at the end are still being answered; let them finish so they
      // neither weigh on the next row nor meet a closing server.
      await new Promise((r) => setTimeout(r, 1500));
    }
  };

  const memoryDefs = defs.filter((d) => d.server === 'memory');
  if (memoryDefs.length > 0) {
    const memoryServer = await startServerProcess({ main, env: serverEnv(false), log, label: 'server' });
    try {
      checks.totalsExact = await checkTotals(memoryServer.url, db.url, seed);
      log(`list totals equal exact counts: ${checks.totalsExact ? 'yes' : 'NO'}`);
      if (memoryDefs.some((d) => d.id.startsWith('search-') || d.id === 'contact-history')) {
        agent.token = (await login(memoryServer.url, seed.searchAgentEmail)).token;
        checks.consoleAnswers = await checkConsole(memoryServer.url, db.url, seed, agent.token);
        log(`console rows answer as expected: ${checks.consoleAnswers ? 'yes' : 'NO'}`);
      }
      await runRows(memoryServer, memoryDefs);
    } finally {
      await memoryServer.stop();
    }
  }
  const liveRows: LiveRow[] = [];
  // The composer's canned-response picker, on an api server of its own (issue 26).
  if (!only || only.has(CANNED_ROW)) {
    await ensureCanned(db.url, seed, log);
    const server = await startServerProcess({ main, env: serverEnv(false), log, label: 'server' });
    try {
      const tokens = await loginAgents(server.url, seed);
      checks.cannedPickerCorrect = await checkPicker(server.url, tokens);
      log(`canned picker answers what the agent sees: ${checks.cannedPickerCorrect ? 'yes' : 'NO'}`);
      liveRows.push(
        await runCannedRow({
          server,
          dbUrl: db.url,
          seed,
          tokens,
          duration,
          warmup,
          correct: checks.cannedPickerCorrect,
          log,
        }),
      );
    } finally {
      await server.stop();
    }
  }
  // The rows that add data work on an account of their own, dropped at the end (bench/live.ts).
  let live: LiveAccount | null = null;
  const liveAccount = async () => (live ??= await createLiveAccount(db.url));

  // The gateway rows: one node with the api and gateway roles; the latency row transfers chats of
  // the pool, which is put back below with the transfer row's.
  if (gatewayIds.length > 0) {
    const account = gatewayIds.includes('gw-fanout') ? await liveAccount() : null;
    const roles = 'api,gateway';
    const server = await startServerProcess({
      main,
      env: serverEnv(false),
      roles,
      // The memory row reads the server's heap after a full collection (POST /bench/memory).
      execArgv: ['--expose-gc'],
      log,
      label: 'server api+gateway',
    });
    try {
      liveRows.push(
        ...(await runGatewayPhase({
          dbUrl: db.url,
          server,
          roles,
          seed,
          pool,
          live: account,
          duration,
          warmup,
          only: (id) => gatewayIds.includes(id as (typeof GATEWAY_ROWS)[number]),
          log,
        })),
      );
    } finally {
      await server.stop();
    }
  }
  // A bulk action on chats of the pool, put back below with the transfer row's.
  if (bulkRow) {
    const server = await startServerProcess({ main, env: serverEnv(false), log, label: 'server (bulk)' });
    try {
      liveRows.push(await runBulkRow({ dbUrl: db.url, server, seed, pool, log }));
    } finally {
      await server.stop();
    }
  }
  // Automatic assignment: two api+worker servers take a burst of first messages and assign them.
  if (assignRow) {
    const redis = !args['no-redis'] && (await redisReachable(redisUrl));
    const start = (n: number) =>
      startServerProcess({
        main,
        env: serverEnv(redis),
        roles: 'api,worker',
        log,
        label: `server ${n} (assign)`,
      });
    const one = await start(1);
    try {
      const two = await start(2);
      try {
        liveRows.push(
          await runAssignRow({
            dbUrl: db.url,
            servers: [one, two],
            account: await liveAccount(),
            redis,
            log,
          }),
        );
      } finally {
        await two.stop();
      }
    } finally {
      await one.stop();
    }
  }
  // Reports over the seed's rollups (filled set-based by the seed), on an api server.
  if (reportRow) {
    const server = await startServerProcess({ main, env: serverEnv(false), log, label: 'server (reports)' });
    try {
      liveRows.push(await runReportRow({ dbUrl: db.url, server, seed, duration, warmup, log }));
    } finally {
      await server.stop();
    }
  }
  // The rollups' consumer at 1,000 events a second, on a worker server, in the live account's log.
  if (rollupRow) {
    const account = await liveAccount();
    const server = await startServerProcess({
      main,
      env: serverEnv(false),
      roles: 'api,worker',
      log,
      label: 'server api+worker (rollups)',
    });
    try {
      liveRows.push(await runRollupRow({ dbUrl: db.url, server, live: account, duration, log }));
    } finally {
      await server.stop();
    }
  }
  // The live board: a supervisor's board client and 200 agents' sockets on one api+gateway server.
  if (boardRow) {
    const server = await startServerProcess({
      main,
      env: serverEnv(false),
      roles: 'api,gateway',
      log,
      label: 'server api+gateway (board)',
    });
    try {
      liveRows.push(await runBoardRow({ dbUrl: db.url, server, log }));
    } finally {
      await server.stop();
    }
  }
  if (
    defs.some((d) => d.id === 'transfer') ||
    gatewayIds.includes('gw-latency') ||
    gatewayIds.includes('notify-latency')
  ) {
    checks.countsExactAfterTransfers = await countsExact(db.url, seed.accountId);
    log(`chat_counts exact after the transfers: ${checks.countsExactAfterTransfers ? 'yes' : 'NO'}`);
  }
  await restoreTransferPool(db.url);
  checks.countsExactAfterRestore = await countsExact(db.url, seed.accountId);
  await compactCounts(db.url, seed.accountId);

  if (sendIds.length > 0) {
    await withClient(db.url, (c) =>
      c.query(
        `CREATE TABLE IF NOT EXISTS bench_insert (id uuid PRIMARY KEY, body jsonb NOT NULL,
                                                  created_at timestamptz NOT NULL DEFAULT now())`,
      ),
    );
    const account = await liveAccount();
    const graph = await BenchGraph.start(GRAPH_TOKEN, graphDelay);
    const roles = args['send-roles'];
    const startSendServer = (r: string) =>
      startServerProcess({
        main,
        env: { ...serverEnv(false), WHATSAPP_GRAPH_BASE_URL: graph.url },
        roles: r,
        log,
        label: `server ${r.replaceAll(',', '+')}`,
      });
    let server = await startSendServer(roles);
    try {
      liveRows.push(
        ...(await runSendPhase({
          dbUrl: db.url,
          server,
          roles,
          startDelivery: () => startSendServer('api,worker'),
          onServer: (s) => (server = s),
          graph,
          live: account,
          connections,
          duration,
          warmup,
          only: (id) => sendWanted.has(id),
          log,
        })),
      );
      if (graphDelay > 0) for (const r of liveRows) r.notes.push(`fake Graph answers after ${graphDelay} ms`);
    } finally {
      await server.stop();
      await graph.close();
      await withClient(db.url, (c) => c.query('TRUNCATE bench_insert'));
    }
  }
  // New conversations through a channel's built-in menu (issue 27), on the live account's WhatsApp channel.
  if (flowRow) {
    const account = await liveAccount();
    const graph = await BenchGraph.start(GRAPH_TOKEN, 0);
    const server = await startServerProcess({
      main,
      env: { ...serverEnv(false), WHATSAPP_GRAPH_BASE_URL: graph.url },
      roles: 'api,worker',
      log,
      label: 'server api+worker (flow)',
    });
    try {
      liveRows.push(await runFlowRow({ dbUrl: db.url, server, graph, live: account, duration, warmup, log }));
    } finally {
      await server.stop();
      await graph.close();
    }
  }
  // After the send rows, so that their events create no deliveries.
  if (webhooksRow) {
    const account = await liveAccount();
    liveRows.push(
      await runWebhooksRow({
        dbUrl: db.url,
        live: account,
        duration,
        warmup,
        start: (roles, label) => startServerProcess({ main, env: serverEnv(false), roles, log, label }),
        log,
      }),
    );
  }
  // Last of the live rows: its files are the largest the platform takes.
  if (mediaRow) {
    const account = await liveAccount();
    const graph = await BenchGraph.start(GRAPH_TOKEN, 0);
    const server = await startServerProcess({
      main,
      env: { ...serverEnv(false), WHATSAPP_GRAPH_BASE_URL: graph.url },
      roles: 'api,gateway,worker',
      log,
      label: 'server api+gateway+worker',
    });
    try {
      liveRows.push(await runMediaRow({ server, graph, live: account, log }));
    } finally {
      await server.stop();
      await graph.close();
    }
  }
  if (live) await dropLiveAccount(db.url);

  const redisRows = defs.filter((d) => d.server === 'redis');
  if (redisRows.length > 0) {
    const redisServer = await startServerProcess({ main, env: serverEnv(true), log, label: 'server+redis' });
    try {
      await runRows(redisServer, redisRows);
    } finally {
      await redisServer.stop();
    }
  }

  const baseline = results.find((r) => r.def.id === 'baseline')?.result;
  const cpuPerReq = (r: LoadResult) =>
    r.serverCpu !== null && r.rps > 0 ? (r.serverCpu * 1e6) / r.rps : null;
  const rows: Row[] = results.map(({ def, result }) => {
    const ratio = baseline && baseline.rps > 0 ? result.rps / baseline.rps : null;
    const cpu = cpuPerReq(result);
    const baseCpu = baseline ? cpuPerReq(baseline) : null;
    return {
      id: def.id,
      label: def.label,
      request: def.request,
      server: def.server,
      ...result,
      rps: Math.round(result.rps),
      ratio: ratio === null ? null : round(ratio, 3),
      serverCpuUsPerRequest: cpu === null ? null : Math.round(cpu),
      dbCpuUsPerRequest:
        result.dbCpu !== null && result.rps > 0 ? Math.round((result.dbCpu * 1e6) / result.rps) : null,
      // For the limiter rows: server CPU per request above the baseline's = the limiter's own cost.
      extraCpuUsOverBaseline:
        cpu !== null && baseCpu !== null && def.id !== 'baseline' ? Math.round(cpu - baseCpu) : null,
      valid: result.non2xx === 0 && result.errors === 0,
      target: def.target
        ? {
            ...def.target,
            met:
              (def.target.ratio === undefined || (ratio !== null && ratio >= def.target.ratio)) &&
              (def.target.rps === undefined || result.rps >= def.target.rps) &&
              result.p99 <= def.target.p99Ms &&
              result.non2xx === 0,
          }
        : null,
    };
  });

  const report: BenchReport = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    revision: gitRevision(),
    settings: { duration, warmup, connections, transferPool: pool.length, rateLimitPoints: 100_000_000 },
    dataset: {
      ...params,
      database: args.database,
      reused: db.reused,
      seedSeconds: db.seconds,
      seededAt: seed.seededAt,
    },
    machine: {
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      loadavgBefore: loadBefore.map((n) => round(n, 2)),
      loadavgAfter: os.loadavg().map((n) => round(n, 2)),
      postgres: await serverFacts(db.url),
    },
    checks,
    rows,
    liveRows,
  };

  process.stdout.write(`\n${renderTable(report)}\n`);
  if (!args['no-write']) {
    mkdirSync(resultsDir, { recursive: true });
    const json = `${JSON.stringify(report, null, 2)}\n`;
    const stamp = report.startedAt.replace(/[:.]/g, '-');
    writeAtomic(path.join(resultsDir, `${stamp}.json`), json);
    // A partial run (--only) is kept, but does not stand for the last complete run.
    if (!only) writeAtomic(path.join(resultsDir, 'latest.json'), json);
    log(`wrote bench/results/${stamp}.json${only ? '' : ' and bench/results/latest.json'}`);
    if (!only) {
      const readme = path.join(root, 'bench', 'README.md');
      // Formatted as the repository's Prettier would, so `prettier --check` stays green after a run.
      const options = (await prettier.resolveConfig(readme)) ?? {};
      const text = renderReadmeSection(readFileSync(readme, 'utf8'), report);
      writeAtomic(readme, await prettier.format(text, { ...options, filepath: readme }));
      log('updated bench/README.md');
    }
  }
  const failed =
    liveRows.some((r) => r.id === BULK_ROW && !r.valid) ||
    checks.totalsExact === false ||
    checks.consoleAnswers === false ||
    checks.countsExactAfterTransfers === false ||
    checks.cannedPickerCorrect === false ||
    !checks.countsExactAfterRestore;
  if (failed) {
    log('bench: a correctness check failed (see above)');
    process.exitCode = 1;
  }
}

main().then(
  () => {
    clearTimeout(watchdog);
    killAllServers();
  },
  (err: unknown) => {
    log(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    killAllServers();
    process.exit(1);
  },
);
