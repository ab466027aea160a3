import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { newId } from '../../src/lib/ids.js';
import { CHUNK_SIZE } from '../../src/modules/media/media-store.js';
import { contentDisposition } from '../../src/modules/media/media.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { FakeGraph } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { createWhatsAppChannel } from '../helpers/whatsapp.js';

// Customers' files: downloaded from the provider (the fake Graph API) by the media-download job into
// the media store, recorded on the message, and served to agents who may see the chat; agents'
// attachments from the same store.

const NOT_FOUND = { statusCode: 404, message: 'Not Found', error: 'Not Found' };
/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const MB = 1024 * 1024;

let seq = 0;
const phone = () => `5511988${String(++seq).padStart(6, '0')}`;
const mediaId = (p: string) => `${p}-${Date.now().toString(36)}-${++seq}`;
/** Bytes that differ at every position, so a misplaced slice shows. */
const pattern = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7 + (i >> 8)) & 0xff));

interface RawAnswer {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

describe('message media', () => {
  let t: TestApp;
  let f: Fixture;
  let other: Fixture;
  let graph: FakeGraph;
  let db: pg.Pool;
  let channel: { id: string; account_id: string; default_team_id: string; queue: string };

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const agent = (i: number) => bearer(f.agents[i]!.token);
  const admin = () => bearer(f.adminToken);

  /** GET of a message's file, the body kept as bytes. */
  async function media(id: string, headers: Record<string, string>): Promise<RawAnswer> {
    const res = await fetch(`${t.url}/api/messages/${id}/media`, { headers });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  }
  const json = (a: RawAnswer): unknown => JSON.parse(a.bytes.toString('utf8'));

  const content = async (id: string) =>
    (await db.query<{ content: Record<string, unknown> }>('SELECT content FROM messages WHERE id = $1', [id]))
      .rows[0]!.content;

  /** Bounded polling until the download job has recorded its outcome on the message. */
  async function downloaded(id: string, rounds = 400): Promise<Record<string, unknown>> {
    for (let i = 0; i < rounds; i++) {
      const m = (await content(id)).media as Record<string, unknown>;
      if (m.status === 'ready' || m.status === 'failed') return m;
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.fail(`the media of message ${id} is still pending`);
  }

  /** A customer's media message on the WhatsApp channel, as the webhook stores it. */
  async function inbound(
    type: string,
    media: Record<string, unknown>,
  ): Promise<{ id: string; chatId: string }> {
    const r = await f.services.inbound.receive(channel, {
      contact: { value: phone(), name: 'Cliente', providerAddress: phone() },
      type,
      content: { media },
      summary: `[${type}]`,
      providerMessageId: `wamid.media.${newId()}`,
    });
    assert.equal(r.duplicate, false);
    return r.duplicate ? { id: '', chatId: '' } : { id: r.messageId, chatId: r.chatId };
  }

  const requestsFor = (id: string) => graph.requests.filter((r) => r.path.includes(id));

  before(async () => {
    graph = await FakeGraph.start();
    t = await startTestApp({ env: { WHATSAPP_GRAPH_BASE_URL: graph.url } });
    f = await seedAccount(t.server.services);
    other = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 3 });
    const created = await createWhatsAppChannel(f, { name: 'WhatsApp', phoneNumberId: '106540352242900' });
    const row = await f.services.repos.channels.find(f.accountId, created.id);
    assert.ok(row);
    channel = row;
  });
  after(async () => {
    await db?.end();
    await t?.close();
    await graph?.close();
  });

  describe('download', () => {
    it('queues the download with the message, stores the file and publishes message.update', async () => {
      const id = mediaId('img');
      graph.addMedia(id, { bytes: PNG, mimetype: 'image/png' });
      const m = await inbound('image', { id, mimetype: 'image/png', caption: 'Comprovante' });
      const done = await downloaded(m.id);
      assert.deepEqual(done, {
        id,
        mimetype: 'image/png',
        caption: 'Comprovante',
        status: 'ready',
        size: PNG.length,
      });
      // Metadata, then the URL it named, both with the channel's token.
      const calls = requestsFor(id);
      assert.deepEqual(
        calls.map((r) => [r.method, r.path, r.headers.authorization]),
        [
          ['GET', `/v23.0/${id}`, 'Bearer test-token'],
          ['GET', `/media-bytes/${id}`, 'Bearer test-token'],
        ],
      );
      const events = await db.query<{ data: { message: { content: { media: { status: string } } } } }>(
        `SELECT data FROM events WHERE event = 'message.update' AND data->'message'->>'id' = $1`,
        [m.id],
      );
      assert.deepEqual(
        events.rows.map((r) => r.data.message.content.media.status),
        ['ready'],
      );

      const answer = await media(m.id, agent(0));
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.bytes, PNG);
      assert.equal(answer.headers.get('content-type'), 'image/png');
      assert.equal(answer.headers.get('content-length'), String(PNG.length));
      assert.equal(answer.headers.get('content-disposition'), contentDisposition('inline', `image-${m.id}`));
      assert.equal(answer.headers.get('x-content-type-options'), 'nosniff');
      assert.match(answer.headers.get('content-security-policy') ?? '', /sandbox/);

      // A second run of the job (a redelivered job) changes nothing and asks Graph nothing.
      await f.services.mediaDownloader.process(m.id, false);
      assert.equal(requestsFor(id).length, 2);
    });

    it('the job is stored in the transaction of the message (it survives a restart)', async () => {
      const id = mediaId('durable');
      // Held: the job cannot have finished when the queue is read.
      const hold = graph.holdWhere((r) => r.path.includes(id));
      graph.addMedia(id, { bytes: PNG, mimetype: 'image/png' });
      const m = await inbound('image', { id, mimetype: 'image/png' });
      const jobs = await db.query(
        `SELECT 1 FROM atende_jobs.job WHERE name = 'media-download' AND data->>'messageId' = $1`,
        [m.id],
      );
      assert.equal(jobs.rowCount, 1);
      assert.equal(((await content(m.id)).media as { status?: string }).status, undefined);
      assert.deepEqual([(await media(m.id, admin())).status], [404]);
      hold.release();
      assert.equal((await downloaded(m.id)).status, 'ready');
    });

    it('stores a large document in chunks and serves it whole, in ranges, as an attachment', async () => {
      const id = mediaId('doc');
      const bytes = pattern(2 * CHUNK_SIZE + 1234);
      // Meta's webhooks give the digest in base64.
      const sha256 = createHash('sha256').update(bytes).digest('base64');
      graph.addMedia(id, { bytes, mimetype: 'application/pdf', sha256 });
      const name = 'Nota fiscal "março"/2025 ção.pdf';
      const m = await inbound('document', { id, mimetype: 'application/pdf', sha256, filename: name });
      assert.equal((await downloaded(m.id)).status, 'ready');
      const chunks = await db.query('SELECT seq FROM media_chunks WHERE message_id = $1 ORDER BY seq', [
        m.id,
      ]);
      assert.equal(chunks.rowCount, 3);

      const whole = await media(m.id, agent(0));
      assert.equal(whole.status, 200);
      assert.ok(whole.bytes.equals(bytes));
      assert.equal(whole.headers.get('content-type'), 'application/pdf');
      assert.equal(
        whole.headers.get('content-disposition'),
        `attachment; filename="Nota fiscal _mar_o__2025 __o.pdf"; filename*=UTF-8''Nota%20fiscal%20%22mar%C3%A7o%22_2025%20%C3%A7%C3%A3o.pdf`,
      );

      const ranged = async (range: string) => {
        const res = await fetch(`${t.url}/api/messages/${m.id}/media`, { headers: { ...agent(0), range } });
        return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
      };
      const across = await ranged(`bytes=${CHUNK_SIZE - 10}-${2 * CHUNK_SIZE + 9}`);
      assert.equal(across.status, 206);
      assert.equal(
        across.headers.get('content-range'),
        `bytes ${CHUNK_SIZE - 10}-${2 * CHUNK_SIZE + 9}/${bytes.length}`,
      );
      assert.ok(across.bytes.equals(bytes.subarray(CHUNK_SIZE - 10, 2 * CHUNK_SIZE + 10)));
      const tail = await ranged('bytes=-100');
      assert.ok(tail.bytes.equals(bytes.subarray(bytes.length - 100)));
      const open = await ranged(`bytes=${bytes.length - 5}-`);
      assert.ok(open.bytes.equals(bytes.subarray(bytes.length - 5)));
      const outside = await ranged(`bytes=${bytes.length}-`);
      assert.equal(outside.status, 416);
      assert.equal(outside.headers.get('content-range'), `bytes */${bytes.length}`);
      assert.deepEqual(JSON.parse(outside.bytes.toString('utf8')), {
        statusCode: 416,
        message: 'The requested range is outside the file',
        error: 'Range Not Satisfiable',
      });
    });

    it('never serves active content inline: HTML goes as bytes to download', async () => {
      const id = mediaId('html');
      const bytes = Buffer.from('<script>alert(1)</script>');
      graph.addMedia(id, { bytes, mimetype: 'text/html' });
      const m = await inbound('document', { id, mimetype: 'text/html', filename: 'x.html' });
      assert.equal((await downloaded(m.id)).status, 'ready');
      const answer = await media(m.id, agent(0));
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('content-type'), 'application/octet-stream');
      assert.match(answer.headers.get('content-disposition') ?? '', /^attachment; filename="x.html"/);
    });

    it('refuses a file over the limit of its type by its declared size, without fetching it', async () => {
      const id = mediaId('big');
      graph.addMedia(id, { bytes: PNG, mimetype: 'image/jpeg', fileSize: 5 * MB + 1 });
      const m = await inbound('image', { id, mimetype: 'image/jpeg' });
      const done = await downloaded(m.id);
      assert.deepEqual(done.status, 'failed');
      assert.deepEqual(done.error, {
        code: 'media_too_large',
        message: `The media file is larger than ${5 * MB} bytes`,
      });
      assert.deepEqual(
        requestsFor(id).map((r) => r.path),
        [`/v23.0/${id}`],
      );
      assert.deepEqual(json(await media(m.id, agent(0))), NOT_FOUND);
    });

    it('refuses a file whose bytes exceed the limit whatever was declared, keeping nothing', async () => {
      const id = mediaId('liar');
      const bytes = pattern(100 * 1024 + 1);
      graph.addMedia(id, { bytes, mimetype: 'image/webp', fileSize: 1000 });
      // A static sticker: Meta's limit is 100 KB.
      const m = await inbound('sticker', { id, mimetype: 'image/webp', animated: false });
      const done = await downloaded(m.id);
      assert.equal(done.status, 'failed');
      assert.equal((done.error as { code: string }).code, 'media_too_large');
      const rows = await db.query('SELECT 1 FROM media_objects WHERE message_id = $1', [m.id]);
      assert.equal(rows.rowCount, 0);
    });

    it('refuses a file that does not match its SHA-256', async () => {
      const id = mediaId('sha');
      const sha256 = createHash('sha256').update('something else').digest('hex');
      graph.addMedia(id, { bytes: PNG, mimetype: 'image/png', sha256 });
      const m = await inbound('image', { id, mimetype: 'image/png', sha256 });
      const done = await downloaded(m.id);
      assert.deepEqual(done.error, {
        code: 'media_checksum_mismatch',
        message: 'The file does not match its SHA-256',
      });
      assert.equal((await media(m.id, agent(0))).status, 404);
    });

    it('marks an expired (unknown) media failed with Graph’s reason at once', async () => {
      const id = mediaId('expired');
      const m = await inbound('audio', { id, mimetype: 'audio/ogg; codecs=opus' });
      const done = await downloaded(m.id);
      assert.equal(done.status, 'failed');
      assert.equal((done.error as { code: string }).code, '100');
      assert.equal(requestsFor(id).length, 1);
    });

    it('retries a temporary Graph failure and then stores the file', async () => {
      const id = mediaId('retry');
      graph.addMedia(id, { bytes: PNG, mimetype: 'image/png' });
      graph.respondNext({ status: 503, raw: 'Service Unavailable' });
      const m = await inbound('image', { id, mimetype: 'image/png' });
      // pg-boss's first retry comes after a few seconds.
      assert.equal((await downloaded(m.id, 1200)).status, 'ready');
      assert.deepEqual(
        requestsFor(id).map((r) => r.path),
        [`/v23.0/${id}`, `/v23.0/${id}`, `/media-bytes/${id}`],
      );
    });
  });

  describe('the PostgreSQL store', () => {
    it('cuts a file given at once or in uneven pieces into whole chunks, read back exactly', async () => {
      const store = f.services.mediaStore;
      const bytes = pattern(2 * CHUNK_SIZE + CHUNK_SIZE / 2);
      const pieces = async function* () {
        for (let at = 0; at < bytes.length; at += 100_003) yield bytes.subarray(at, at + 100_003);
      };
      for (const body of [bytes, pieces()]) {
        const msg = await f.services.inbound.receiveSandbox(f.admin, f.channels[0]!.id, {
          from: phone(),
          text: 'Arquivo',
        });
        const file = {
          key: msg.messageId,
          accountId: f.accountId,
          mimetype: 'application/pdf',
          filename: null,
        };
        const stored = await store.put(f.services.db, file, body);
        assert.equal(stored.size, bytes.length);
        assert.equal(stored.sha256, createHash('sha256').update(bytes).digest('hex'));
        const sizes = await db.query<{ n: number }>(
          'SELECT length(bytes) AS n FROM media_chunks WHERE message_id = $1 ORDER BY seq',
          [msg.messageId],
        );
        assert.deepEqual(
          sizes.rows.map((r) => r.n),
          [CHUNK_SIZE, CHUNK_SIZE, CHUNK_SIZE / 2],
        );
        const read = async (range?: { start: number; end: number }) => {
          const out: Buffer[] = [];
          for await (const piece of store.read(stored, range)) out.push(piece);
          return Buffer.concat(out);
        };
        assert.ok((await read()).equals(bytes));
        assert.ok(
          (await read({ start: 5, end: CHUNK_SIZE * 2 })).equals(bytes.subarray(5, CHUNK_SIZE * 2 + 1)),
        );
        await store.delete(f.services.db, msg.messageId);
        assert.equal(await store.stat(f.services.db, msg.messageId), undefined);
      }
    });
  });

  describe('GET /api/messages/:id/media', () => {
    let ready: { id: string; chatId: string };
    before(async () => {
      const id = mediaId('visible');
      graph.addMedia(id, { bytes: PNG, mimetype: 'image/png' });
      ready = await inbound('image', { id, mimetype: 'image/png' });
      assert.equal((await downloaded(ready.id)).status, 'ready');
    });

    it('serves whoever may see the chat: its team, supervisors, admins', async () => {
      assert.equal((await media(ready.id, agent(0))).status, 200);
      assert.equal((await media(ready.id, admin())).status, 200);
    });

    it('is a 404 for anyone else, another account, a text message or an unknown id', async () => {
      // Agent 1 is in team 1 only; the chat is team 0's.
      assert.deepEqual(json(await media(ready.id, agent(1))), NOT_FOUND);
      assert.deepEqual(json(await media(ready.id, bearer(other.adminToken))), NOT_FOUND);
      const text = await f.services.inbound.receiveSandbox(f.admin, f.channels[0]!.id, {
        from: phone(),
        text: 'Oi',
      });
      assert.deepEqual(json(await media(text.messageId, admin())), NOT_FOUND);
      assert.deepEqual(json(await media('0123456789abcdef01234567', admin())), NOT_FOUND);
    });

    it('answers 400 to a malformed id and 401 without a session', async () => {
      const bad = await media('nope', admin());
      assert.equal(bad.status, 400);
      const anon = await media(ready.id, {});
      assert.deepEqual(json(anon), {
        statusCode: 401,
        message: 'Credencial ausente ou inválida',
        error: 'Unauthorized',
      });
    });

    it('is documented in OpenAPI as getMessageMedia, binary, with its errors', async () => {
      const doc = (await t.request('GET', '/docs/json')).json as {
        paths: Record<string, Record<string, { operationId?: string; responses: Record<string, unknown> }>>;
      };
      const op = doc.paths['/api/messages/{id}/media']?.get;
      assert.equal(op?.operationId, 'getMessageMedia');
      assert.ok(op);
      assert.deepEqual(Object.keys(op.responses).sort(), [
        '200',
        '206',
        '400',
        '401',
        '404',
        '416',
        '429',
        '503',
      ]);
      // Served in the file's own type (active content as application/octet-stream): any type.
      const file = {
        '*/*': {
          schema: {
            type: 'string',
            format: 'binary',
            description:
              "The file's own type (image/jpeg, image/png, application/pdf, audio/ogg, video/mp4, ...); HTML, XML, SVG and scripts as application/octet-stream",
          },
        },
      };
      assert.deepEqual(op.responses['200'], { description: 'The whole file', content: file });
      assert.deepEqual((op.responses['206'] as { content?: unknown }).content, file);
    });

    it('serves an agent’s own attachment from the same store', async () => {
      const chatId = await f.inbound(0, phone(), 'Pode mandar o boleto?');
      assert.equal(
        (await t.request('POST', `/api/chats/${chatId}/capture`, { headers: agent(0) })).status,
        200,
      );
      const bytes = pattern(3000);
      const r = await t.request('POST', `/api/chats/${chatId}/messages`, {
        headers: agent(0),
        body: {
          media: { mimetype: 'application/pdf', base64: bytes.toString('base64'), filename: 'boleto.pdf' },
        },
      });
      assert.equal(r.status, 201);
      const stored = (r.json.content as { media: Record<string, unknown> }).media;
      assert.deepEqual([stored.status, stored.size], ['ready', bytes.length]);
      const answer = await media(r.json.id as string, agent(0));
      assert.equal(answer.status, 200);
      assert.ok(answer.bytes.equals(bytes));
      assert.equal(
        answer.headers.get('content-disposition'),
        `attachment; filename="boleto.pdf"; filename*=UTF-8''boleto.pdf`,
      );
      assert.equal((await media(r.json.id as string, agent(1))).status, 404);
    });
  });
});
