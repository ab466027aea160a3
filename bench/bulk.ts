/**
 * The `bulk` row: a supervisor's bulk action on a list selection — `POST /api/chats/bulk` transferring
 * 500 open chats of the transfer pool to a team in one request, a few times over distinct chats. Each
 * request must finish within the target with every chat `ok`, and the list counters must be exact
 * after; the chats are put back with the transfer row's (bench/seed.ts, restoreTransferPool).
 */
import { cpuOf, cpuPerItem, cpuSeconds, round } from './load.js';
import type { LiveRow } from './report.js';
import { ADMIN_EMAIL, backendPids, countsExact, PASSWORD, type Seeded } from './seed.js';
import type { ServerUnderTest } from './server.js';

export const BULK_ROW = 'bulk';
/** The target: a bulk action on 500 conversations completes in at most this long. */
export const BULK_TARGET_MS = 5_000;
const BULK_SIZE = 500;
/** Requests measured (after one discarded warm-up request), each on 500 chats no other has touched. */
const BULK_ROUNDS = 5;

export async function runBulkRow(p: {
  dbUrl: string;
  server: ServerUnderTest;
  seed: Seeded;
  /** The transfer pool (open chats saved before and put back after). */
  pool: string[];
  log: (line: string) => void;
}): Promise<LiveRow> {
  const { server, seed, log } = p;
  const login = await fetch(`${server.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: ADMIN_EMAIL, password: PASSWORD }),
  });
  if (login.status !== 200) throw new Error(`bulk: login answered ${login.status}`);
  const { accessToken } = (await login.json()) as { accessToken: string };
  const rounds = BULK_ROUNDS + 1;
  // The end of the pool: the transfer row works from its start.
  const chats = p.pool.slice(-rounds * BULK_SIZE);
  if (chats.length < rounds * BULK_SIZE) throw new Error('bulk: the transfer pool is too small');

  const times: number[] = [];
  let failed = 0;
  let cpu0: number | null = null;
  let db0 = new Map<number, number>();
  for (let r = 0; r < rounds; r++) {
    if (r === 1) {
      cpu0 = cpuSeconds(server.pid);
      db0 = cpuOf(await backendPids(p.dbUrl));
    }
    const chatIds = chats.slice(r * BULK_SIZE, (r + 1) * BULK_SIZE);
    const teamId = seed.teamIds[r % seed.teamIds.length]!;
    const t0 = performance.now();
    const res = await fetch(`${server.url}/api/chats/bulk`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        chatIds,
        action: { type: 'transfer', teamId, reasonCode: 'bench', reason: 'bulk' },
      }),
    });
    const body = (await res.json()) as { results?: { chatId: string; ok: boolean; status?: number }[] };
    const ms = performance.now() - t0;
    const results = body.results ?? [];
    const bad = res.status !== 200 ? BULK_SIZE : results.filter((x) => !x.ok).length;
    const inOrder = results.every((x, i) => x.chatId === chatIds[i]) && results.length === BULK_SIZE;
    log(`  bulk ${r === 0 ? '(warm-up) ' : ''}${res.status}: ${BULK_SIZE - bad} ok in ${Math.round(ms)} ms`);
    if (r === 0) continue;
    times.push(ms);
    failed += bad + (inOrder ? 0 : 1);
  }
  const cpu1 = cpuSeconds(server.pid);
  const db1 = cpuOf(await backendPids(p.dbUrl));
  let dbSeconds = 0;
  for (const [pid, s] of db1) dbSeconds += s - (db0.get(pid) ?? 0);
  const exact = await countsExact(p.dbUrl, seed.accountId);
  log(`  chat_counts exact after the bulk transfers: ${exact ? 'yes' : 'NO'}`);
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? null;
  const slowest = sorted.at(-1) ?? null;
  const valid = failed === 0 && exact;
  return {
    id: BULK_ROW,
    label: 'bulk transfer of 500 chats',
    request: `\`POST /api/chats/bulk\` × ${BULK_ROUNDS}, each 500 distinct open chats → a team`,
    roles: 'api',
    value: median === null ? null : round(median, 0),
    unit: 'ms per request',
    p50: median === null ? null : round(median, 1),
    p99: slowest === null ? null : round(slowest, 1),
    ratio: null,
    ratioOf: null,
    ...cpuPerItem(cpu0, cpu1, dbSeconds, times.length * BULK_SIZE),
    target: {
      text: `every request ≤ ${BULK_TARGET_MS / 1000} s, every chat ok, counters exact`,
      met: valid && slowest !== null && slowest <= BULK_TARGET_MS,
    },
    notes: [
      `slowest of ${BULK_ROUNDS} in the p99 column`,
      'CPU per chat',
      `counters exact after: ${exact ? 'yes' : 'NO'}`,
      ...(failed > 0 ? [`${failed} chats not ok`] : []),
    ],
    valid,
    details: { times: times.map((t) => round(t, 1)), failed, countsExact: exact, size: BULK_SIZE },
  };
}
