import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { sendOrderingKey } from '../../src/jobs/payloads.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { FakeGraph, type RecordedRequest } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { createWhatsAppChannel, signedDelivery, statusUpdate } from '../helpers/whatsapp.js';

// The send-message pipeline end to end: accepted request → job → contact, chat, provider call (the
// fake Graph API checks the exact JSON) → stored message and request log; retries, permanent errors,
// per-contact order, the sandbox provider, and no second send for a settled request.

const PHONE_NUMBER_ID = '1234567890';
const APP_SECRET = 'app-secret';
const MESSAGES_PATH = `/v23.0/${PHONE_NUMBER_ID}/messages`;
const MEDIA_PATH = `/v23.0/${PHONE_NUMBER_ID}/media`;
const OBJECT_ID = /^[0-9a-f]{24}$/;

interface RequestLog {
  requestId: string;
  status: string;
  attempts: number;
  messageId: string | null;
  providerMessageId: string | null;
  error: { code: string; message: string; details?: string } | null;
  [key: string]: unknown;
}

let phoneSeq = 0;
/** A distinct Brazilian mobile per call: its own contact, chat and FIFO key. */
const phone = () => `55119876${String(++phoneSeq).padStart(5, '0')}`;
const graphText = (to: string, body: string) => ({
  messaging_product: 'whatsapp',
  recipient_type: 'individual',
  to: `+${to}`,
  type: 'text',
  text: { body, preview_url: false },
});

describe('send-message pipeline', () => {
  let t: TestApp;
  let f: Fixture;
  let fake: FakeGraph;
  let db: pg.Pool;
  let waChannel: string; // WhatsApp Cloud, through the fake
  let waKey: string;
  let sandboxKey: string; // channel 1, sandbox

  const send = (body: Record<string, unknown>, key = waKey) =>
    t.request('POST', '/channel-api/messages/send', { headers: { 'x-channel-api-key': key }, body });
  /** Accepts a message and returns its requestId. */
  const accept = async (to: string, message: unknown, extra: Record<string, unknown> = {}, key = waKey) => {
    const res = await send({ contact: { value: to }, message, ...extra }, key);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.json.requestId as string;
  };
  const requestLog = async (requestId: string, key = waKey) => {
    const res = await t.request('GET', `/channel-api/messages/requests/${requestId}`, {
      headers: { 'x-channel-api-key': key },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as RequestLog;
  };
  /** Polls the request log (nothing to await: the worker settles it in the background). */
  const settled = async (requestId: string, key = waKey): Promise<RequestLog> => {
    for (let i = 0; i < 600; i++) {
      const log = await requestLog(requestId, key);
      if (log.status === 'sent' || log.status === 'failed') return log;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`request ${requestId} not settled in time`);
  };
  const nextMessage = async (): Promise<RecordedRequest> => {
    const r = await fake.nextRequest();
    assert.equal(r.path, MESSAGES_PATH);
    assert.equal(r.headers.authorization, 'Bearer test-token');
    return r;
  };
  const messageRow = async (id: string) =>
    (
      await db.query(
        `SELECT chat_id, channel_id, origin, type, content, status, provider_message_id, request_id, error
         FROM messages WHERE id = $1`,
        [id],
      )
    ).rows[0] as Record<string, unknown>;
  const chatRow = async (id: string) =>
    (
      await db.query(
        `SELECT status, queue, team_id, user_id, last_message, closed_at IS NOT NULL AS closed FROM chats WHERE id = $1`,
        [id],
      )
    ).rows[0] as Record<string, unknown>;

  before(async () => {
    fake = await FakeGraph.start();
    t = await startTestApp({ env: { WHATSAPP_GRAPH_BASE_URL: fake.url, WHATSAPP_TIMEOUT_MS: '5000' } });
    f = await seedAccount(t.server.services);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    const wa = await createWhatsAppChannel(f, {
      name: 'WhatsApp',
      phoneNumberId: PHONE_NUMBER_ID,
      appSecret: APP_SECRET,
      withApiKey: true,
    });
    waChannel = wa.id;
    waKey = wa.apiKey;
    sandboxKey = (await f.services.channels.rotateApiKey(f.admin, f.channels[1]!.id)).apiKey;
  });
  after(async () => {
    await db?.end();
    await t?.close();
    await fake?.close();
  });

  describe('what the provider is sent', () => {
    it('text: sends the exact JSON, stores the message and opens a chat in queue API', async () => {
      const to = phone();
      const requestId = await accept(to, { type: 'text', text: { value: 'Olá, Maria!', pushName: 'Loja' } });
      const sent = await nextMessage();
      assert.deepEqual(sent.json, graphText(to, 'Olá, Maria!'));

      const log = await settled(requestId);
      const { createdAt: _c, updatedAt: _u, ...rest } = log;
      assert.match(log.messageId ?? '', OBJECT_ID);
      assert.match(log.providerMessageId ?? '', /^wamid\.\d+$/);
      assert.deepEqual(rest, {
        requestId,
        status: 'sent',
        attempts: 1,
        flowId: null,
        metadata: {},
        contact: { type: 'phone', value: to, name: null },
        messageType: 'text',
        templateName: null,
        messageId: log.messageId,
        providerMessageId: log.providerMessageId,
        error: null,
      });

      const message = await messageRow(log.messageId!);
      assert.deepEqual(
        { ...message, chat_id: 'x' },
        {
          chat_id: 'x',
          channel_id: waChannel,
          origin: 'api',
          type: 'text',
          content: { text: 'Olá, Maria!', pushName: 'Loja' },
          status: 'sent',
          provider_message_id: log.providerMessageId,
          request_id: requestId,
          error: null,
        },
      );

      // The conversation, as the Channel API lists it.
      const chats = await t.request('GET', `/channel-api/chats?channelId=${waChannel}&queue=API`, {
        headers: f.authHeader(),
      });
      const chat = (chats.json.chats as Array<Record<string, unknown>>).find(
        (c) => (c.contact as { value: string }).value === to,
      );
      assert.ok(chat, JSON.stringify(chats.body));
      assert.equal(chat.id, message.chat_id);
      assert.deepEqual(
        {
          status: chat.status,
          queue: chat.queue,
          teamId: chat.teamId,
          userId: chat.userId,
          lastMessage: { ...(chat.lastMessage as object), createdAt: 'x' },
        },
        {
          status: 'open',
          queue: 'API',
          teamId: f.teams[0]!.id,
          userId: null,
          lastMessage: {
            id: log.messageId,
            origin: 'api',
            type: 'text',
            content: 'Olá, Maria!',
            createdAt: 'x',
          },
        },
      );
    });

    it('template with named parameters, a document header with filename and a url button', async () => {
      const to = phone();
      const requestId = await accept(to, {
        type: 'template',
        template: {
          name: 'pedido_confirmado',
          variables: {
            body: [
              { key: 'first_name', value: 'Maria' },
              { key: 'order_number', value: 'A-1' },
            ],
            buttons: [{ value: 'A-1', correlationId: 2 }],
          },
          mediaHeader: { format: 'document', link: 'https://files.example.com/f.pdf', filename: 'f.pdf' },
        },
      });
      assert.deepEqual((await nextMessage()).json, {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: `+${to}`,
        type: 'template',
        template: {
          name: 'pedido_confirmado',
          language: { code: 'pt_BR', policy: 'deterministic' },
          components: [
            {
              type: 'header',
              parameters: [
                {
                  type: 'document',
                  document: { link: 'https://files.example.com/f.pdf', filename: 'f.pdf' },
                },
              ],
            },
            {
              type: 'body',
              parameters: [
                { type: 'text', parameter_name: 'first_name', text: 'Maria' },
                { type: 'text', parameter_name: 'order_number', text: 'A-1' },
              ],
            },
            { type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: 'A-1' }] },
          ],
        },
      });
      const log = await settled(requestId);
      assert.equal(log.status, 'sent');
      assert.equal(log.templateName, 'pedido_confirmado');
      const message = await messageRow(log.messageId!);
      assert.equal(message.type, 'template');
      assert.deepEqual((await chatRow(message.chat_id as string)).last_message, {
        id: log.messageId,
        origin: 'api',
        type: 'template',
        content: '[template] pedido_confirmado',
        createdAt: ((await chatRow(message.chat_id as string)).last_message as { createdAt: string })
          .createdAt,
      });
    });

    it('template with a legacy array of variables, placed by correlationId', async () => {
      const to = phone();
      const requestId = await accept(to, {
        type: 'template',
        template: {
          name: 'lembrete',
          language: 'en_US',
          variables: ['segundo', { value: 'primeiro', correlationId: 1 }, 'terceiro'],
        },
      });
      assert.deepEqual((await nextMessage()).json, {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: `+${to}`,
        type: 'template',
        template: {
          name: 'lembrete',
          language: { code: 'en_US', policy: 'deterministic' },
          components: [
            {
              type: 'body',
              parameters: [
                { type: 'text', text: 'primeiro' },
                { type: 'text', text: 'segundo' },
                { type: 'text', text: 'terceiro' },
              ],
            },
          ],
        },
      });
      assert.equal((await settled(requestId)).status, 'sent');
    });

    it('order_details: ERP amounts become {value, offset} in the smallest unit', async () => {
      const to = phone();
      const requestId = await accept(to, {
        type: 'template',
        template: {
          name: 'cobranca',
          variables: { body: ['Maria'] },
          buttons: [
            {
              index: 0,
              type: 'order_details',
              orderDetails: {
                referenceId: 'pedido-123',
                type: 'digital-goods',
                paymentType: 'br',
                currency: 'BRL',
                totalAmount: { value: '3,736.18', offset: 100 },
                paymentSettings: [
                  {
                    type: 'pix_dynamic_code',
                    pixDynamicCode: {
                      code: '00020101021226',
                      merchantName: 'Loja',
                      key: '39580525000189',
                      keyType: 'CNPJ',
                    },
                  },
                ],
                order: {
                  status: 'pending',
                  items: [
                    {
                      retailerId: 'sku-1',
                      name: 'Bolo',
                      amount: { value: '1.234,56', offset: 100 },
                      quantity: 1,
                    },
                    {
                      retailerId: 'sku-2',
                      name: 'Torta',
                      amount: { value: '1234.56', offset: 100 },
                      quantity: 2,
                    },
                    { retailerId: 'sku-3', name: 'Café', amount: { value: 750, offset: 100 }, quantity: 3 },
                  ],
                  subtotal: { value: '3.726,18', offset: 100 },
                  tax: { value: '10', offset: 100, description: 'Entrega' },
                },
              },
            },
          ],
        },
      });
      assert.deepEqual((await nextMessage()).json, {
        messaging_product: 'whatsapp',
        recipient_type: 'individual',
        to: `+${to}`,
        type: 'template',
        template: {
          name: 'cobranca',
          language: { code: 'pt_BR', policy: 'deterministic' },
          components: [
            { type: 'body', parameters: [{ type: 'text', text: 'Maria' }] },
            {
              type: 'button',
              sub_type: 'order_details',
              index: 0,
              parameters: [
                {
                  type: 'action',
                  action: {
                    order_details: {
                      reference_id: 'pedido-123',
                      type: 'digital-goods',
                      payment_type: 'br',
                      currency: 'BRL',
                      total_amount: { value: 373618, offset: 100 },
                      payment_settings: [
                        {
                          type: 'pix_dynamic_code',
                          pix_dynamic_code: {
                            code: '00020101021226',
                            merchant_name: 'Loja',
                            key: '39580525000189',
                            key_type: 'CNPJ',
                          },
                        },
                      ],
                      order: {
                        status: 'pending',
                        items: [
                          {
                            retailer_id: 'sku-1',
                            name: 'Bolo',
                            amount: { value: 123456, offset: 100 },
                            quantity: 1,
                          },
                          {
                            retailer_id: 'sku-2',
                            name: 'Torta',
                            amount: { value: 123456, offset: 100 },
                            quantity: 2,
                          },
                          {
                            retailer_id: 'sku-3',
                            name: 'Café',
                            amount: { value: 750, offset: 100 },
                            quantity: 3,
                          },
                        ],
                        subtotal: { value: 372618, offset: 100 },
                        tax: { value: 1000, offset: 100, description: 'Entrega' },
                      },
                    },
                  },
                },
              ],
            },
          ],
        },
      });
      assert.equal((await settled(requestId)).status, 'sent');
    });

    it('media: uploads the file first, then sends by id, and drops the stored bytes', async () => {
      const cases = [
        {
          media: {
            mimetype: 'image/png',
            base64: Buffer.from('png-bytes').toString('base64'),
            caption: 'Foto',
          },
          file: { filename: 'file', contentType: 'image/png', bytes: Buffer.from('png-bytes') },
          graph: (id: string) => ({ type: 'image', image: { id, caption: 'Foto' } }),
          kind: 'image',
          summary: 'Foto',
        },
        {
          media: {
            mimetype: 'application/pdf',
            base64: Buffer.from('%PDF-1.4').toString('base64'),
            filename: 'boleto.pdf',
            caption: 'Seu boleto',
          },
          file: { filename: 'boleto.pdf', contentType: 'application/pdf', bytes: Buffer.from('%PDF-1.4') },
          graph: (id: string) => ({
            type: 'document',
            document: { id, caption: 'Seu boleto', filename: 'boleto.pdf' },
          }),
          kind: 'document',
          summary: 'Seu boleto',
        },
        {
          media: { mimetype: 'audio/ogg', base64: Buffer.from('ogg').toString('base64') },
          file: { filename: 'file', contentType: 'audio/ogg', bytes: Buffer.from('ogg') },
          graph: (id: string) => ({ type: 'audio', audio: { id } }),
          kind: 'audio',
          summary: '[audio]',
        },
      ];
      for (const c of cases) {
        const to = phone();
        const requestId = await accept(to, { type: 'media', media: c.media });
        const upload = await fake.nextRequest();
        assert.equal(upload.path, MEDIA_PATH);
        assert.deepEqual(upload.form, {
          messaging_product: { value: 'whatsapp' },
          type: { value: c.media.mimetype },
          file: c.file,
        });
        // The fake numbers its uploads: this one's id.
        const mediaId = `media.${fake.requests.filter((r) => r.path === MEDIA_PATH).length}`;
        const sent = await nextMessage();
        assert.deepEqual(sent.json, {
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: `+${to}`,
          ...c.graph(mediaId),
        });
        const log = await settled(requestId);
        assert.equal(log.status, 'sent');
        const message = await messageRow(log.messageId!);
        assert.equal(message.type, c.kind);
        const { base64: _b, ...described } = c.media;
        assert.deepEqual(message.content, {
          media: { kind: c.kind, ...described, mediaId },
        });
        assert.equal(
          ((await chatRow(message.chat_id as string)).last_message as { content: string }).content,
          c.summary,
        );
        const blobs = await db.query(
          'SELECT count(*)::int AS n FROM media_blobs b JOIN request_logs r ON r.media_blob_id = b.id WHERE r.request_id = $1',
          [requestId],
        );
        assert.equal(blobs.rows[0].n, 0);
      }
    });

    it('refuses an email contact on a WhatsApp channel at request time', async () => {
      const res = await send({
        contact: { value: 'maria@example.com', type: 'email' },
        message: { type: 'text', text: { value: 'x' } },
      });
      assert.deepEqual(res.body, {
        statusCode: 400,
        message: ['contact.type must be phone on a WhatsApp channel'],
        error: 'Bad Request',
      });
    });

    it('keeps the wa_id the provider answers and sends there next time', async () => {
      const to = phone();
      const waId = `5511${to.slice(5)}`; // the 12-digit id of an account older than the ninth digit
      fake.setWaId(to, waId);
      const first = await accept(to, { type: 'text', text: { value: 'um' } });
      assert.deepEqual((await nextMessage()).json, graphText(to, 'um'));
      await settled(first);
      const contact = await db.query(
        'SELECT value, provider_address FROM contacts WHERE channel_id = $1 AND value = $2',
        [waChannel, to],
      );
      assert.deepEqual(contact.rows, [{ value: to, provider_address: waId }]);
      // Addressed with the 12-digit number, it is the same contact, sent to its wa_id.
      const second = await accept(waId, { type: 'text', text: { value: 'dois' } });
      assert.deepEqual((await nextMessage()).json, graphText(waId, 'dois'));
      const log = await settled(second);
      assert.deepEqual(log.contact, { type: 'phone', value: to, name: null });
    });
  });

  describe('conversations', () => {
    it('reuses the open chat, and closeConversation closes it before opening a new one in API', async () => {
      const to = phone();
      const one = await accept(to, { type: 'text', text: { value: 'um' } });
      await nextMessage();
      const chatA = (await messageRow((await settled(one)).messageId!)).chat_id as string;
      const two = await accept(to, { type: 'text', text: { value: 'dois' } });
      await nextMessage();
      assert.equal((await messageRow((await settled(two)).messageId!)).chat_id, chatA);

      const three = await accept(to, { type: 'text', text: { value: 'três' } }, { closeConversation: true });
      assert.deepEqual((await nextMessage()).json, graphText(to, 'três'));
      const log = await settled(three);
      const chatB = (await messageRow(log.messageId!)).chat_id as string;
      assert.notEqual(chatB, chatA);
      const a = await chatRow(chatA);
      assert.deepEqual(
        [a.status, a.closed, (a.last_message as { content: string }).content],
        ['closed', true, 'dois'],
      );
      const b = await chatRow(chatB);
      assert.deepEqual(
        [b.status, b.queue, b.team_id, b.user_id, (b.last_message as { content: string }).content],
        ['open', 'API', f.teams[0]!.id, null, 'três'],
      );
      const open = await db.query(
        `SELECT c.id FROM chats c JOIN contacts ct ON ct.id = c.contact_id WHERE ct.value = $1 AND c.status = 'open'`,
        [to],
      );
      assert.deepEqual(open.rows, [{ id: chatB }]);
    });

    it('a burst to many contacts: each sent once, one chat each, closeConversation among them honoured', async () => {
      // Accepted together, so the worker takes them in one fetch and writes them together.
      const closing = phone();
      const first = await accept(closing, { type: 'text', text: { value: 'antes' } });
      await nextMessage();
      const oldChat = (await messageRow((await settled(first)).messageId!)).chat_id as string;
      const fresh = Array.from({ length: 12 }, () => phone());
      const ids = await Promise.all([
        ...fresh.map((to, i) => accept(to, { type: 'text', text: { value: `lote ${i}` } })),
        accept(closing, { type: 'text', text: { value: 'depois' } }, { closeConversation: true }),
      ]);
      const received: unknown[] = [];
      for (let i = 0; i < ids.length; i++) received.push((await nextMessage()).json);
      const expected = [...fresh.map((to, i) => graphText(to, `lote ${i}`)), graphText(closing, 'depois')];
      const byTo = (a: unknown, b: unknown) =>
        String((a as { to: string }).to).localeCompare(String((b as { to: string }).to));
      assert.deepEqual(received.sort(byTo), expected.sort(byTo));

      const logs = await Promise.all(ids.map((id) => settled(id)));
      assert.deepEqual(
        logs.map((l) => [l.status, l.attempts, l.error]),
        logs.map(() => ['sent', 1, null]),
      );
      const chats = new Set<string>();
      for (const [i, log] of logs.entries()) {
        const m = await messageRow(log.messageId!);
        assert.deepEqual(
          [m.origin, m.status, m.request_id, m.provider_message_id],
          ['api', 'sent', ids[i], log.providerMessageId],
        );
        const chat = await chatRow(m.chat_id as string);
        assert.deepEqual(
          [chat.status, chat.queue, (chat.last_message as { content: string }).content],
          ['open', 'API', i < fresh.length ? `lote ${i}` : 'depois'],
        );
        chats.add(m.chat_id as string);
      }
      assert.equal(chats.size, ids.length);
      assert.ok(!chats.has(oldChat));
      assert.equal((await chatRow(oldChat)).status, 'closed');
      const messages = await db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM messages WHERE request_id = ANY($1::uuid[])',
        [ids],
      );
      assert.equal(messages.rows[0]!.n, ids.length);
    });

    it("appends to a contact's open chat in any queue without moving it", async () => {
      const to = phone();
      const chatId = await f.inbound(1, to, 'Oi, preciso de ajuda');
      const requestId = await accept(
        to,
        { type: 'text', text: { value: 'Já vamos atender' } },
        {},
        sandboxKey,
      );
      const log = await settled(requestId, sandboxKey);
      assert.equal((await messageRow(log.messageId!)).chat_id, chatId);
      const chat = await chatRow(chatId);
      assert.deepEqual([chat.status, chat.queue, chat.team_id], ['open', 'Espera', f.teams[1]!.id]);
    });
  });

  describe('provider failures', () => {
    it('retries a throughput error (130429) with backoff: sent once, after a second attempt', async () => {
      const to = phone();
      fake.failNext({ code: 130429, message: 'Rate limit hit' });
      const requestId = await accept(to, { type: 'text', text: { value: 'de novo' } });
      const first = await nextMessage();
      const second = await nextMessage();
      assert.deepEqual([first.json, second.json], [graphText(to, 'de novo'), graphText(to, 'de novo')]);
      const log = await settled(requestId);
      assert.deepEqual([log.status, log.attempts, log.error], ['sent', 2, null]);
      const stored = await db.query('SELECT status FROM messages WHERE request_id = $1', [requestId]);
      assert.deepEqual(stored.rows, [{ status: 'sent' }]);
    });

    it('retries an HTTP 5xx without a Graph error body (a proxy answering)', async () => {
      const to = phone();
      fake.respondNext({ status: 503, raw: '<html>Service Unavailable</html>' });
      const requestId = await accept(to, { type: 'text', text: { value: 'outra vez' } });
      await nextMessage();
      assert.deepEqual((await nextMessage()).json, graphText(to, 'outra vez'));
      const log = await settled(requestId);
      assert.deepEqual([log.status, log.attempts, log.error], ['sent', 2, null]);
    });

    it('records a permanent error (132001) at once, on the request log and the message', async () => {
      const to = phone();
      fake.failNext({
        code: 132001,
        message: 'Template name does not exist in the translation',
        details: 'template name (nao_existe) does not exist in pt_BR',
      });
      const requestId = await accept(to, { type: 'template', template: { name: 'nao_existe' } });
      await nextMessage();
      const log = await settled(requestId);
      const error = {
        code: '132001',
        message: 'Template name does not exist in the translation',
        details: 'template name (nao_existe) does not exist in pt_BR',
      };
      assert.deepEqual(
        [log.status, log.attempts, log.error, log.providerMessageId],
        ['failed', 1, error, null],
      );
      const message = await messageRow(log.messageId!);
      assert.deepEqual([message.status, message.error, message.provider_message_id], ['failed', error, null]);
      // Not retried: the contact's next message is the next thing the provider sees.
      await accept(to, { type: 'text', text: { value: 'depois' } });
      assert.deepEqual((await nextMessage()).json, graphText(to, 'depois'));
    });

    it("fails at once when the channel's WhatsApp settings are incomplete", async () => {
      // The API refuses such settings; a row can still hold them (e.g. edited by hand).
      const g = await seedAccount(t.server.services);
      await db.query(
        `UPDATE channels SET provider = 'whatsapp-cloud', provider_config = '{}' WHERE id = $1`,
        [g.channels[0]!.id],
      );
      const key = (
        await t.request('POST', `/api/channels/${g.channels[0]!.id}/api-key`, {
          headers: { authorization: `Bearer ${g.adminToken}` },
        })
      ).json.apiKey as string;
      const requestId = await accept(phone(), { type: 'text', text: { value: 'x' } }, {}, key);
      const log = await settled(requestId, key);
      assert.deepEqual(
        [log.status, log.attempts, log.error],
        [
          'failed',
          1,
          {
            code: 'invalid_config',
            message: "The channel's WhatsApp settings lack phoneNumberId and accessToken",
          },
        ],
      );
    });
  });

  describe('order and duplicates', () => {
    it("keeps a contact's messages in accepted order, even behind a retry", async () => {
      const to = phone();
      fake.failNext({ code: 131056, message: 'Pair rate limit hit' });
      const ids: string[] = [];
      for (const text of ['1', '2', '3', '4'])
        ids.push(await accept(to, { type: 'text', text: { value: text } }));
      const bodies: unknown[] = [];
      for (let i = 0; i < 5; i++) bodies.push((await nextMessage()).json);
      assert.deepEqual(
        bodies,
        ['1', '1', '2', '3', '4'].map((text) => graphText(to, text)),
      );
      for (const id of ids) assert.equal((await settled(id)).status, 'sent');
    });

    it('completes a redelivered job of a settled request without sending again', async () => {
      const to = phone();
      const requestId = await accept(to, { type: 'text', text: { value: 'uma vez' } });
      await nextMessage();
      const before = await settled(requestId);
      // The same job again, as after a crash between the send being recorded and the job completing.
      await t.server.services.db
        .transaction()
        .execute((tx) =>
          t.server.services.sendQueue.enqueue(tx, [
            { lane: sendOrderingKey(waChannel, to), job: { kind: 'api_request', requestId } },
          ]),
        );
      await accept(to, { type: 'text', text: { value: 'seguinte' } });
      // FIFO per contact: the redelivered job ran first, and sent nothing.
      assert.deepEqual((await nextMessage()).json, graphText(to, 'seguinte'));
      assert.deepEqual(await requestLog(requestId), before);
    });
  });

  describe('delivery statuses', () => {
    it('applies a status the webhook reported before the send was stored', async () => {
      const to = phone();
      const wamid = 'wamid.early-status';
      const hook = await t.request(
        'POST',
        `/webhooks/whatsapp/${waChannel}`,
        signedDelivery(
          PHONE_NUMBER_ID,
          APP_SECRET,
          statusUpdate({ id: wamid, status: 'delivered', recipientId: to }),
        ),
      );
      assert.equal(hook.status, 200, JSON.stringify(hook.body));
      // The webhook's job records the status for a message not known yet.
      let recorded = 0;
      for (let i = 0; i < 400 && recorded === 0; i++) {
        const r = await db.query(
          'SELECT count(*)::int AS n FROM message_status_events WHERE provider_message_id = $1',
          [wamid],
        );
        recorded = r.rows[0].n as number;
        if (recorded === 0) await new Promise((r) => setTimeout(r, 25));
      }
      assert.equal(recorded, 1);

      fake.respondNext({
        status: 200,
        body: {
          messaging_product: 'whatsapp',
          contacts: [{ input: `+${to}`, wa_id: to }],
          messages: [{ id: wamid }],
        },
      });
      const requestId = await accept(to, { type: 'text', text: { value: 'chegou?' } });
      assert.deepEqual((await nextMessage()).json, graphText(to, 'chegou?'));
      const log = await settled(requestId);
      assert.equal(log.providerMessageId, wamid);
      assert.equal((await messageRow(log.messageId!)).status, 'delivered');
    });
  });

  describe('sandbox provider', () => {
    it('records the message as sent, then delivered', async () => {
      const to = phone();
      const requestId = await accept(to, { type: 'text', text: { value: 'Olá do sandbox' } }, {}, sandboxKey);
      const log = await settled(requestId, sandboxKey);
      assert.equal(log.status, 'sent');
      assert.match(log.providerMessageId ?? '', /^sandbox\.[0-9a-f-]{36}$/);
      let status = '';
      for (let i = 0; i < 200 && status !== 'delivered'; i++) {
        status = String((await messageRow(log.messageId!)).status);
        if (status !== 'delivered') await new Promise((r) => setTimeout(r, 25));
      }
      assert.equal(status, 'delivered');

      const media = await accept(
        to,
        { type: 'media', media: { mimetype: 'image/jpeg', base64: Buffer.from('jpg').toString('base64') } },
        {},
        sandboxKey,
      );
      const mediaLog = await settled(media, sandboxKey);
      const content = (await messageRow(mediaLog.messageId!)).content as { media: { mediaId: string } };
      assert.match(content.media.mediaId, /^sandbox-media\.[0-9a-f-]{36}$/);
    });
  });
});
