import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';

// POST /channel-api/messages/send at request time (channel key, every 400 of docs/channel-api.md, 201,
// idempotency), GET /channel-api/messages/requests/:requestId and GET /api/channels/:id/request-logs.
// The server runs without the worker role, so accepted requests stay `queued` where a test needs it.

// Version 7: ordered by creation, so the request log's key grows at its right edge.
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const INVALID_TOKEN = { statusCode: 404, message: 'Invalid API token', error: 'Not Found' };
const NOT_FOUND = { statusCode: 404, message: 'Not Found', error: 'Not Found' };
const MISSING_KEY = {
  statusCode: 400,
  message: 'x-channel-api-key header is required',
  error: 'Bad Request',
};
const badRequest = (...message: string[]) => ({ statusCode: 400, message, error: 'Bad Request' });

const TEXT = { type: 'text', text: { value: 'Olá!' } };
const b64 = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');

/** An order_details button whose amounts are right: items 2 × 10,00 + 5,50 = 25,50; tax 1,00. */
const orderButton = (over: Record<string, unknown> = {}, order: Record<string, unknown> = {}) => ({
  index: 0,
  type: 'order_details',
  orderDetails: {
    referenceId: 'pedido-1',
    type: 'digital-goods',
    paymentType: 'br',
    currency: 'BRL',
    totalAmount: { value: '26,50', offset: 100 },
    paymentSettings: [
      {
        type: 'pix_dynamic_code',
        pixDynamicCode: { code: '000201…', merchantName: 'Loja', key: '39580525000189', keyType: 'CNPJ' },
      },
    ],
    order: {
      status: 'pending',
      items: [
        { retailerId: 'a', name: 'Bolo', amount: { value: 1000, offset: 100 }, quantity: 2 },
        { retailerId: 'b', name: 'Café', amount: { value: '5.50', offset: 100 }, quantity: 1 },
      ],
      subtotal: { value: '25,50', offset: 100 },
      tax: { value: 100, offset: 100, description: 'taxa' },
      ...order,
    },
    ...over,
  },
});
const template = (t: Record<string, unknown>) => ({ type: 'template', template: { name: 'cobranca', ...t } });

describe('POST /channel-api/messages/send', () => {
  let t: TestApp;
  let f: Fixture;
  let db: pg.Pool;
  let key: string; // channel 0
  let key1: string; // channel 1

  const admin = () => ({ authorization: `Bearer ${f.adminToken}` });
  const rotate = async (channelId: string) => {
    const res = await t.request('POST', `/api/channels/${channelId}/api-key`, { headers: admin() });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.json.apiKey as string;
  };
  const send = (body: unknown, headers: Record<string, string> = { 'x-channel-api-key': key }) =>
    t.request('POST', '/channel-api/messages/send', { headers, body });
  const sendMessage = (message: unknown, extra: Record<string, unknown> = {}) =>
    send({ contact: { value: '5511987654321' }, message, ...extra });
  const assertRefused = (res: TestResponse, ...messages: string[]) => {
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.deepEqual(res.body, badRequest(...messages));
  };
  const count = async (query: string, params: unknown[] = []) =>
    Number((await db.query<{ n: string }>(query, params)).rows[0]!.n);
  const jobCount = () => count('SELECT count(*) AS n FROM send_jobs');
  const logCount = () => count('SELECT count(*) AS n FROM request_logs');

  before(async () => {
    t = await startTestApp({ env: { ATENDE_ROLES: 'api' } });
    f = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    key = await rotate(f.channels[0]!.id);
    key1 = await rotate(f.channels[1]!.id);
  });
  after(async () => {
    await db?.end();
    await t?.close();
  });

  describe('channel key', () => {
    it('answers 400 when x-channel-api-key is missing or empty', async () => {
      const cases: Record<string, string>[] = [
        {},
        { 'x-channel-api-key': '' },
        { 'x-channel-api-key': '   ' },
      ];
      for (const headers of cases) {
        const res = await send({ contact: { value: '5511987654321' }, message: TEXT }, headers);
        assert.deepEqual([res.status, res.body], [400, MISSING_KEY]);
      }
    });

    it('answers 404 Invalid API token for a key that does not open an enabled channel', async () => {
      const [, id, secret] = key.split('_') as [string, string, string];
      const wrongSecret = `ck_${id}_${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
      const cases: [string, string][] = [
        ['garbage', 'not-a-key'],
        ['another prefix', `ak_${id}_${secret}`],
        ['unknown channel', `ck_${'0'.repeat(24)}_${secret}`],
        ['wrong secret', wrongSecret],
        ['account API key', f.apiKey],
        ['another channel id with this secret', `ck_${f.channels[1]!.id}_${secret}`],
      ];
      for (const [name, value] of cases) {
        const res = await send(
          { contact: { value: '5511987654321' }, message: TEXT },
          {
            'x-channel-api-key': value,
          },
        );
        assert.deepEqual([res.status, res.body], [404, INVALID_TOKEN], name);
      }
    });

    it('checks the key before the body', async () => {
      const res = await t.request('POST', '/channel-api/messages/send', {
        headers: { 'x-channel-api-key': 'nope', 'content-type': 'application/json' },
        raw: '{not json',
      });
      assert.deepEqual([res.status, res.body], [404, INVALID_TOKEN]);
      const missing = await t.request('POST', '/channel-api/messages/send', { body: { foo: 1 } });
      assert.deepEqual([missing.status, missing.body], [400, MISSING_KEY]);
    });

    it('stops the previous key at once when a new one is generated', async () => {
      const channelId = f.channels[1]!.id;
      const body = { contact: { value: '5511987654321' }, message: TEXT };
      const previous = await rotate(channelId);
      assert.equal((await send(body, { 'x-channel-api-key': previous })).status, 201);
      const next = await rotate(channelId);
      assert.match(next, new RegExp(`^ck_${channelId}_[A-Za-z0-9_-]{43}$`));
      const old = await send(body, { 'x-channel-api-key': previous });
      assert.deepEqual([old.status, old.body], [404, INVALID_TOKEN]);
      assert.equal((await send(body, { 'x-channel-api-key': next })).status, 201);
      key1 = next;
      // Only a hash is stored.
      const stored = await db.query<{ api_key_hash: Buffer }>(
        'SELECT api_key_hash FROM channels WHERE id = $1',
        [channelId],
      );
      assert.equal(stored.rows[0]!.api_key_hash.length, 32);
      // The secret may itself contain `_`: cut it after the known prefix, never split on `_`.
      const secret = next.slice(`ck_${channelId}_`.length);
      assert.equal(secret.length, 43);
      assert.ok(!stored.rows[0]!.api_key_hash.toString('latin1').includes(secret));
    });

    it('answers 404 while the channel API is disabled, and works again once enabled', async () => {
      const channelId = f.channels[1]!.id;
      const patch = async (apiEnabled: boolean) => {
        const res = await t.request('PATCH', `/api/channels/${channelId}`, {
          headers: admin(),
          body: { apiEnabled },
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
      };
      const body = { contact: { value: '5511987654321' }, message: TEXT };
      await patch(false);
      const off = await send(body, { 'x-channel-api-key': key1 });
      assert.deepEqual([off.status, off.body], [404, INVALID_TOKEN]);
      await patch(true);
      assert.equal((await send(body, { 'x-channel-api-key': key1 })).status, 201);
    });
  });

  describe('acceptance', () => {
    it('answers 201 {requestId} once the request and its job are stored', async () => {
      const jobsBefore = await jobCount();
      const res = await send({
        contact: { value: '(11) 8765-4321', name: ' Maria ' },
        message: { type: 'text', text: { value: 'Seu pedido saiu', pushName: 'Loja' } },
        flowId: 'flow-accept',
        metadata: { pedido: '123', origem: 'erp' },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.deepEqual(Object.keys(res.json), ['requestId']);
      const requestId = res.json.requestId as string;
      assert.match(requestId, UUID_V7);
      assert.equal(await jobCount(), jobsBefore + 1);
      const job = await db.query<{ kind: string; ref_id: string; lane: string }>(
        'SELECT kind, ref_id, lane FROM send_jobs WHERE ref_id = $1',
        [requestId],
      );
      assert.deepEqual(job.rows, [
        {
          kind: 'api_request',
          ref_id: requestId,
          // The number without its ninth digit is the same contact, and the same lane (FIFO per contact).
          lane: `${f.channels[0]!.id}:5511987654321`,
        },
      ]);

      const status = await t.request('GET', `/channel-api/messages/requests/${requestId}`, {
        headers: { 'x-channel-api-key': key },
      });
      assert.equal(status.status, 200);
      const { createdAt, updatedAt, ...rest } = status.json;
      assert.deepEqual(rest, {
        requestId,
        status: 'queued',
        attempts: 0,
        flowId: 'flow-accept',
        metadata: { pedido: '123', origem: 'erp' },
        contact: { type: 'phone', value: '5511987654321', name: 'Maria' },
        messageType: 'text',
        templateName: null,
        messageId: null,
        providerMessageId: null,
        error: null,
      });
      assert.equal(new Date(createdAt as string).toISOString(), createdAt);
      assert.equal(updatedAt, createdAt);
    });

    it('stores quotes, backslashes and any Unicode exactly as sent', async () => {
      const tricky = `'); DROP TABLE request_logs; -- \\ \\' $1 $$ E'\\x00' "aspas" ção 😀`;
      const res = await send({
        contact: { value: '5511987654321', name: tricky },
        message: { type: 'text', text: { value: tricky, pushName: tricky } },
        flowId: tricky,
        metadata: { [tricky]: tricky },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const row = await db.query(
        'SELECT flow_id, metadata, contact, payload FROM request_logs WHERE request_id = $1',
        [res.json.requestId],
      );
      assert.deepEqual(row.rows, [
        {
          flow_id: tricky,
          metadata: { [tricky]: tricky },
          contact: { type: 'phone', value: '5511987654321', name: tricky },
          payload: { message: { type: 'text', text: tricky }, pushName: tricky },
        },
      ]);
    });

    it('normalizes emails and keeps media bytes beside the request', async () => {
      const email = await send({ contact: { value: ' Maria@Example.COM ', type: 'email' }, message: TEXT });
      assert.equal(email.status, 201);
      const log = await db.query('SELECT contact FROM request_logs WHERE request_id = $1', [
        email.json.requestId,
      ]);
      assert.deepEqual(log.rows[0].contact, { type: 'email', value: 'maria@example.com', name: null });

      const media = await sendMessage({
        type: 'media',
        media: { mimetype: 'application/pdf', base64: b64(1000), filename: 'boleto.pdf', caption: 'Boleto' },
      });
      assert.equal(media.status, 201);
      // The file is kept in chunks beside the request, until the provider has it.
      const row = await db.query<{ payload: unknown; bytes: Buffer; filename: string }>(
        `SELECT r.payload, b.filename,
                (SELECT string_agg(c.bytes, ''::bytea ORDER BY c.seq) FROM media_blob_chunks c
                  WHERE c.blob_id = b.id) AS bytes
           FROM request_logs r JOIN media_blobs b ON b.id = r.media_blob_id
          WHERE r.request_id = $1`,
        [media.json.requestId],
      );
      assert.deepEqual(row.rows[0]!.bytes, Buffer.alloc(1000, 7));
      assert.equal(row.rows[0]!.filename, 'boleto.pdf');
      assert.deepEqual(row.rows[0]!.payload, {
        message: {
          type: 'media',
          media: {
            kind: 'document',
            mimetype: 'application/pdf',
            byteLength: 1000,
            filename: 'boleto.pdf',
            caption: 'Boleto',
          },
        },
      });
    });

    it('accepts many concurrent requests, each stored once with its own job', async () => {
      const [logsBefore, jobsBefore] = [await logCount(), await jobCount()];
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          send({ contact: { value: `55119876${String(i).padStart(5, '0')}` }, message: TEXT }),
        ),
      );
      assert.deepEqual(
        answers.map((a) => a.status),
        answers.map(() => 201),
      );
      const ids = new Set(answers.map((a) => a.json.requestId));
      assert.equal(ids.size, 60);
      assert.equal(await logCount(), logsBefore + 60);
      assert.equal(await jobCount(), jobsBefore + 60);
    });
  });

  describe('request-time checks (400)', () => {
    it('requires the object of the message type', async () => {
      assertRefused(await sendMessage({ type: 'text' }), 'message.text should not be empty');
      assertRefused(await sendMessage({ type: 'template' }), 'message.template should not be empty');
      assertRefused(await sendMessage({ type: 'media' }), 'message.media should not be empty');
      assertRefused(
        await sendMessage({ type: 'text', template: { name: 'x' } }),
        'message.text should not be empty',
      );
      assertRefused(
        await sendMessage({ type: 'audio' }),
        'message.type must be one of the following values: text, template, media',
      );
      assertRefused(await sendMessage({ text: { value: 'x' } }), 'message.type should not be empty');
    });

    it('refuses a missing, malformed or oversize base64 and a mediaUrl', async () => {
      assertRefused(
        await sendMessage({ type: 'media', media: { mimetype: 'image/png' } }),
        'Base64 payload is required',
      );
      assertRefused(
        await sendMessage({ type: 'media', media: { mimetype: 'image/png', base64: null } }),
        'Base64 payload is required',
      );
      assertRefused(
        await sendMessage({ type: 'media', media: { mimetype: 'image/png', base64: 'not base64!' } }),
        'message.media.base64 must be base64 encoded',
      );
      assertRefused(
        await sendMessage({
          type: 'media',
          media: { mimetype: 'image/png', base64: `data:image/png;base64,${b64(3)}` },
        }),
        'message.media.base64 must not have a data: prefix',
      );
      const tooBig = 5 * 1024 * 1024 + 1;
      assertRefused(
        await sendMessage({ type: 'media', media: { mimetype: 'image/jpeg', base64: b64(tooBig) } }),
        `message.media.base64 must decode to at most 5 MB (5242880 bytes) for image, got ${tooBig} bytes`,
      );
      assertRefused(
        await sendMessage({
          type: 'media',
          media: { mimetype: 'image/png', mediaUrl: 'https://x.test/a.png' },
        }),
        'message.media.mediaUrl is not accepted; send media.base64',
        'Base64 payload is required',
      );
      assertRefused(
        await sendMessage({ type: 'media', media: { mimetype: 'image/gif', base64: b64(3) } }),
        `message.media.mimetype must be one of the following values: image/jpeg, image/png, video/mp4, video/3gpp, audio/aac, audio/amr, audio/mpeg, audio/mp4, audio/ogg, text/plain, application/pdf, application/msword, application/vnd.openxmlformats-officedocument.wordprocessingml.document, application/vnd.ms-excel, application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, application/vnd.ms-powerpoint, application/vnd.openxmlformats-officedocument.presentationml.presentation, image/webp`,
      );
    });

    it('requires the template name and exactly one https link or fileId in a media header', async () => {
      assertRefused(
        await sendMessage({ type: 'template', template: {} }),
        'message.template.name should not be empty',
      );
      assertRefused(await sendMessage(template({ name: '' })), 'message.template.name should not be empty');
      assertRefused(
        await sendMessage(template({ mediaHeader: { format: 'image' } })),
        'message.template.mediaHeader must have either link or fileId',
      );
      assertRefused(
        await sendMessage(
          template({ mediaHeader: { format: 'image', link: 'https://x.test/a.png', fileId: '1' } }),
        ),
        'message.template.mediaHeader must have only one of link or fileId',
      );
      assertRefused(
        await sendMessage(template({ mediaHeader: { format: 'document', link: 'http://x.test/a.pdf' } })),
        'message.template.mediaHeader.link must be an https URL',
      );
      assertRefused(
        await sendMessage(template({ mediaHeader: { format: 'gif', fileId: '1' } })),
        'message.template.mediaHeader.format must be one of the following values: image, video, document',
      );
    });

    it('checks order_details: fields, amounts, items and totals', async () => {
      const path = 'message.template.buttons[0].orderDetails';
      assert.equal((await sendMessage(template({ buttons: [orderButton()] }))).status, 201);
      assertRefused(
        await sendMessage(template({ buttons: [orderButton({ paymentType: 'us', currency: 'USD' })] })),
        `${path}.paymentType must be one of the following values: br`,
        `${path}.currency must be one of the following values: BRL`,
      );
      assertRefused(
        await sendMessage(template({ buttons: [orderButton({ paymentSettings: [] })] })),
        `${path}.paymentSettings must contain at least 1 elements`,
      );
      assertRefused(
        await sendMessage(template({ buttons: [orderButton({}, { items: [] })] })),
        `${path}.order.items must contain at least 1 elements`,
      );
      assertRefused(
        await sendMessage(
          template({ buttons: [orderButton({ totalAmount: { value: 'R$ 26,50', offset: 100 } })] }),
        ),
        `${path}.totalAmount.value must be a decimal amount such as 1234.56, 1.234,56 or 25`,
      );
      assertRefused(
        await sendMessage(
          template({ buttons: [orderButton({ totalAmount: { value: '1.234', offset: 100 } })] }),
        ),
        `${path}.totalAmount.value has more decimal places than offset 100 allows (at most 2)`,
      );
      assertRefused(
        await sendMessage(
          template({ buttons: [orderButton({}, { subtotal: { value: '25,00', offset: 100 } })] }),
        ),
        `${path}.order.subtotal must equal the sum of item amounts times quantities (expected 2550, got 2500)`,
        `${path}.totalAmount must equal order.subtotal plus order.tax (expected 2600, got 2650)`,
      );
      assertRefused(
        await sendMessage(
          template({ buttons: [orderButton({ totalAmount: { value: 2600, offset: 100 } })] }),
        ),
        `${path}.totalAmount must equal order.subtotal plus order.tax (expected 2650, got 2600)`,
      );
    });

    it('checks the contact', async () => {
      assertRefused(
        await send({ contact: { value: '123' }, message: TEXT }),
        'contact.value must be a valid phone number',
      );
      assertRefused(
        await send({ contact: { value: 'maria@', type: 'email' }, message: TEXT }),
        'contact.value must be an email',
      );
      assertRefused(
        await send({ contact: { value: '' }, message: TEXT }),
        'contact.value should not be empty',
      );
      assertRefused(
        await send({ contact: { value: '5511987654321', type: 'fax' }, message: TEXT }),
        'contact.type must be one of the following values: phone, email',
      );
      assertRefused(
        await send({ contact: { value: '123' }, message: { type: 'text' } }),
        'contact.value must be a valid phone number',
        'message.text should not be empty',
      );
    });

    it('refuses a malformed body, unknown fields and wrong types', async () => {
      const raw = await t.request('POST', '/channel-api/messages/send', {
        headers: { 'x-channel-api-key': key, 'content-type': 'application/json' },
        raw: '{"contact":',
      });
      assert.deepEqual(raw.body, { statusCode: 400, message: 'Malformed JSON body', error: 'Bad Request' });
      assertRefused(await send({ message: TEXT }), 'contact should not be empty');
      assertRefused(
        await sendMessage({ type: 'text', text: { value: 'x', foo: 1 } }, { bar: true }),
        'property bar should not exist',
        'property message.text.foo should not exist',
      );
      assertRefused(
        await sendMessage({ type: 'text', text: { value: 'x', foo: 1 } }),
        'property message.text.foo should not exist',
      );
      assertRefused(
        await sendMessage(TEXT, { closeConversation: 'yes' }),
        'closeConversation must be a boolean value',
      );
      assertRefused(await sendMessage(TEXT, { metadata: { a: 1 } }), 'metadata.a must be a string');
      assertRefused(
        await sendMessage(TEXT, { flowId: 'fluxo \ud83d' }),
        'flowId must not contain unpaired surrogates',
      );
      assertRefused(
        await sendMessage(template({ variables: { body: [{ value: 'x', extra: 1 }] } })),
        'property message.template.variables.body.0.extra should not exist',
      );
      assertRefused(
        await sendMessage(template({ variables: { body: [5] } })),
        'message.template.variables.body.0 must be an object',
      );
      assertRefused(
        await sendMessage(template({ variables: 'x' })),
        'message.template.variables must be an object',
      );
      assertRefused(
        await sendMessage(template({ buttons: [orderButton({ extra: 1 })] })),
        'property message.template.buttons.0.orderDetails.extra should not exist',
      );
      assertRefused(
        await sendMessage({ type: 'text', text: { value: 'a'.repeat(4097) } }),
        'message.text.value must be shorter than or equal to 4096 characters',
      );
    });

    it('refuses an Idempotency-Key longer than 255 characters', async () => {
      const res = await send(
        { contact: { value: '5511987654321' }, message: TEXT },
        { 'x-channel-api-key': key, 'idempotency-key': 'k'.repeat(256) },
      );
      assertRefused(res, 'idempotency-key must be shorter than or equal to 255 characters');
    });

    it('stores and queues nothing for a refused request', async () => {
      const [logs, jobs] = [await logCount(), await jobCount()];
      assertRefused(
        await sendMessage({ type: 'media', media: { mimetype: 'image/png' } }),
        'Base64 payload is required',
      );
      assert.deepEqual([await logCount(), await jobCount()], [logs, jobs]);
    });
  });

  describe('Idempotency-Key', () => {
    const sendKeyed = (idempotencyKey: string, apiKey = key) =>
      send(
        { contact: { value: '5511987654321' }, message: TEXT },
        { 'x-channel-api-key': apiKey, 'idempotency-key': idempotencyKey },
      );

    it('answers the first requestId again within 24 h, without queueing again', async () => {
      const first = await sendKeyed('pedido-123');
      assert.equal(first.status, 201);
      const [logs, jobs] = [await logCount(), await jobCount()];
      const again = await sendKeyed('pedido-123');
      assert.deepEqual([again.status, again.body], [201, { requestId: first.json.requestId }]);
      assert.deepEqual([await logCount(), await jobCount()], [logs, jobs]);
      // The same key on another channel is another request.
      const other = await sendKeyed('pedido-123', key1);
      assert.equal(other.status, 201);
      assert.notEqual(other.json.requestId, first.json.requestId);
    });

    it('resolves concurrent repeats to one request', async () => {
      const [logs, jobs] = [await logCount(), await jobCount()];
      const answers = await Promise.all(Array.from({ length: 20 }, () => sendKeyed('concorrente')));
      const ids = new Set(answers.map((a) => (a.status === 201 ? a.json.requestId : `status ${a.status}`)));
      assert.equal(ids.size, 1);
      assert.deepEqual([await logCount(), await jobCount()], [logs + 1, jobs + 1]);
    });

    it('accepts the key again once the first request is older than 24 h', async () => {
      const first = await sendKeyed('antigo');
      await db.query(
        `UPDATE request_logs SET created_at = now() - interval '25 hours' WHERE request_id = $1`,
        [first.json.requestId],
      );
      const second = await sendKeyed('antigo');
      assert.equal(second.status, 201);
      assert.notEqual(second.json.requestId, first.json.requestId);
      const rows = await db.query<{ request_id: string; idempotency_key: string | null }>(
        `SELECT request_id, idempotency_key FROM request_logs WHERE request_id = ANY($1::uuid[]) ORDER BY created_at`,
        [[first.json.requestId, second.json.requestId]],
      );
      assert.deepEqual(rows.rows, [
        { request_id: first.json.requestId, idempotency_key: null },
        { request_id: second.json.requestId, idempotency_key: 'antigo' },
      ]);
      const third = await sendKeyed('antigo');
      assert.deepEqual(third.body, { requestId: second.json.requestId });
    });
  });

  describe('OpenAPI', () => {
    it('documents the send and status routes with the channel key', async () => {
      const res = await t.request('GET', '/docs/json');
      assert.equal(res.status, 200);
      const paths = res.json.paths as Record<
        string,
        Record<string, { security?: unknown; responses: Record<string, unknown>; requestBody?: unknown }>
      >;
      const send = paths['/channel-api/messages/send']?.post;
      assert.ok(send?.requestBody, 'send documents its body');
      assert.deepEqual(send.security, [{ channelApiKey: [] }]);
      // 415 for a body that is not JSON, 503 (with Retry-After) while the database is unreachable.
      assert.deepEqual(Object.keys(send.responses).sort(), ['201', '400', '404', '413', '415', '429', '503']);
      const status = paths['/channel-api/messages/requests/{requestId}']?.get;
      assert.deepEqual(status?.security, [{ channelApiKey: [] }]);
      assert.ok(paths['/api/channels/{id}/request-logs']?.get);
    });
  });

  describe('GET /channel-api/messages/requests/:requestId', () => {
    it('shows a request only to its own channel key', async () => {
      const sent = await sendMessage(TEXT);
      const path = `/channel-api/messages/requests/${sent.json.requestId as string}`;
      const mine = await t.request('GET', path, { headers: { 'x-channel-api-key': key } });
      assert.equal(mine.status, 200);
      assert.equal(mine.json.requestId, sent.json.requestId);
      const other = await t.request('GET', path, { headers: { 'x-channel-api-key': key1 } });
      assert.deepEqual([other.status, other.body], [404, NOT_FOUND]);
      const unknown = await t.request(
        'GET',
        '/channel-api/messages/requests/5f0c8a52-1b1e-4b53-9a52-1f2e3d4c5b6a',
        {
          headers: { 'x-channel-api-key': key },
        },
      );
      assert.deepEqual([unknown.status, unknown.body], [404, NOT_FOUND]);
      const bad = await t.request('GET', '/channel-api/messages/requests/123', {
        headers: { 'x-channel-api-key': key },
      });
      assertRefused(bad, 'requestId must be a UUID');
      const noKey = await t.request('GET', path);
      assert.equal(noKey.status, 400);
      const badKey = await t.request('GET', path, { headers: { 'x-channel-api-key': 'x' } });
      assert.deepEqual([badKey.status, badKey.body], [404, INVALID_TOKEN]);
    });
  });

  describe('GET /api/channels/:id/request-logs', () => {
    it('lists the channel log newest first with filters and pages', async () => {
      const g = await seedAccount(t.server.services);
      const channelId = g.channels[0]!.id;
      const res = await t.request('POST', `/api/channels/${channelId}/api-key`, {
        headers: { authorization: `Bearer ${g.adminToken}` },
      });
      const gKey = res.json.apiKey as string;
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await send(
          {
            contact: { value: `551198765432${i}`, name: `Cliente ${i}` },
            message: i % 2 === 0 ? TEXT : template({ name: `modelo_${i}` }),
            ...(i < 3 ? { flowId: 'fluxo-a' } : {}),
            metadata: { i: String(i) },
          },
          { 'x-channel-api-key': gKey },
        );
        assert.equal(r.status, 201);
        ids.push(r.json.requestId as string);
      }
      // Settled states as the worker leaves them (this server runs no worker).
      await db.query(
        `UPDATE request_logs SET status = 'failed', attempts = 1,
           error = '{"code":"132001","message":"Template name does not exist in the translation"}'
         WHERE request_id = $1`,
        [ids[3]],
      );
      const list = (query: string, token = g.adminToken) =>
        t.request('GET', `/api/channels/${channelId}/request-logs${query}`, {
          headers: { authorization: `Bearer ${token}` },
        });
      const page = (r: TestResponse) => {
        assert.equal(r.status, 200, JSON.stringify(r.body));
        const { items, ...rest } = r.json as { items: Array<Record<string, unknown>> };
        return { ...rest, ids: items.map((i) => i.requestId) };
      };
      const newest = [...ids].reverse();
      assert.deepEqual(page(await list('')), {
        total: 5,
        page: 1,
        limit: 20,
        hasNextPage: false,
        nextPage: null,
        ids: newest,
      });
      assert.deepEqual(page(await list('?limit=2&page=2')), {
        total: 5,
        page: 2,
        limit: 2,
        hasNextPage: true,
        nextPage: 3,
        ids: newest.slice(2, 4),
      });
      assert.deepEqual(page(await list('?flowId=fluxo-a')).ids, [ids[2], ids[1], ids[0]]);
      assert.deepEqual(page(await list('?status=failed')).ids, [ids[3]]);
      assert.deepEqual(page(await list('?status=queued&flowId=fluxo-a&limit=1')), {
        total: 3,
        page: 1,
        limit: 1,
        hasNextPage: true,
        nextPage: 2,
        ids: [ids[2]],
      });
      const one = await list(`?requestId=${ids[3]}`);
      const item = (one.json.items as Array<Record<string, unknown>>)[0]!;
      const { createdAt, updatedAt, ...rest } = item;
      assert.deepEqual(rest, {
        requestId: ids[3],
        status: 'failed',
        attempts: 1,
        flowId: null,
        metadata: { i: '3' },
        contact: { type: 'phone', value: '5511987654323', name: 'Cliente 3' },
        messageType: 'template',
        templateName: 'modelo_3',
        messageId: null,
        providerMessageId: null,
        error: { code: '132001', message: 'Template name does not exist in the translation' },
      });
      assert.equal(typeof createdAt, 'string');
      assert.equal(typeof updatedAt, 'string');

      assertRefused(
        await list('?status=done'),
        'status must be one of the following values: queued, processing, sent, failed',
      );
      assertRefused(await list('?requestId=1'), 'requestId must be a UUID');
      assertRefused(await list('?limit=101'), 'limit must not be greater than 100');
      // Another account's channel, and an agent without channels:manage.
      assert.deepEqual((await list('', f.adminToken)).body, NOT_FOUND);
      assert.equal((await list('', g.agents[0]!.token)).status, 403);
      assert.equal((await t.request('GET', `/api/channels/${channelId}/request-logs`)).status, 401);
    });
  });
});
