import assert from 'node:assert/strict';
import type { Cluster, FaultNode } from './fault-cluster.js';
import type { RecordedRequest } from './fake-graph.js';

/**
 * A steady Channel API send load (POST /channel-api/messages/send) spread over the live nodes in turn,
 * each text carrying a marker that names it, so that the fake Graph API's requests tell which message
 * was sent and how often. A contact has at most one request in flight: its requests are issued in
 * order, so the order of its accepted (201) messages is known.
 */

export interface Attempt {
  marker: string;
  contact: number;
  /** Position among this contact's requests. */
  seq: number;
  node: string;
  /** Label of the load's phase when the request was sent (e.g. before, fault, after). */
  phase: string;
  startedAt: number;
  endedAt: number;
  /** HTTP status, or `timeout` (no answer within the client's bound) or `error` (connection failed). */
  status: number | 'timeout' | 'error' | 'pending';
  body: unknown;
  retryAfter: string | null;
}

export interface LoadOptions {
  /** Requests per second, in total. */
  rate: number;
  contacts: number;
  /** The client's bound on one request (until a phase changes it). */
  timeoutMs: number;
  /** Every request to this address (a load balancer, named `lb`) rather than to the nodes in turn. */
  baseUrl?: string;
  /** The nodes to spread the requests over, asked at each request; default the cluster's live nodes. */
  targets?: () => Array<Pick<FaultNode, 'name' | 'url'>>;
}

export const phoneOf = (contact: number) => `5511987${String(contact).padStart(6, '0')}`;

export class SendLoad {
  readonly attempts: Attempt[] = [];
  private phaseLabel = 'before';
  private timer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly busy = new Set<number>();
  private readonly perContact: number[];
  private nextContact = 0;
  private nextNode = 0;
  private issued = 0;
  private startedAt = 0;
  private nextId = 0;
  private timeoutMs: number;

  constructor(
    private readonly cluster: Cluster,
    private readonly opts: LoadOptions,
  ) {
    this.perContact = new Array<number>(opts.contacts).fill(0);
    this.timeoutMs = opts.timeoutMs;
  }

  /** Labels the requests sent from now on; `timeoutMs` changes the client's bound for them. */
  phase(label: string, timeoutMs?: number): void {
    this.phaseLabel = label;
    if (timeoutMs !== undefined) this.timeoutMs = timeoutMs;
  }

  start(): void {
    this.startedAt = Date.now();
    this.issued = 0;
    this.timer = setInterval(() => this.tick(), 10);
  }

  /** Stops issuing and waits for the requests in flight (each is bounded by the client's timeout). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all([...this.inFlight]);
  }

  private targets(): Array<Pick<FaultNode, 'name' | 'url'>> {
    if (this.opts.baseUrl) return [{ name: 'lb', url: this.opts.baseUrl }];
    if (this.opts.targets) return this.opts.targets();
    return this.cluster.nodes.filter((n) => n.alive());
  }

  private tick(): void {
    const due = Math.floor(((Date.now() - this.startedAt) / 1000) * this.opts.rate) - this.issued;
    for (let i = 0; i < due; i++) {
      const nodes = this.targets();
      if (nodes.length === 0) return;
      const contact = this.freeContact();
      // Every contact busy (requests hanging): the open loop skips rather than queueing up.
      if (contact === null) {
        this.issued++;
        continue;
      }
      const node = nodes[this.nextNode++ % nodes.length]!;
      this.issued++;
      this.send(node, contact);
    }
  }

  private freeContact(): number | null {
    for (let i = 0; i < this.opts.contacts; i++) {
      const c = (this.nextContact + i) % this.opts.contacts;
      if (!this.busy.has(c)) {
        this.nextContact = c + 1;
        return c;
      }
    }
    return null;
  }

  private send(node: Pick<FaultNode, 'name' | 'url'>, contact: number): void {
    const seq = this.perContact[contact]!++;
    const attempt: Attempt = {
      marker: `fault-${this.nextId++}-c${contact}-s${seq}`,
      contact,
      seq,
      node: node.name,
      phase: this.phaseLabel,
      startedAt: Date.now(),
      endedAt: 0,
      status: 'pending',
      body: null,
      retryAfter: null,
    };
    this.attempts.push(attempt);
    this.busy.add(contact);
    const p = (async () => {
      try {
        const res = await fetch(`${node.url}/channel-api/messages/send`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-channel-api-key': this.cluster.channelKey },
          body: JSON.stringify({
            contact: { value: phoneOf(contact) },
            message: { type: 'text', text: { value: attempt.marker } },
          }),
          signal: AbortSignal.timeout(this.timeoutMs),
        });
        const text = await res.text();
        attempt.status = res.status;
        attempt.retryAfter = res.headers.get('retry-after');
        try {
          attempt.body = JSON.parse(text) as unknown;
        } catch {
          attempt.body = text;
        }
      } catch (err) {
        const name = (err as { name?: string }).name;
        attempt.status = name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'error';
      } finally {
        attempt.endedAt = Date.now();
        this.busy.delete(contact);
      }
    })();
    this.inFlight.add(p);
    void p.then(() => this.inFlight.delete(p));
  }
}

export interface Outcome {
  requests: number;
  accepted: number;
  /** Answers by status (`timeout`/`error` for none). */
  statuses: Record<string, number>;
  /** Accepted messages the provider received (at least once). */
  delivered: number;
  /** Accepted messages never received by the provider. */
  lost: string[];
  /** Provider calls beyond the first, over every message (accepted or not). */
  duplicates: number;
  duplicated: string[];
  /** Messages of requests without an answer (timeout, connection error) that were sent nonetheless. */
  sentWithoutAnswer: number;
  /** Messages of requests answered with an error status (e.g. 503) that were sent nonetheless. */
  sentAfterRefusal: string[];
  /** Accepted messages of a contact that reached the provider before an earlier accepted one. */
  orderViolations: string[];
}

/** Sent texts by marker: how often each reached the fake Graph API, in arrival order. */
export function providerSends(requests: readonly RecordedRequest[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of requests) {
    const marker = textOf(r);
    if (marker !== null) counts.set(marker, (counts.get(marker) ?? 0) + 1);
  }
  return counts;
}

export function textOf(r: RecordedRequest): string | null {
  if (!r.path.endsWith('/messages')) return null;
  const body = (r.json as { text?: { body?: unknown } } | undefined)?.text?.body;
  return typeof body === 'string' && body.startsWith('fault-') ? body : null;
}

export function outcome(attempts: readonly Attempt[], requests: readonly RecordedRequest[]): Outcome {
  const counts = providerSends(requests);
  const statuses: Record<string, number> = {};
  for (const a of attempts) statuses[String(a.status)] = (statuses[String(a.status)] ?? 0) + 1;
  const accepted = attempts.filter((a) => a.status === 201);
  const lost = accepted.filter((a) => !counts.has(a.marker)).map((a) => a.marker);
  let duplicates = 0;
  const duplicated: string[] = [];
  for (const [marker, n] of counts) {
    if (n > 1) {
      duplicates += n - 1;
      duplicated.push(marker);
    }
  }
  const sentWithoutAnswer = attempts.filter(
    (a) => typeof a.status !== 'number' && counts.has(a.marker),
  ).length;
  const sentAfterRefusal = attempts
    .filter((a) => typeof a.status === 'number' && a.status !== 201 && counts.has(a.marker))
    .map((a) => a.marker);

  // Per contact, the first arrival of each accepted message must follow the acceptance order.
  const acceptedSeq = new Map(accepted.map((a) => [a.marker, a]));
  const lastSeq = new Map<number, number>();
  const seen = new Set<string>();
  const orderViolations: string[] = [];
  for (const r of requests) {
    const marker = textOf(r);
    if (marker === null || seen.has(marker)) continue;
    seen.add(marker);
    const a = acceptedSeq.get(marker);
    if (!a) continue;
    const prev = lastSeq.get(a.contact) ?? -1;
    if (a.seq < prev) orderViolations.push(marker);
    else lastSeq.set(a.contact, a.seq);
  }
  return {
    requests: attempts.length,
    accepted: accepted.length,
    statuses,
    delivered: accepted.length - lost.length,
    lost,
    duplicates,
    duplicated,
    sentWithoutAnswer,
    sentAfterRefusal,
    orderViolations,
  };
}

/**
 * Waits (bounded) until every accepted message reached the provider and the send queue is empty, so
 * no further provider call (a duplicate) can come; false when the bound passed first.
 */
export async function settle(cluster: Cluster, load: SendLoad, boundMs: number): Promise<boolean> {
  const deadline = Date.now() + boundMs;
  const accepted = () => load.attempts.filter((a) => a.status === 201).map((a) => a.marker);
  for (;;) {
    const counts = providerSends(cluster.fake.requests);
    if (accepted().every((m) => counts.has(m))) {
      try {
        const [row] = await cluster.query<{ n: string }>('SELECT count(*) AS n FROM send_jobs');
        if (row && Number(row.n) === 0) return true;
      } catch {
        // the database is not back yet
      }
    }
    // Nobody left to send: waiting longer cannot change the outcome.
    if (Date.now() > deadline || !cluster.nodes.some((n) => n.alive())) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * From `since` until every named node answered a 201 again (the end of that request), in ms; null
 * when one of them never did.
 */
export function recoveryMs(attempts: readonly Attempt[], since: number, nodes: string[]): number | null {
  let worst = 0;
  for (const name of nodes) {
    const first = attempts
      .filter((a) => a.node === name && a.status === 201 && a.startedAt >= since)
      .reduce<number | null>((min, a) => (min === null || a.endedAt < min ? a.endedAt : min), null);
    if (first === null) return null;
    worst = Math.max(worst, first - since);
  }
  return worst;
}

/** From `since` until the last accepted message first reached the provider, in ms. */
export function drainMs(cluster: Cluster, attempts: readonly Attempt[], since: number): number | null {
  const accepted = new Set(attempts.filter((a) => a.status === 201).map((a) => a.marker));
  const first = new Map<string, number>();
  for (const r of cluster.fake.requests) {
    const m = textOf(r);
    const at = cluster.receivedAt.get(r);
    if (m !== null && accepted.has(m) && at !== undefined && !first.has(m)) first.set(m, at);
  }
  if (first.size === 0) return null;
  return Math.max(0, Math.max(...first.values()) - since);
}

/**
 * Every request not accepted was refused with the contract's 503: a status (no hang, no dropped
 * connection), `Retry-After`, and the body `{statusCode: 503, message, error}`.
 */
export function assertRefusalsAre503(attempts: readonly Attempt[]): void {
  const bad = attempts.filter((a) => {
    if (a.status === 201) return false;
    if (a.status !== 503 || a.retryAfter === null) return true;
    const b = a.body as Record<string, unknown> | null;
    return !(
      b !== null &&
      typeof b === 'object' &&
      b.statusCode === 503 &&
      (typeof b.message === 'string' || Array.isArray(b.message)) &&
      typeof b.error === 'string'
    );
  });
  if (bad.length === 0) return;
  const byStatus = new Map<string, Attempt>();
  for (const a of bad) if (!byStatus.has(String(a.status))) byStatus.set(String(a.status), a);
  const samples = [...byStatus.values()].map(
    (a) => `${String(a.status)} retry-after=${a.retryAfter} ${JSON.stringify(a.body).slice(0, 300)}`,
  );
  throw new assert.AssertionError({
    message: `${bad.length} requests were neither accepted nor refused with the contract's 503, e.g.:\n  ${samples.join('\n  ')}`,
  });
}

/**
 * For an assertion's message: each marker's request (node, phase, answer) and when the provider got
 * it, in seconds from `since` — e.g. to tell a duplicate caused by a lease expiry from a retried send.
 */
export function describeMarkers(
  cluster: Cluster,
  attempts: readonly Attempt[],
  markers: readonly string[],
  since: number,
): string {
  const byMarker = new Map(attempts.map((a) => [a.marker, a]));
  return markers
    .slice(0, 10)
    .map((m) => {
      const a = byMarker.get(m);
      const at = cluster.fake.requests
        .filter((r) => textOf(r) === m)
        .map((r) => {
          const t = cluster.receivedAt.get(r);
          return t === undefined ? '?' : `${((t - since) / 1000).toFixed(1)} s`;
        });
      return `${m}: sent to ${a?.node ?? '?'} (${a?.phase ?? '?'}, answered ${String(a?.status)}), provider got it at ${at.join(', ')}`;
    })
    .join('\n  ');
}
