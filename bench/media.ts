import { request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import type { BenchGraph } from './fake-graph.js';
import type { LiveAccount } from './live.js';
import { round } from './load.js';
import type { LiveRow } from './report.js';
import type { ServerUnderTest } from './server.js';
import { percentile } from './send.js';

/**
 * media-stall (issue 23): what large bodies cost everyone else. Four clients each send a 60 MB
 * document (80 MB of base64 in the JSON body) to the Channel API at once, and the node — every role,
 * as one node runs by default — accepts them, stores them and uploads them to the (fake) provider.
 * Meanwhile a probe on its own thread asks `GET /healthz` back to back; the row is that probe's p99
 * from the first byte sent until the last of the four is sent to the provider.
 */
export const MEDIA_ROW = 'media-stall';
export const MEDIA_TARGET = { p99Ms: 50 };

const CLIENTS = 4;
const FILE_BYTES = 60 * 1024 * 1024;
const SETTLE_LIMIT_MS = 300_000;

export interface MediaPhase {
  server: ServerUnderTest;
  graph: BenchGraph;
  live: LiveAccount;
  log: (line: string) => void;
}

/** The probe: plain JavaScript on a thread of its own, so the benchmark's own work never delays it. */
const PROBE = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const times = [];
let stop = false;
parentPort.on('message', () => { stop = true; });
function once() {
  if (stop) return parentPort.postMessage(times);
  const start = performance.now();
  http.get(workerData.url + '/healthz', { agent }, (res) => {
    res.resume();
    res.on('end', () => {
      times.push(performance.now() - start);
      setTimeout(once, 5);
    });
  }).on('error', () => { times.push(Infinity); setTimeout(once, 5); });
}
once();
`;

function post(url: string, key: string, parts: Buffer[]): Promise<{ status: number; body: string }> {
  const length = parts.reduce((n, p) => n + p.length, 0);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${url}/channel-api/messages/send`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': length, 'x-channel-api-key': key },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    for (const p of parts) req.write(p);
    req.end();
  });
}

async function requestStatus(url: string, key: string, requestId: string): Promise<string> {
  const res = await fetch(`${url}/channel-api/messages/requests/${requestId}`, {
    headers: { 'x-channel-api-key': key },
  });
  return ((await res.json()) as { status?: string }).status ?? `http ${res.status}`;
}

export async function runMediaRow(p: MediaPhase): Promise<LiveRow> {
  const { server, live, graph, log } = p;
  log(`→ ${MEDIA_ROW}: ${CLIENTS} clients × a ${FILE_BYTES / 2 ** 20} MB document, GET /healthz meanwhile`);
  // One file's base64, shared by the four bodies; each body differs in its contact only.
  const base64 = Buffer.from(Buffer.alloc(FILE_BYTES, 0x25).toString('base64'));
  const bodies = Array.from({ length: CLIENTS }, (_, i) => [
    Buffer.from(
      `{"contact":{"value":"55119870${String(i).padStart(5, '0')}"},"message":{"type":"media","media":` +
        `{"mimetype":"application/pdf","filename":"bench-${i}.pdf","base64":"`,
    ),
    base64,
    Buffer.from('"}}}'),
  ]);
  const uploadsBefore = graph.uploads;
  const probe = new Worker(PROBE, { eval: true, workerData: { url: server.url } });
  const started = performance.now();
  let accepted: Array<{ status: number; body: string }> = [];
  let settled: string[] = [];
  try {
    accepted = await Promise.all(bodies.map((parts) => post(server.url, live.channelKey, parts)));
    const acceptedAfterMs = performance.now() - started;
    const ids = accepted.map((a) =>
      a.status === 201 ? (JSON.parse(a.body) as { requestId: string }).requestId : null,
    );
    log(`  accepted: ${accepted.map((a) => a.status).join(', ')} after ${Math.round(acceptedAfterMs)} ms`);
    const deadline = Date.now() + SETTLE_LIMIT_MS;
    while (Date.now() < deadline) {
      settled = await Promise.all(
        ids.map((id) => (id ? requestStatus(server.url, live.channelKey, id) : 'refused')),
      );
      if (settled.every((s) => s !== 'queued' && s !== 'processing')) break;
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    probe.postMessage('stop');
  }
  const elapsedMs = performance.now() - started;
  const times = await new Promise<number[]>((resolve) => probe.once('message', resolve));
  await probe.terminate();
  const sorted = [...times].sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  const p99 = percentile(sorted, 99);
  const max = sorted.at(-1) ?? null;
  const sent = settled.filter((s) => s === 'sent').length;
  const uploads = graph.uploads - uploadsBefore;
  const valid = accepted.every((a) => a.status === 201) && sent === CLIENTS && uploads === CLIENTS;
  log(
    `  /healthz p50 ${p50 === null ? '–' : round(p50, 1)} ms, p99 ${p99 === null ? '–' : round(p99, 1)} ms, ` +
      `max ${max === null ? '–' : round(max, 1)} ms over ${sorted.length} probes; ${sent}/${CLIENTS} sent, ` +
      `${uploads} uploads, ${Math.round(elapsedMs)} ms in all`,
  );
  return {
    id: MEDIA_ROW,
    label: `${MEDIA_ROW}: GET /healthz while ${CLIENTS} clients each send a 60 MB media message`,
    request: `${CLIENTS} × POST /channel-api/messages/send (80 MB of base64 each), then their upload; GET /healthz meanwhile`,
    roles: 'api,gateway,worker',
    value: p99 === null ? null : round(p99, 1),
    unit: 'ms p99',
    p50: p50 === null ? null : round(p50, 1),
    p99: p99 === null ? null : round(p99, 1),
    ratio: null,
    ratioOf: null,
    serverCpuUs: null,
    dbCpuUs: null,
    target: {
      text: `p99 ≤ ${MEDIA_TARGET.p99Ms} ms`,
      met: valid && p99 !== null && p99 <= MEDIA_TARGET.p99Ms,
    },
    notes: [
      `max ${max === null ? '–' : round(max, 1)} ms over ${sorted.length} probes`,
      `all ${CLIENTS} accepted, stored, uploaded and sent in ${round(elapsedMs / 1000, 1)} s`,
    ],
    valid,
    details: {
      probes: sorted.length,
      p50,
      p99,
      max,
      accepted: accepted.map((a) => a.status),
      settled,
      uploads,
    },
  };
}
