/**
 * The `canned-picker` row (issue 26): the composer's `/` picker asks the server on every key
 * (web/src/inbox/canned-picker.tsx: `GET /api/canned-responses?q=<what follows the slash>&limit=8`,
 * no `q` for the bare `/`, one request per key, no debounce), so the row sends exactly that, as 20
 * agents typing shortcuts key after key, against 5,000 canned responses in the benchmark account.
 */
import { performance } from 'node:perf_hooks';
import { cpuOf, cpuPerItem, cpuSeconds, round } from './load.js';
import type { LiveRow } from './report.js';
import { backendPids, PASSWORD, withClient, type Seeded } from './seed.js';
import { percentile } from './send.js';
import type { ServerUnderTest } from './server.js';

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const CANNED_ROW = 'canned-picker';
export const CANNED_P99_MS = 50;
/** Agents typing at once: every one of the seeded agents. */
export const CANNED_AGENTS = 20;
/** What the picker asks for (canned-picker.tsx's SHOWN). */
const SHOWN = 8;

/** 2,000 account-wide, 200 for each of the 10 teams, 50 personal for each of the 20 agents. */
const ACCOUNT = 2_000;
const PER_TEAM = 200;
const PER_AGENT = 50;
export const CANNED_TOTAL = ACCOUNT + 10 * PER_TEAM + 20 * PER_AGENT;

/** What agents keep answers about; shortcuts are `<topic>-<n>` (team `-t<n>`, personal `-p<n>`). */
const TOPICS = [
  'saudacao',
  'boleto',
  'entrega',
  'prazo',
  'troca',
  'devolucao',
  'pagamento',
  'pix',
  'cartao',
  'cancelamento',
  'horario',
  'endereco',
  'rastreio',
  'nota-fiscal',
  'garantia',
  'desconto',
  'cupom',
  'frete',
  'estoque',
  'tamanho',
  'reembolso',
  'cadastro',
  'senha',
  'login',
  'fatura',
  'segunda-via',
  'parcelamento',
  'promocao',
  'retirada',
  'loja',
  'atraso',
  'defeito',
  'assistencia',
  'instalacao',
  'agendamento',
  'orcamento',
  'contrato',
  'renovacao',
  'plano',
  'encerramento',
];

/**
 * The responses, set-based, once: the account's, each team's and each agent's, with a text of a
 * realistic length (two sentences, a variable), varied use counts. Kept between runs (their own check:
 * exactly CANNED_TOTAL in the account).
 */
export async function ensureCanned(url: string, seed: Seeded, log: (line: string) => void): Promise<void> {
  await withClient(url, async (c) => {
    const have = await c.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM canned_responses WHERE account_id = $1',
      [seed.accountId],
    );
    if (have.rows[0]?.n === CANNED_TOTAL) return;
    const t = Date.now();
    await c.query('BEGIN');
    await c.query('DELETE FROM canned_responses WHERE account_id = $1', [seed.accountId]);
    // One generated row per response: its owner, topic and number, from the row number.
    await c.query(
      `INSERT INTO canned_responses (id, account_id, scope, team_id, user_id, owner_key, shortcut, content,
                                     usage_count, created_at, updated_at)
       SELECT 'cb' || lpad(to_hex(i), 22, '0'), $1, scope, team_id, user_id,
              coalesce(team_id, user_id, 'account'),
              topic || suffix,
              'Olá, {{contact.name}}! Sobre ' || replace(topic, '-', ' ') || ': ' ||
                (ARRAY['o prazo é de até 5 dias úteis a partir da confirmação',
                       'já registramos o seu pedido e vamos avisar por aqui assim que houver novidade',
                       'você pode acompanhar tudo pelo aplicativo, na área Meus pedidos',
                       'precisamos do número do pedido e do CPF do titular para seguir'])[1 + i % 4] ||
                '. Qualquer dúvida, é só responder esta mensagem. (' || i || ')',
              (hashint4(i) & 2147483647) % 200, now(), now()
         FROM (
           SELECT i, 'account' AS scope, NULL::text AS team_id, NULL::text AS user_id,
                  ($2::text[])[1 + i % $3::int] AS topic, '-' || (i / $3::int) AS suffix
             FROM generate_series(0, $4::int - 1) AS i
           UNION ALL
           SELECT $4::int + t * $5::int + j, 'team', ($6::text[])[1 + t], NULL,
                  ($2::text[])[1 + j % $3::int], '-t' || (j / $3::int)
             FROM generate_series(0, cardinality($6::text[]) - 1) AS t, generate_series(0, $5::int - 1) AS j
           UNION ALL
           SELECT $4::int + cardinality($6::text[]) * $5::int + a * $7::int + j, 'personal', NULL,
                  ($8::text[])[1 + a], ($2::text[])[1 + j % $3::int], '-p' || (j / $3::int)
             FROM generate_series(0, cardinality($8::text[]) - 1) AS a, generate_series(0, $7::int - 1) AS j
         ) g`,
      [seed.accountId, TOPICS, TOPICS.length, ACCOUNT, PER_TEAM, seed.teamIds, PER_AGENT, seed.agentIds],
    );
    await c.query('COMMIT');
    await c.query('VACUUM (ANALYZE) canned_responses');
    log(`  ${CANNED_TOTAL} canned responses seeded (${((Date.now() - t) / 1000).toFixed(1)} s)`);
  });
}

/** The agents' access tokens, one per typing connection. */
export async function loginAgents(base: string, seed: Seeded): Promise<string[]> {
  return Promise.all(
    seed.agentIds.slice(0, CANNED_AGENTS).map(async (_, i) => {
      const res = await fetch(`${base}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `bench-agent-${i}@example.com`, password: PASSWORD }),
      });
      if (res.status !== 200) throw new Error(`login of agent ${i} answered ${res.status}`);
      return ((await res.json()) as { accessToken: string }).accessToken;
    }),
  );
}

/** The picker's request for what follows the slash, as canned-picker.tsx builds it (api.ts's qs). */
export function pickerPath(query: string): string {
  const params = new URLSearchParams();
  if (query !== '') params.set('q', query);
  params.set('limit', String(SHOWN));
  return `/api/canned-responses?${params.toString()}`;
}

/** What one agent types, key by key: `/`, then each longer prefix of a shortcut, then the next one. */
function keystrokes(agent: number, session: number): string[] {
  const topic = TOPICS[(agent * 7 + session) % TOPICS.length]!;
  // Mostly an account-wide shortcut, sometimes the team's or their own.
  const kind = session % 5;
  const shortcut =
    kind === 3
      ? `${topic}-t${session % 5}`
      : kind === 4
        ? `${topic}-p${session % 2}`
        : `${topic}-${session % 50}`;
  return Array.from({ length: shortcut.length + 1 }, (_, n) => shortcut.slice(0, n));
}

/** Keys a second each agent types (a fast typist: 300 characters a minute), paced, open loop. */
export const KEYS_PER_SECOND = 5;
/** The pause after a shortcut is typed in full (picked, the message sent) before the next one. */
const BETWEEN_MS = 600;

/**
 * 20 agents type shortcuts, each key at its own time whatever the answers (open loop: the console
 * sends each key's request without waiting for the previous answer, and drops stale ones); each
 * request is the picker's for the draft so far, with the agent's own token. Time from the key (the
 * request sent) to its answer read in full.
 */
export async function runCannedRow(p: {
  server: ServerUnderTest;
  dbUrl: string;
  seed: Seeded;
  tokens: string[];
  duration: number;
  warmup: number;
  correct: boolean;
  log: (line: string) => void;
}): Promise<LiveRow> {
  const { server, tokens, log } = p;
  const rate = tokens.length * KEYS_PER_SECOND;
  log(
    `→ ${CANNED_ROW}: ${tokens.length} agents typing ${KEYS_PER_SECOND} keys/s each (≈ ${rate} requests/s), ` +
      `${p.warmup} s warm-up + ${p.duration} s`,
  );
  const gap = 1000 / KEYS_PER_SECOND;
  const t0 = now();
  const measureFrom = t0 + p.warmup * 1000;
  const end = measureFrom + p.duration * 1000;
  const latencies: number[] = [];
  let failed = 0;
  let cpu0: number | null = null;
  let db0 = new Map<number, number>();
  const startWindow = setTimeout(
    () => {
      cpu0 = cpuSeconds(server.pid);
      void backendPids(p.dbUrl).then((pids) => (db0 = cpuOf(pids)));
    },
    Math.max(0, measureFrom - now()),
  );
  const inFlight = new Set<Promise<void>>();
  const agent = async (a: number) => {
    // Agents start spread over one key's interval, so their keys do not all fall together.
    let at = t0 + (a * gap) / tokens.length;
    for (let session = a; at < end; session++) {
      for (const query of keystrokes(a, session)) {
        if (at >= end) break;
        const wait = at - now();
        if (wait > 1) await sleep(wait);
        const sent = now();
        const counted = sent >= measureFrom;
        const request = fetch(`${server.url}${pickerPath(query)}`, {
          headers: { authorization: `Bearer ${tokens[a]!}` },
        }).then(
          async (res) => {
            await res.arrayBuffer();
            if (!counted) return;
            if (res.status === 200) latencies.push(now() - sent);
            else failed++;
          },
          () => {
            if (counted) failed++;
          },
        );
        inFlight.add(request);
        void request.finally(() => inFlight.delete(request));
        at += gap;
      }
      at += BETWEEN_MS;
    }
  };
  await Promise.all(tokens.map((_, a) => agent(a)));
  await Promise.all(inFlight);
  clearTimeout(startWindow);
  const cpu1 = cpuSeconds(server.pid);
  const db1 = cpuOf(await backendPids(p.dbUrl));
  let dbSeconds = 0;
  for (const [pid, s] of db1) dbSeconds += s - (db0.get(pid) ?? 0);
  latencies.sort((x, y) => x - y);
  const r1 = (n: number | null) => (n === null ? null : round(n, 1));
  const p50 = r1(percentile(latencies, 50));
  const p99 = r1(percentile(latencies, 99));
  const max = r1(latencies.at(-1) ?? null);
  const seconds = p.duration;
  log(
    `  ${latencies.length} keys answered (${Math.round(latencies.length / seconds)}/s), p50 ${p50} ms, ` +
      `p99 ${p99} ms, max ${max} ms${failed ? `, ${failed} failed` : ''}`,
  );
  return {
    id: CANNED_ROW,
    label: `canned-picker: ${CANNED_TOTAL} responses, ${tokens.length} agents typing`,
    request: `\`GET /api/canned-responses?q=<the draft after />&limit=8\` on every key, ${KEYS_PER_SECOND} keys/s per agent (paced)`,
    roles: 'api',
    value: Math.round(latencies.length / seconds),
    unit: 'keys/s',
    p50,
    p99,
    ratio: null,
    ratioOf: null,
    ...cpuPerItem(cpu0, cpu1, dbSeconds, latencies.length + failed),
    target: {
      text: `p99 ≤ ${CANNED_P99_MS} ms from the key`,
      met: p99 !== null && p99 <= CANNED_P99_MS && failed === 0 && p.correct,
    },
    notes: [
      `key → answer read in full; max ${max} ms`,
      `each agent sees ${ACCOUNT + PER_TEAM + PER_AGENT} of the ${CANNED_TOTAL} (the account's, one team's, their own)`,
      'CPU per request',
      ...(failed > 0 ? [`${failed} requests failed`] : []),
      ...(p.correct ? [] : ['the picker did not answer what the agent sees']),
    ],
    valid: failed === 0 && p.correct,
    details: { answered: latencies.length, failed, p50, p99, max, p90: percentile(latencies, 90) },
  };
}

/**
 * Before measuring: the picker sees what it should — every account-wide response, its team's and its
 * own (2,000 + 200 + 50 for an agent in one team) — and a shortcut typed in full comes first.
 */
export async function checkPicker(base: string, tokens: string[]): Promise<boolean> {
  const ask = async (query: string, limit = SHOWN) => {
    const res = await fetch(`${base}${pickerPath(query).replace(`limit=${SHOWN}`, `limit=${limit}`)}`, {
      // Agent 1: in one team (the seed adds agent 0, the search rows' agent, to two more).
      headers: { authorization: `Bearer ${tokens[1]!}` },
    });
    return {
      status: res.status,
      body: (await res.json()) as { total?: number; cannedResponses?: { shortcut: string }[] },
    };
  };
  const all = await ask('');
  const exact = await ask('entrega-1');
  return (
    all.status === 200 &&
    all.body.total === ACCOUNT + PER_TEAM + PER_AGENT &&
    exact.status === 200 &&
    exact.body.cannedResponses?.[0]?.shortcut.startsWith('entrega-1') === true
  );
}
