import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { JsonScanner, MAX_JSON_DEPTH } from '../../src/http/json-scanner.js';
import { Base64Decoder } from '../../src/lib/base64-stream.js';
import { inTransaction } from '../../src/db/index.js';
import { MediaBlobsRepo } from '../../src/modules/media/media-blobs.repo.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { FakeGraph } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { createWhatsAppChannel } from '../helpers/whatsapp.js';

// Request bodies are read as they arrive under bounds checked byte by byte (src/http/json-body.ts):
// a body past a bound is answered at that byte, before the rest is sent; a media message's base64 is
// decoded a slice at a time instead of parsed; a reply from someone who may not send is refused
// before its body is read. The scanner is also held against JSON.parse on generated bodies cut at
// random places.

const HANG = { timeout: 20_000 };

/** A small deterministic generator (mulberry32), so a failure names a seed that repeats it. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: <T>(xs: readonly T[]): T => xs[int(xs.length)]! };
}

const STRING_PARTS = ['a', 'ção', '"', '\\', '/', '\n', '\u0001', '😀', 'base64', 'message', ' ', '{', ']'];

function value(r: ReturnType<typeof random>, depth: number): unknown {
  const kind = r.int(depth > 4 ? 4 : 7);
  switch (kind) {
    case 0:
      return r.pick([null, true, false]);
    case 1:
      return r.pick([0, -1, 1.5, 1e21, -2.5e-7, 123456789]);
    case 2:
    case 3:
      return Array.from({ length: r.int(6) }, () => r.pick(STRING_PARTS)).join('');
    case 4:
    case 5:
      return Object.fromEntries(
        Array.from({ length: r.int(5) }, () => [
          r.pick(['message', 'media', 'base64', 'k', 'ção', 'a"b', '']),
          value(r, depth + 1),
        ]),
      );
    default:
      return Array.from({ length: r.int(5) }, () => value(r, depth + 1));
  }
}

/** The text cut into pieces at random places (possibly one byte each). */
function cut(r: ReturnType<typeof random>, bytes: Buffer): Buffer[] {
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length;) {
    const n = 1 + r.int(r.next() < 0.5 ? 4 : 64);
    pieces.push(bytes.subarray(i, i + n));
    i += n;
  }
  return pieces;
}

function scan(pieces: Buffer[], path: string[] | null, limits = { envelopeLimit: 1e9, maxMembers: 1e6 }) {
  const decoder = new Base64Decoder();
  const scanner = new JsonScanner({ ...limits, path, sink: path ? decoder : null });
  for (const p of pieces) scanner.write(p);
  const envelope = scanner.end().toString('utf8');
  return { envelope, found: scanner.streamedFound, file: scanner.streamedFound ? decoder.end() : null };
}

describe('request bodies: the scanner', () => {
  it('keeps every generated body as JSON.parse reads it, however it is cut', () => {
    for (let seed = 1; seed <= 400; seed++) {
      const r = random(seed);
      const body = value(r, 0);
      const text = JSON.stringify(body, null, r.pick([0, 1, 2, '\t']));
      const { envelope, found } = scan(cut(r, Buffer.from(text)), null);
      assert.equal(found, false);
      assert.deepEqual(JSON.parse(envelope), body, `seed ${seed}`);
    }
  });

  it('streams the value at its path to the decoder, whatever the escapes and cuts, and leaves "" in its place', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const r = random(seed);
      const file = randomBytes(r.int(3000));
      const base64 = file.toString('base64');
      // Some clients escape "/" (PHP's json_encode does); some write ASCII as \u escapes.
      const written = base64.replace(/[/A]/g, (c) => (r.next() < 0.5 ? (c === '/' ? '\\/' : '\\u0041') : c));
      const other = value(r, 2);
      const text =
        `{"other":${JSON.stringify(other)},"message":{"type":"media","media":{"mimetype":"a/b",` +
        `"base64":"${written}","caption":"x"}},"base64":"not this one"}`;
      const got = scan(cut(r, Buffer.from(text)), ['message', 'media', 'base64']);
      assert.equal(got.found, true, `seed ${seed}`);
      assert.deepEqual(JSON.parse(got.envelope), {
        other,
        message: { type: 'media', media: { mimetype: 'a/b', base64: '', caption: 'x' } },
        base64: 'not this one',
      });
      assert.equal(got.file!.decodedLength, file.length, `seed ${seed}`);
      assert.deepEqual(Buffer.concat(got.file!.pieces), file, `seed ${seed}`);
    }
  });

  it('streams nothing where the path holds no string, or sits in an array', () => {
    const path = ['message', 'media', 'base64'];
    for (const text of [
      '{"message":{"media":{"base64":null}}}',
      '{"message":{"media":{"base64":["QQ=="]}}}',
      '{"message":[{"media":{"base64":"QQ=="}}]}',
      '{"message":{"base64":"QQ=="}}',
    ]) {
      const got = scan([Buffer.from(text)], path);
      assert.equal(got.found, false, text);
      assert.deepEqual(JSON.parse(got.envelope), JSON.parse(text));
    }
  });

  it('refuses at the byte that passes a bound: depth, members, envelope size', () => {
    const refuses = (prefix: string, message: RegExp, limits = { envelopeLimit: 1e9, maxMembers: 1000 }) => {
      const scanner = new JsonScanner({ ...limits, path: ['b64'], sink: new Base64Decoder() });
      // Only the prefix is ever written: the bound is met inside it, before any end.
      assert.throws(() => scanner.write(Buffer.from(prefix)), message);
    };
    refuses('['.repeat(MAX_JSON_DEPTH + 1), /nested deeper than 64 levels/);
    assert.doesNotThrow(() => scan([Buffer.from('['.repeat(64) + ']'.repeat(64))], null));
    refuses(
      `{"m":{${Array.from({ length: 1001 }, (_, i) => `"k${i}":"v"`).join(',')}`,
      /more than 1000 members/,
    );
    refuses(`[${'1,'.repeat(1000)}1`, /more than 1000 members/);
    refuses(`{"x":"${'a'.repeat(2000)}`, /everything but b64 must fit in 1000 bytes/, {
      envelopeLimit: 1000,
      maxMembers: 1000,
    });
    // The streamed value itself does not count against the envelope.
    const scanner = new JsonScanner({
      envelopeLimit: 100,
      maxMembers: 10,
      path: ['b64'],
      sink: new Base64Decoder(),
    });
    scanner.write(Buffer.from(`{"b64":"${'QUFB'.repeat(10_000)}"}`));
    assert.equal(scanner.end().toString(), '{"b64":""}');
    refuses('{"b64":"QQ==","b64":"QQ=="', /b64 must be given once/);
  });

  it('refuses what is not JSON', () => {
    for (const bad of [
      '{"a":1,}',
      '{"a" 1}',
      '[1 2]',
      '{"a":1}}',
      '[',
      '{"a":"b',
      '"\\q"',
      '{1:2}',
      '[1]x',
      '"\\u00zz"',
    ]) {
      assert.throws(() => scan([Buffer.from(bad)], null), /Malformed JSON body/, bad);
    }
  });

  it('judges base64 strictly, in any cut', () => {
    const cases: Array<[string, number | null]> = [
      ['', 0],
      ['QQ==', 1],
      ['QUI=', 2],
      ['QUJD', 3],
      ['QR==', null], // unused bits set
      ['QQ=', null],
      ['Q===', null],
      ['QQ==QQ==', null],
      ['QU JD', null],
      ['QUJD\n', null],
      ['QU-_', null], // the URL-safe alphabet is not base64
      ['QUJ*', null],
      ['QUJ', null],
    ];
    for (const [text, decoded] of cases) {
      for (let at = 0; at <= text.length; at++) {
        const d = new Base64Decoder();
        d.write(Buffer.from(text.slice(0, at)));
        d.write(Buffer.from(text.slice(at)));
        const out = d.end();
        assert.equal(out.decodedLength, decoded, `${JSON.stringify(text)} cut at ${at}`);
        if (decoded !== null) assert.deepEqual(Buffer.concat(out.pieces), Buffer.from(text, 'base64'));
      }
    }
    const prefixed = new Base64Decoder();
    prefixed.write(Buffer.from('dat'));
    prefixed.write(Buffer.from('a:image/png;base64,QQ=='));
    assert.equal(prefixed.end().dataPrefix, true);
  });
});

/**
 * Sends `head` and `body` on a raw connection and never ends the body (its Content-Length promises
 * far more). Resolves with the answer once the server has closed the connection: a server that waited
 * for the rest of the body would never answer, and the test would time out.
 */
function answerBeforeTheEnd(
  url: string,
  head: string,
  body: string | Buffer,
): Promise<{ status: number; json: unknown }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', () => {}); // a reset after the answer is the server closing too
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const m = /^HTTP\/1\.1 (\d{3}) [\s\S]*?\r\n\r\n([\s\S]*)$/.exec(text);
      if (!m) return reject(new Error(`no answer: ${JSON.stringify(text.slice(0, 200))}`));
      resolve({ status: Number(m[1]), json: JSON.parse(m[2]!) });
    });
    socket.on('connect', () => {
      socket.write(head);
      socket.write(body);
    });
  });
}

describe('request bodies: over HTTP', () => {
  let t: TestApp;
  let f: Fixture;
  let fake: FakeGraph;
  let db: pg.Pool;
  let sandboxKey: string;
  let waKey: string;

  const head = (path: string, headers: Record<string, string>, length: number) =>
    `POST ${path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n` +
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n';
  const TWELVE_MB = 12 * 1024 * 1024;
  const sendStart = '{"contact":{"value":"5511987654321"},"message":{"type":"text","text":{"value":"x"}},';

  before(async () => {
    fake = await FakeGraph.start();
    t = await startTestApp({
      // A server that waited for a whole body would hold these tests well past their timeout.
      env: { WHATSAPP_GRAPH_BASE_URL: fake.url, ATENDE_REQUEST_TIMEOUT_MS: '120000' },
    });
    f = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    sandboxKey = (await f.services.channels.rotateApiKey(f.admin, f.channels[0]!.id)).apiKey;
    waKey = (await createWhatsAppChannel(f, { withApiKey: true })).apiKey;
  });
  after(async () => {
    await db?.end();
    await t?.close();
    await fake?.close();
  });

  it(
    'answers a send with 1,001 metadata keys at the 1,001st, before the rest of its 12 MB',
    HANG,
    async () => {
      const keys = Array.from({ length: 1001 }, (_, i) => `"k${i}":"v"`).join(',');
      const res = await answerBeforeTheEnd(
        t.url,
        head('/channel-api/messages/send', { 'x-channel-api-key': sandboxKey }, TWELVE_MB),
        `${sendStart}"metadata":{${keys}`,
      );
      assert.deepEqual(res, {
        status: 400,
        json: {
          statusCode: 400,
          message: 'JSON body has an object or array with more than 1000 members',
          error: 'Bad Request',
        },
      });
    },
  );

  it('answers a send nested deeper than 64 levels at the 65th, before the rest', HANG, async () => {
    const res = await answerBeforeTheEnd(
      t.url,
      head('/channel-api/messages/send', { 'x-channel-api-key': sandboxKey }, TWELVE_MB),
      `${sendStart}"metadata":${'['.repeat(100)}`,
    );
    assert.equal(res.status, 400);
    assert.deepEqual(res.json, {
      statusCode: 400,
      message: 'JSON body is nested deeper than 64 levels',
      error: 'Bad Request',
    });
  });

  it('answers 413 once the body besides the media passes 1 MB, before the rest', HANG, async () => {
    const res = await answerBeforeTheEnd(
      t.url,
      head('/channel-api/messages/send', { 'x-channel-api-key': sandboxKey }, TWELVE_MB),
      `${sendStart}"flowId":"${'f'.repeat(1024 * 1024 + 10)}`,
    );
    assert.equal(res.status, 413);
    assert.deepEqual(res.json, {
      statusCode: 413,
      message: 'Request body is too large: everything but message.media.base64 must fit in 1048576 bytes',
      error: 'Payload Too Large',
    });
  });

  it('answers an agent who may not reply before reading the 100 MB body', HANG, async () => {
    const chatId = await f.inbound(0, '5511911110001', 'Oi');
    const agent0 = { authorization: `Bearer ${f.agents[0]!.token}` };
    const agent1 = { authorization: `Bearer ${f.agents[1]!.token}` };
    const big = 100 * 1024 * 1024;
    const start = '{"media":{"mimetype":"application/pdf","base64":"JVBERi0';
    // Not the attendant (nobody captured the chat yet): 403.
    let res = await answerBeforeTheEnd(t.url, head(`/api/chats/${chatId}/messages`, agent0, big), start);
    assert.equal(res.status, 403);
    assert.deepEqual(res.json, {
      statusCode: 403,
      message: 'Somente o atendente do chat pode enviar mensagens; capture ou transfira o chat primeiro',
      error: 'Forbidden',
    });
    // Another team's agent does not learn the chat exists: 404.
    res = await answerBeforeTheEnd(t.url, head(`/api/chats/${chatId}/messages`, agent1, big), start);
    assert.equal(res.status, 404);
    // Nothing was stored.
    const stored = await db.query(
      'SELECT count(*)::int AS n FROM messages WHERE chat_id = $1 AND origin = $2',
      [chatId, 'user'],
    );
    assert.equal(stored.rows[0].n, 0);
  });

  it(
    'sends a streamed media file exactly: escapes read, bytes at the provider and in the store',
    HANG,
    async () => {
      const file = randomBytes(700 * 1024);
      // Escaped slashes, as some JSON encoders write them.
      const base64 = file.toString('base64').replaceAll('/', '\\/');
      const raw =
        '{"contact":{"value":"5511987650001"},"message":{"type":"media","media":' +
        `{"mimetype":"application/pdf","filename":"f.pdf","base64":"${base64}"}}}`;
      const res = await t.request('POST', '/channel-api/messages/send', {
        headers: { 'x-channel-api-key': waKey, 'content-type': 'application/json' },
        raw,
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const upload = await fake.nextRequest();
      assert.match(upload.path, /\/media$/);
      const sent = upload.form?.file;
      assert.ok(sent && 'bytes' in sent);
      assert.deepEqual(
        { filename: sent.filename, contentType: sent.contentType, bytes: sent.bytes.equals(file) },
        { filename: 'f.pdf', contentType: 'application/pdf', bytes: true },
      );
      assert.match((await fake.nextRequest()).path, /\/messages$/);
    },
  );

  it('refuses streamed base64 that is not strict, with the sentences of the contract', HANG, async () => {
    const send = (base64Json: string) =>
      t.request('POST', '/channel-api/messages/send', {
        headers: { 'x-channel-api-key': sandboxKey, 'content-type': 'application/json' },
        raw: `{"contact":{"value":"5511987650002"},"message":{"type":"media","media":{"mimetype":"application/pdf","base64":${base64Json}}}}`,
      });
    const expect = async (base64Json: string, message: string[]) => {
      const res = await send(base64Json);
      assert.deepEqual(
        { status: res.status, body: res.body },
        { status: 400, body: { statusCode: 400, message, error: 'Bad Request' } },
        base64Json,
      );
    };
    await expect('""', ['Base64 payload is required']);
    await expect('null', ['Base64 payload is required']);
    await expect('"data:application/pdf;base64,JVBERi0="', [
      'message.media.base64 must not have a data: prefix',
    ]);
    await expect('"JVBE Ri0="', ['message.media.base64 must be base64 encoded']);
    await expect('"JVBERi0-"', ['message.media.base64 must be base64 encoded']);
    await expect('"JVBERi0\\n"', ['message.media.base64 must be base64 encoded']);
    const twice = await t.request('POST', '/channel-api/messages/send', {
      headers: { 'x-channel-api-key': sandboxKey, 'content-type': 'application/json' },
      raw: '{"contact":{"value":"5511987650002"},"message":{"type":"media","media":{"mimetype":"application/pdf","base64":"QQ==","base64":"QQ=="}}}',
    });
    assert.equal(twice.status, 400);
    assert.deepEqual(twice.json.message, 'message.media.base64 must be given once');
  });

  it("stores an agent's streamed attachment whole and serves it back", HANG, async () => {
    const chatId = await f.inbound(0, '5511911110002', 'Oi');
    const agent = { authorization: `Bearer ${f.agents[0]!.token}` };
    const capture = await t.request('POST', `/api/chats/${chatId}/capture`, { headers: agent });
    assert.equal(capture.status, 200, JSON.stringify(capture.body));
    const file = randomBytes(600 * 1024);
    const res = await t.request('POST', `/api/chats/${chatId}/messages`, {
      headers: agent,
      body: { media: { mimetype: 'application/pdf', filename: 'r.pdf', base64: file.toString('base64') } },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const served = await fetch(`${t.url}/api/messages/${res.json.id as string}/media`, { headers: agent });
    assert.equal(served.status, 200);
    assert.ok(Buffer.from(await served.arrayBuffer()).equals(file));
  });
});

async function bytesOf(chunks: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const all: Uint8Array[] = [];
  for await (const c of chunks) all.push(c);
  return Buffer.concat(all);
}

describe('request bodies: waiting files', () => {
  let t: TestApp;
  let f: Fixture;
  let db: pg.Pool;
  before(async () => {
    t = await startTestApp({ env: { ATENDE_ROLES: 'api' } });
    f = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
  });
  after(async () => {
    await db?.end();
    await t?.close();
  });

  it('keeps a file in 256 KB chunks and reads back the same bytes; a row of an earlier version too', async () => {
    const repo = new MediaBlobsRepo(t.server.services.db);
    const file = randomBytes(1024 * 1024 + 12_345);
    // Pieces of any size, as a decoder hands them.
    const pieces = [file.subarray(0, 1000), file.subarray(1000, 700_000), file.subarray(700_000)];
    await inTransaction(t.server.services.db, (tx) =>
      repo.insert(tx, [
        { id: 'blob-new', account_id: f.accountId, mimetype: 'application/pdf', filename: 'a.pdf', pieces },
      ]),
    );
    const chunks = await db.query<{ n: number; max: number }>(
      'SELECT count(*)::int AS n, max(octet_length(bytes))::int AS max FROM media_blob_chunks WHERE blob_id = $1',
      ['blob-new'],
    );
    assert.deepEqual(chunks.rows[0], { n: 5, max: 256 * 1024 });
    const loaded = await repo.load('blob-new');
    assert.deepEqual([loaded?.mimetype, loaded?.size], ['application/pdf', file.length]);
    assert.ok((await bytesOf(loaded!.chunks())).equals(file));
    // Read afresh each time (a retried upload reads the file again).
    assert.ok((await bytesOf(loaded!.chunks())).equals(file));

    // Written whole by an earlier version: read in slices all the same.
    const old = randomBytes(2 * 1024 * 1024 + 7);
    await db.query(
      `INSERT INTO media_blobs (id, account_id, mimetype, filename, bytes) VALUES ('blob-old', $1, 'image/png', NULL, $2)`,
      [f.accountId, old],
    );
    const legacy = await repo.load('blob-old');
    assert.equal(legacy?.size, old.length);
    assert.ok((await bytesOf(legacy!.chunks())).equals(old));

    await repo.delete(t.server.services.db, 'blob-new');
    const left = await db.query('SELECT count(*)::int AS n FROM media_blob_chunks WHERE blob_id = $1', [
      'blob-new',
    ]);
    assert.equal(left.rows[0].n, 0);
    assert.equal(await repo.load('blob-new'), undefined);
  });
});
