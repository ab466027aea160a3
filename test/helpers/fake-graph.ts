import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for Meta's Graph API (the one fake this project allows): it records every request
 * as received, checks the Bearer token and the basic shape of `messages` (sends and read receipts)
 * and `media` calls the way Graph does, and answers like Graph. Tests can script the next answers and await the next request.
 */

export type FormField = { value: string } | { filename: string; contentType: string; bytes: Buffer };

export interface RecordedRequest {
  method: string;
  path: string;
  /** The query string's parameters (a plain object: requests are posted across threads). */
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed body of a JSON request. */
  json?: unknown;
  /** Fields of a multipart/form-data request. */
  form?: Record<string, FormField>;
}

export interface ScriptedAnswer {
  status: number;
  /** Sent as JSON; leave out for an empty body. */
  body?: unknown;
  /** Sent as is, instead of `body`. */
  raw?: string;
}

export interface FakeGraphOptions {
  /** The access token every request must carry; default `test-token`. */
  token?: string;
  /** `to` (digits, without `+`) → the `wa_id` to answer; default the `to` itself. */
  waIds?: Record<string, string>;
  /**
   * Sent messages' ids are `wamid.<n>` from n = this + 1 (default 1). A second fake standing for the
   * same Graph starts past the first one's, since Graph never answers an id twice.
   */
  messageIdsAfter?: number;
}

/** A customer's file the fake holds, as Graph keeps an inbound media. */
export interface FakeMedia {
  bytes: Buffer;
  mimetype: string;
  /** What the metadata answer declares; default the real size and hex digest. */
  fileSize?: number;
  sha256?: string;
}

type Scripted =
  | { kind: 'answer'; answer: ScriptedAnswer }
  | { kind: 'hang' }
  | { kind: 'hold'; released: Promise<void>; answer?: ScriptedAnswer };

export class FakeGraph {
  readonly requests: RecordedRequest[] = [];
  private readonly scripted: Scripted[] = [];
  private readonly holds: { match: (r: RecordedRequest) => boolean; released: Promise<void> }[] = [];
  private readonly waiters: Array<{ resolve: (r: RecordedRequest) => void; reject: (e: Error) => void }> = [];
  private taken = 0;
  private messageSeq = 0;
  private mediaSeq = 0;
  private readonly server = createServer((req, res) => {
    this.handle(req, res).catch(() => res.destroy());
  });
  private token: string;
  private readonly waIds: Map<string, string>;
  private readonly media = new Map<string, FakeMedia>();
  /** Message templates by WhatsApp Business Account id, as Graph lists them. */
  private readonly templates = new Map<string, Record<string, unknown>[]>();

  private constructor(opts: FakeGraphOptions) {
    this.token = opts.token ?? 'test-token';
    this.waIds = new Map(Object.entries(opts.waIds ?? {}));
    this.messageSeq = opts.messageIdsAfter ?? 0;
  }

  static async start(opts: FakeGraphOptions = {}): Promise<FakeGraph> {
    const fake = new FakeGraph(opts);
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** `http://127.0.0.1:<port>`: the Graph base URL to configure. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /**
   * The next request not yet handed out by this method, in arrival order: resolves at once when it has
   * already arrived, else when it does.
   */
  nextRequest(): Promise<RecordedRequest> {
    const ready = this.requests[this.taken];
    if (ready) {
      this.taken++;
      return Promise.resolve(ready);
    }
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** The next request is answered with a Graph error body. */
  failNext(e: { status?: number; code: number; message?: string; details?: string; subcode?: number }): void {
    this.respondNext({
      status: e.status ?? 400,
      body: graphError(e.code, e.message ?? `Fake Graph error ${e.code}`, e.details, e.subcode),
    });
  }

  /** The next request gets exactly this answer. */
  respondNext(answer: ScriptedAnswer): void {
    this.scripted.push({ kind: 'answer', answer });
  }

  /** The next request is never answered (until `close`), to exercise client timeouts. */
  hangNext(): void {
    this.scripted.push({ kind: 'hang' });
  }

  /**
   * The next request is recorded at once but answered only when `release` is called — as usual (the
   * provider has the message, the sender does not know yet), or with `answer`.
   */
  holdNext(answer?: ScriptedAnswer): { release(): void } {
    let release!: () => void;
    this.scripted.push({
      kind: 'hold',
      released: new Promise<void>((r) => (release = r)),
      ...(answer ? { answer } : {}),
    });
    return { release: () => release() };
  }

  /**
   * Every request for which `match` holds, until `release`, is recorded at once and answered only then
   * (as usual, or as scripted).
   */
  holdWhere(match: (r: RecordedRequest) => boolean): { release(): void } {
    let release!: () => void;
    const hold = { match, released: new Promise<void>((r) => (release = r)) };
    this.holds.push(hold);
    return {
      release: () => {
        const i = this.holds.indexOf(hold);
        if (i >= 0) this.holds.splice(i, 1);
        release();
      },
    };
  }

  /**
   * Holds a customer's file under `id`: `GET /{version}/{id}` answers its metadata and a URL on this
   * server, whose `GET` (with the same Bearer token) answers the bytes. Unknown ids answer Graph's
   * "does not exist" error, as an expired media does.
   */
  addMedia(id: string, media: FakeMedia): void {
    this.media.set(id, media);
  }

  /** The templates `GET /<version>/<wabaId>/message_templates` lists (every status; Graph filters). */
  setTemplates(wabaId: string, templates: Record<string, unknown>[]): void {
    this.templates.set(wabaId, templates);
  }

  setToken(token: string): void {
    this.token = token;
  }

  setWaId(to: string, waId: string): void {
    this.waIds.set(to.replace(/^\+/, ''), waId);
  }

  async close(): Promise<void> {
    for (const w of this.waiters.splice(0)) w.reject(new Error('fake Graph server closed'));
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const path = url.pathname;
    const contentType = req.headers['content-type'] ?? '';
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
    };
    let malformed = false;
    if (contentType.startsWith('application/json')) {
      try {
        recorded.json = JSON.parse(raw.toString('utf8')) as unknown;
      } catch {
        malformed = true;
      }
    } else if (contentType.startsWith('multipart/form-data')) {
      try {
        recorded.form = await parseMultipart(contentType, raw);
      } catch {
        malformed = true;
      }
    }
    this.record(recorded);

    if (req.headers.authorization !== `Bearer ${this.token}`) {
      return send(res, 401, graphError(190, 'Invalid OAuth access token - Cannot parse access token'));
    }
    const hold = this.holds.find((h) => h.match(recorded));
    if (hold) await hold.released;
    let next = this.scripted.shift();
    if (next?.kind === 'hang') return; // left open until close()
    if (next?.kind === 'hold') {
      await next.released;
      next = next.answer ? { kind: 'answer', answer: next.answer } : undefined;
    }
    if (next) {
      res.statusCode = next.answer.status;
      if (next.answer.raw !== undefined) return void res.end(next.answer.raw);
      if (next.answer.body === undefined) return void res.end();
      return send(res, next.answer.status, next.answer.body);
    }
    if (malformed) return send(res, 400, graphError(100, 'Invalid parameter'));

    const templates = /^\/[^/]+\/([^/]+)\/message_templates$/.exec(path);
    if (req.method === 'GET' && templates) return this.answerTemplates(res, templates[1]!, url.searchParams);
    if (req.method === 'GET') return this.answerMediaGet(res, path);

    const m = /^\/[^/]+\/[^/]+\/(messages|media)$/.exec(path);
    if (req.method !== 'POST' || !m) {
      return send(res, 400, graphError(2500, `Unknown path components: ${path}`));
    }
    if (m[1] === 'messages') return this.answerMessage(res, recorded.json);
    return this.answerMedia(res, recorded.form);
  }

  private answerMessage(res: ServerResponse, json: unknown): void {
    const body = typeof json === 'object' && json !== null ? (json as Record<string, unknown>) : {};
    // A read receipt: exactly these three fields, the id of a message the business received; with a
    // typing indicator, a fourth: `typing_indicator: {type: "text"}`.
    if (body.status !== undefined) {
      const { typing_indicator: typing, ...receipt } = body;
      const keys = Object.keys(receipt).sort().join(',');
      const id = body.message_id;
      if (
        keys !== 'message_id,messaging_product,status' ||
        (typing !== undefined && JSON.stringify(typing) !== '{"type":"text"}') ||
        body.messaging_product !== 'whatsapp' ||
        body.status !== 'read' ||
        typeof id !== 'string' ||
        !id.startsWith('wamid.')
      ) {
        return send(res, 400, graphError(100, 'Invalid parameter'));
      }
      return send(res, 200, { success: true });
    }
    const to = body.to;
    // A business-scoped user id goes in `recipient`; Graph then answers its `user_id`, no `wa_id`.
    const recipient = body.recipient;
    const byUserId = to === undefined && typeof recipient === 'string' && /^[A-Z]{2}\./.test(recipient);
    if (
      body.messaging_product !== 'whatsapp' ||
      (typeof to !== 'string' && !byUserId) ||
      typeof body.type !== 'string'
    ) {
      return send(res, 400, graphError(100, 'Invalid parameter'));
    }
    const digits = typeof to === 'string' ? to.replace(/[^\d]/g, '') : '';
    const contact = byUserId
      ? { input: recipient, user_id: recipient }
      : { input: to, wa_id: this.waIds.get(digits) ?? digits };
    send(res, 200, {
      messaging_product: 'whatsapp',
      contacts: [contact],
      messages: [
        {
          id: `wamid.${++this.messageSeq}`,
          ...(body.type === 'template' ? { message_status: 'accepted' } : {}),
        },
      ],
    });
  }

  /**
   * Graph's template list: `status` filters, `limit` pages (cursor `after`), `fields` must be given
   * (Graph would answer only id and name otherwise, too little to fill a template in). An unknown
   * business account is Graph's error 100.
   */
  private answerTemplates(res: ServerResponse, wabaId: string, query: URLSearchParams): void {
    const all = this.templates.get(wabaId);
    if (!all) {
      return send(
        res,
        400,
        graphError(100, `Unsupported get request. Object with ID '${wabaId}' does not exist`),
      );
    }
    const fields = (query.get('fields') ?? '').split(',');
    if (!['name', 'language', 'status', 'components'].every((f) => fields.includes(f))) {
      return send(res, 400, graphError(100, 'The fields name, language, status and components are needed'));
    }
    const status = query.get('status');
    const matching = status ? all.filter((t) => t.status === status) : all;
    const limit = Math.max(1, Number(query.get('limit') ?? 25) || 25);
    const start = Number(query.get('after') ?? 0) || 0;
    const page = matching.slice(start, start + limit);
    const end = start + page.length;
    send(res, 200, {
      data: page,
      paging: {
        cursors: { before: String(start), after: String(end) },
        ...(end < matching.length ? { next: `${this.url}/next-page?after=${end}` } : {}),
      },
    });
  }

  private answerMedia(res: ServerResponse, form: Record<string, FormField> | undefined): void {
    const product = form?.messaging_product;
    const type = form?.type;
    const file = form?.file;
    if (
      !product ||
      !('value' in product) ||
      product.value !== 'whatsapp' ||
      !type ||
      !('value' in type) ||
      !file ||
      !('bytes' in file)
    ) {
      return send(res, 400, graphError(100, 'Invalid parameter'));
    }
    if (file.contentType !== type.value) {
      return send(res, 400, graphError(131053, 'Media upload error', 'mime type mismatch'));
    }
    send(res, 200, { id: `media.${++this.mediaSeq}` });
  }

  private answerMediaGet(res: ServerResponse, path: string): void {
    const bytesPath = /^\/media-bytes\/([^/]+)$/.exec(path);
    if (bytesPath) {
      const media = this.media.get(decodeURIComponent(bytesPath[1]!));
      if (!media) return send(res, 404, graphError(100, 'Not found'));
      res.writeHead(200, { 'content-type': media.mimetype, 'content-length': media.bytes.length });
      return void res.end(media.bytes);
    }
    const meta = /^\/[^/]+\/([^/]+)$/.exec(path);
    const id = meta ? decodeURIComponent(meta[1]!) : '';
    const media = this.media.get(id);
    if (!media) {
      return send(
        res,
        400,
        graphError(
          100,
          `Unsupported get request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation.`,
          undefined,
          33,
        ),
      );
    }
    send(res, 200, {
      url: `${this.url}/media-bytes/${encodeURIComponent(id)}`,
      mime_type: media.mimetype,
      sha256: media.sha256 ?? createHash('sha256').update(media.bytes).digest('hex'),
      file_size: media.fileSize ?? media.bytes.length,
      id,
      messaging_product: 'whatsapp',
    });
  }

  private record(r: RecordedRequest): void {
    this.requests.push(r);
    const waiter = this.waiters.shift();
    if (waiter) {
      this.taken++;
      waiter.resolve(r);
    }
  }
}

function graphError(code: number, message: string, details?: string, subcode?: number) {
  return {
    error: {
      message,
      type: 'OAuthException',
      code,
      ...(details !== undefined ? { error_data: { messaging_product: 'whatsapp', details } } : {}),
      ...(subcode !== undefined ? { error_subcode: subcode } : {}),
      fbtrace_id: 'AbCdEfFakeTrace',
    },
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** Multipart parsing by the platform's own parser (undici's `Request.formData`). */
async function parseMultipart(contentType: string, raw: Buffer): Promise<Record<string, FormField>> {
  const form = await new Request('http://fake.invalid/', {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: raw,
  }).formData();
  const out: Record<string, FormField> = {};
  for (const [name, value] of form.entries()) {
    out[name] =
      typeof value === 'string'
        ? { value }
        : { filename: value.name, contentType: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
  }
  return out;
}
