import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { analyzeLiveTables, type LiveAccount } from './live.js';
import { closeLocal, listenLocal, localUrl } from './local-http.js';
import { cpuOf, cpuPerItem, cpuSeconds, round } from './load.js';
import type { LiveRow } from './report.js';
import { backendPids, PASSWORD, withClient } from './seed.js';
import type { ServerUnderTest } from './server.js';

/** Subscriptions (endpoints) of the live account; a node runs at most 2 attempts per endpoint at once. */
const SUBSCRIPTIONS = 4;
/** Sandbox messages whose events make the backlog (2 events each, one delivery per subscription). */
const MESSAGES = 8_000;
const CONTACTS = 500;
const DRAIN_LIMIT_S = 120;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A local receiver: answers every POST 204 at once and counts the signed deliveries. */
class Receiver {
  received = 0;
  unsigned = 0;
  private readonly server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      if (typeof req.headers['atende-signature'] === 'string') this.received++;
      else this.unsigned++;
      res.writeHead(204);
      res.end();
    });
  });

  static async start(): Promise<Receiver> {
    const r = new Receiver();
    await listenLocal(r.server);
    return r;
  }

  get url(): string {
    return localUrl(this.server);
  }

  async close(): Promise<void> {
    await closeLocal(this.server);
  }
}

export interface WebhooksPhase {
  dbUrl: string;
  live: LiveAccount;
  duration: number;
  warmup: number;
  /** Starts a server process with these roles (the run's environment). */
  start(roles: string, label: string): Promise<ServerUnderTest>;
  log: (line: string) => void;
}

async function adminToken(base: string, email: string): Promise<string> {
  const res = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  if (res.status !== 200) throw new Error(`login answered ${res.status}`);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

/**
 * webhooks: a backlog of deliveries is made with the worker role off (SUBSCRIPTIONS endpoints taking
 * every event, MESSAGES sandbox messages), then a server with the api and worker roles delivers it;
 * the rate is measured at the receiver.
 */
/** Issue 15's target for signed deliveries a second to a local receiver. */
const WEBHOOK_TARGET = 2_000;

export async function runWebhooksRow(p: WebhooksPhase): Promise<LiveRow> {
  const { live, log } = p;
  const receiver = await Receiver.start();
  try {
    const api = await p.start('api', 'server api');
    let queued = 0;
    try {
      const token = await adminToken(api.url, live.adminEmail);
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      for (let i = 0; i < SUBSCRIPTIONS; i++) {
        const res = await fetch(`${api.url}/api/webhooks`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ url: `${receiver.url}/hooks/${i}`, events: ['*'] }),
        });
        if (res.status !== 201) throw new Error(`creating a webhook answered ${res.status}`);
      }
      log(`→ webhooks: queueing the events of ${MESSAGES} sandbox messages for ${SUBSCRIPTIONS} endpoints`);
      let next = 0;
      const lane = async () => {
        while (next < MESSAGES) {
          const i = next++;
          const res = await fetch(`${api.url}/api/sandbox/channels/${live.sandboxChannelId}/inbound`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ from: String(5511983000000 + (i % CONTACTS)), text: `webhook ${i}` }),
          });
          await res.arrayBuffer();
          if (res.status !== 201) throw new Error(`sandbox inbound answered ${res.status}`);
        }
      };
      await Promise.all(Array.from({ length: 20 }, lane));
      queued = await withClient(p.dbUrl, async (c) => {
        const r = await c.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM webhook_deliveries WHERE account_id = $1`,
          [live.accountId],
        );
        return r.rows[0]?.n ?? 0;
      });
    } finally {
      await api.stop();
    }
    await analyzeLiveTables(p.dbUrl);

    const roles = 'api,worker';
    const server = await p.start(roles, 'server api+worker');
    try {
      // Warm-up: the first deliveries (connections, JIT), then the measured window.
      const warmEnd = performance.now() + p.warmup * 1000;
      while (performance.now() < warmEnd && receiver.received < queued) await sleep(20);
      const d0 = receiver.received;
      const cpu0 = cpuSeconds(server.pid);
      const db0 = cpuOf(await backendPids(p.dbUrl));
      const t0 = performance.now();
      const limit = Math.min(p.duration, DRAIN_LIMIT_S) * 1000;
      while (performance.now() - t0 < limit && receiver.received < queued) await sleep(20);
      const seconds = (performance.now() - t0) / 1000;
      const delivered = receiver.received - d0;
      const cpu1 = cpuSeconds(server.pid);
      const db1 = cpuOf(await backendPids(p.dbUrl));
      let dbSeconds = 0;
      for (const [pid, s] of db1) dbSeconds += s - (db0.get(pid) ?? 0);
      const rate = delivered / seconds;
      const emptied = receiver.received >= queued;
      log(
        `  ${Math.round(rate)} deliveries/s over ${round(seconds, 1)} s (${queued} queued)` +
          (emptied ? ', backlog emptied' : ''),
      );
      return {
        id: 'webhooks',
        label: 'webhooks: deliveries to a local receiver',
        request: `${queued} deliveries queued (${SUBSCRIPTIONS} endpoints × every event of ${MESSAGES} sandbox messages), receiver answers 204`,
        roles,
        value: Math.round(rate),
        unit: 'deliveries/s',
        p50: null,
        p99: null,
        ratio: null,
        ratioOf: null,
        ...cpuPerItem(cpu0, cpu1, dbSeconds, delivered),
        target: { text: `≥ ${WEBHOOK_TARGET} deliveries/s`, met: rate >= WEBHOOK_TARGET },
        notes: [
          `${delivered} delivered in ${round(seconds, 1)} s${emptied ? ', backlog emptied before the window ended' : ''}`,
          'at most 16 attempts per endpoint at once (ATENDE_WEBHOOK_ENDPOINT_CONCURRENCY), claimed up to 128 per statement',
          'CPU per delivery',
          ...(receiver.unsigned > 0 ? [`${receiver.unsigned} requests without a signature`] : []),
        ],
        valid: receiver.unsigned === 0 && delivered > 0 && seconds >= Math.min(3, p.duration),
        details: { queued, delivered, seconds, emptied },
      };
    } finally {
      await server.stop();
    }
  } finally {
    await receiver.close();
  }
}
