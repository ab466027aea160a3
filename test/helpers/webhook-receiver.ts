import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the receiver got: headers, raw body and when. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** What the receiver answers to its n-th request (0-based); `hang` never answers. */
export type Script = (
  n: number,
  req: ReceivedRequest,
) => { status: number; body?: string; headers?: Record<string, string>; hang?: boolean };

export interface WebhookReceiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Most requests open (received, not yet answered or dropped by the sender) at one time. */
  maxOpen(): number;
  /** Resolves with the next request (matching `pred`) not taken yet, past or future. */
  next(pred?: (r: ReceivedRequest) => boolean): Promise<ReceivedRequest>;
  close(): Promise<void>;
}

/**
 * A webhook endpoint on 127.0.0.1 (port 0 = any free port) that records every request and answers as
 * scripted (200 by default).
 */
export async function startReceiver(opts: { port?: number; script?: Script } = {}): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const taken = new Set<number>();
  const waiters: (() => void)[] = [];
  let open = 0;
  let maxOpen = 0;
  const script: Script = opts.script ?? (() => ({ status: 200, body: 'ok' }));
  const server = http.createServer((req, res) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    res.on('close', () => open--);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      const answer = script(requests.length, r);
      requests.push(r);
      if (!answer.hang) res.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    requests,
    maxOpen: () => maxOpen,
    next: (pred = () => true) =>
      new Promise((resolve) => {
        const look = () => {
          const i = requests.findIndex((r, idx) => !taken.has(idx) && pred(r));
          if (i >= 0) {
            taken.add(i);
            resolve(requests[i]!);
          } else waiters.push(look);
        };
        look();
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port nothing listens on (taken from the system, then released). */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
