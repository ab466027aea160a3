import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { closeLocal, listenLocal, localUrl } from './local-http.js';

/**
 * The benchmark's stand-in for Meta's Graph API, on 127.0.0.1 in the benchmark process: every
 * `POST /<version>/<phone number id>/messages` with the channel's token is answered 200 with a new
 * `wamid`, as Graph answers an accepted message, so the send pipeline measured is the real one
 * (WhatsApp provider, HTTP call, stored provider id). It counts what it receives and, for texts the
 * latency row marks, when each arrived. `delayMs` holds every answer that long (a real Graph call
 * takes 100–300 ms), to see what provider latency does to the drain rate. Media uploads
 * (`POST /<version>/<phone number id>/media`) are counted as they stream in and answered with an id.
 */
export class BenchGraph {
  /** Messages answered 200 so far. */
  delivered = 0;
  /** Requests refused (wrong token, path or body): a broken benchmark, reported as such. */
  refused = 0;
  /** Media uploads answered so far, and their bytes (multipart body included). */
  uploads = 0;
  uploadedBytes = 0;
  /** Called with the text of every message received, and when (performance.now()). */
  onText: ((text: string, at: number) => void) | null = null;
  /** Called with the recipient and type of every message accepted, and when (performance.now()). */
  onSend: ((to: string, type: string, at: number) => void) | null = null;
  private seq = 0;
  /** Ids stay unique across fake servers of different runs against the same database. */
  private readonly prefix = `${Date.now().toString(36)}${process.pid.toString(36)}`;
  private readonly server = createServer((req, res) => {
    this.handle(req, res).catch(() => res.destroy());
  });

  private constructor(
    private readonly token: string,
    private readonly delayMs: number,
  ) {}

  static async start(token: string, delayMs = 0): Promise<BenchGraph> {
    const graph = new BenchGraph(token, delayMs);
    await listenLocal(graph.server);
    return graph;
  }

  get url(): string {
    return localUrl(this.server);
  }

  async close(): Promise<void> {
    await closeLocal(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method === 'POST' && /^\/v\d+\.\d+\/\d+\/media$/.test(req.url ?? ''))
      return this.upload(req, res);
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const at = performance.now();
    let body: { to?: unknown; type?: unknown; text?: { body?: unknown } } = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
    } catch {
      // answered as a bad request below
    }
    const ok =
      req.method === 'POST' &&
      /^\/v\d+\.\d+\/\d+\/messages$/.test(req.url ?? '') &&
      req.headers.authorization === `Bearer ${this.token}` &&
      typeof body.to === 'string' &&
      typeof body.type === 'string';
    if (!ok) {
      this.refused++;
      return answer(res, 400, { error: { message: 'Invalid parameter', type: 'OAuthException', code: 100 } });
    }
    const to = body.to as string;
    const text = body.text?.body;
    if (typeof text === 'string') this.onText?.(text, at);
    this.onSend?.(to, body.type as string, at);
    if (this.delayMs > 0) await new Promise((r) => setTimeout(r, this.delayMs));
    this.delivered++;
    answer(res, 200, {
      messaging_product: 'whatsapp',
      // As Graph answers: the WhatsApp id is the number's digits, without the `+` it may be sent with.
      contacts: [{ input: to, wa_id: to.replace(/^\+/, '') }],
      messages: [{ id: `wamid.bench.${this.prefix}.${++this.seq}` }],
    });
  }

  /** An upload is counted as it streams in, never held: this process also measures, and must not stall. */
  private async upload(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let bytes = 0;
    for await (const chunk of req) bytes += (chunk as Buffer).length;
    if (req.headers.authorization !== `Bearer ${this.token}`) {
      this.refused++;
      return answer(res, 401, {
        error: { message: 'Invalid OAuth access token', type: 'OAuthException', code: 190 },
      });
    }
    this.uploads++;
    this.uploadedBytes += bytes;
    answer(res, 200, { id: `bench-media-${this.prefix}-${this.uploads}` });
  }
}

function answer(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
