/**
 * The `flow-menu` row: new conversations through a channel's built-in menu (docs/adr/0086-built-in-flows.md).
 * The live account's WhatsApp channel gets a flow (greeting + interactive menu); customers' first
 * messages arrive as signed Graph webhooks at FLOW_RATE a second, open loop, each from a new number;
 * the server (api + worker roles) stores each delivery, its job receives the message, opens the
 * conversation in `Automação` and queues the greeting and the menu in that transaction, and the send
 * queue delivers them to the fake Graph API. Measured per conversation: from the webhook's POST to the
 * menu's arrival at Graph.
 */
import { createHmac } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { BenchGraph } from './fake-graph.js';
import { cpuOf, cpuPerItem, cpuSeconds, round } from './load.js';
import { PHONE_NUMBER_ID, type LiveAccount } from './live.js';
import type { LiveRow } from './report.js';
import { backendPids, PASSWORD, withClient } from './seed.js';
import type { ServerUnderTest } from './server.js';

export const FLOW_ROW = 'flow-menu';
/**
 * The rate and target: 1,000 new conversations a second, p99 to the menu's send ≤ 100 ms.
 * `BENCH_FLOW_RATE` offers another rate, to find where a machine stands (the target is judged at 1,000).
 */
const FLOW_TARGET_RATE = 1_000;
const FLOW_RATE = Number(process.env.BENCH_FLOW_RATE ?? FLOW_TARGET_RATE);
const FLOW_TARGET_MS = 100;
const APP_SECRET = 'bench-app-secret';
/** How long after the last webhook the menus still due may take to arrive. */
const DRAIN_MS = 30_000;

export async function runFlowRow(p: {
  dbUrl: string;
  server: ServerUnderTest;
  graph: BenchGraph;
  live: LiveAccount;
  /** Seconds at the rate (after `warmup` seconds not counted). */
  duration: number;
  warmup: number;
  log: (line: string) => void;
}): Promise<LiveRow> {
  const { server, graph, live, log } = p;
  const login = await fetch(`${server.url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: live.adminEmail, password: PASSWORD }),
  });
  if (login.status !== 200) throw new Error(`flow-menu: login answered ${login.status}`);
  const { accessToken } = (await login.json()) as { accessToken: string };
  const put = await fetch(`${server.url}/api/channels/${live.whatsappChannelId}/flow`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      enabled: true,
      greeting: 'Olá! Bem-vindo.',
      menu: {
        prompt: 'Como podemos ajudar?',
        options: [
          { label: 'Vendas', teamId: live.teamId },
          { label: 'Suporte', teamId: live.teamId },
        ],
        interactive: true,
        invalidReply: 'Opção inválida.',
        maxAttempts: 3,
        timeoutMinutes: 10,
      },
      outOfHoursMessage: null,
      awayMessage: null,
      autoClose: null,
      csat: null,
    }),
  });
  if (put.status !== 200) throw new Error(`flow-menu: updateChannelFlow answered ${put.status}`);

  const total = (p.warmup + p.duration) * FLOW_RATE;
  const counted = p.warmup * FLOW_RATE;
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  let menus = 0;
  let done: () => void = () => {};
  const all = new Promise<void>((r) => (done = r));
  graph.onSend = (to, type, at) => {
    if (type !== 'interactive') return;
    const t0 = sentAt.get(to);
    if (t0 === undefined) return;
    menus++;
    const i = Number(to.slice(-7));
    if (i >= counted) latencies.push(at - t0);
    if (menus === total) done();
  };
  const base = 5_511_900_000_000 + (Date.now() % 1000) * 10_000_000;
  let refused = 0;
  let cpu0: number | null = null;
  let db0 = new Map<number, number>();
  const posts: Promise<void>[] = [];
  const start = performance.now();
  log(`→ ${FLOW_ROW}: ${total} new conversations by webhook at ${FLOW_RATE}/s (${p.warmup} s warm-up)`);
  for (let i = 0; i < total; i++) {
    if (i === counted) {
      cpu0 = cpuSeconds(server.pid);
      db0 = cpuOf(await backendPids(p.dbUrl));
    }
    const due = start + (i * 1000) / FLOW_RATE;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const from = String(base + i);
    const raw = JSON.stringify(webhook(from, `wamid.flowbench.${from}`));
    const signature = `sha256=${createHmac('sha256', APP_SECRET).update(raw).digest('hex')}`;
    sentAt.set(`+${from}`, performance.now());
    posts.push(
      fetch(`${server.url}/webhooks/whatsapp/${live.whatsappChannelId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
        body: raw,
      }).then(
        async (res) => {
          await res.arrayBuffer();
          if (res.status !== 200) refused++;
        },
        () => void refused++,
      ),
    );
  }
  const offered = (performance.now() - start) / 1000;
  await Promise.all(posts);
  await Promise.race([all, new Promise((r) => setTimeout(r, DRAIN_MS))]);
  graph.onSend = null;
  const cpu1 = cpuSeconds(server.pid);
  const db1 = cpuOf(await backendPids(p.dbUrl));
  let dbSeconds = 0;
  for (const [pid, s] of db1) dbSeconds += s - (db0.get(pid) ?? 0);
  const inAutomation = await withClient(p.dbUrl, async (c) => {
    const r = await c.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM chats WHERE channel_id = $1 AND queue = 'Automação' AND status = 'open'`,
      [live.whatsappChannelId],
    );
    return r.rows[0]?.n ?? 0;
  });
  const sorted = [...latencies].sort((a, b) => a - b);
  const pct = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? null;
  const p50 = pct(0.5);
  const p99 = pct(0.99);
  const lost = total - menus;
  const valid = refused === 0 && lost === 0 && inAutomation >= total;
  log(
    `  offered ${round(total / offered, 0)}/s; menus ${menus}/${total}, p50 ${p50 === null ? '–' : round(p50, 1)} ms, ` +
      `p99 ${p99 === null ? '–' : round(p99, 1)} ms; ${refused} webhooks refused; ${inAutomation} chats in Automação`,
  );
  return {
    id: FLOW_ROW,
    label: 'new conversations through a built-in menu',
    request: `signed WhatsApp webhooks, ${FLOW_RATE}/s new numbers → \`Automação\`, greeting + interactive menu to Graph`,
    roles: 'api,worker',
    value: p99 === null ? null : round(p99, 1),
    unit: 'ms p99, webhook → menu at Graph',
    p50: p50 === null ? null : round(p50, 1),
    p99: p99 === null ? null : round(p99, 1),
    ratio: null,
    ratioOf: null,
    ...cpuPerItem(cpu0, cpu1, dbSeconds, Math.max(1, latencies.length)),
    target: {
      text: `${FLOW_TARGET_RATE}/s, p99 ≤ ${FLOW_TARGET_MS} ms, every menu sent`,
      met: valid && FLOW_RATE >= FLOW_TARGET_RATE && p99 !== null && p99 <= FLOW_TARGET_MS,
    },
    notes: [
      `offered ${round(total / offered, 0)}/s`,
      'CPU per conversation',
      ...(lost > 0 ? [`${lost} menus not sent within ${DRAIN_MS / 1000} s`] : []),
      ...(refused > 0 ? [`${refused} webhooks refused`] : []),
    ],
    valid,
    details: { total, counted: latencies.length, menus, refused, inAutomation, p50, p99 },
  };
}

function webhook(from: string, id: string) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: '102290129340398',
        changes: [
          {
            field: 'messages',
            value: {
              messaging_product: 'whatsapp',
              metadata: { display_phone_number: '15550783881', phone_number_id: PHONE_NUMBER_ID },
              contacts: [{ profile: { name: 'Cliente' }, wa_id: from }],
              messages: [
                {
                  from,
                  id,
                  timestamp: String(Math.floor(Date.now() / 1000)),
                  type: 'text',
                  text: { body: 'Oi' },
                },
              ],
            },
          },
        ],
      },
    ],
  };
}
