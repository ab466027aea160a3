import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { prepareMessage } from '../../src/modules/message-content/prepare.js';
import type { SendMessage, SendTemplateMessage } from '../../src/modules/message-content/content.types.js';
import { WhatsAppCloudProvider } from '../../src/providers/whatsapp-cloud/client.js';
import { WHATSAPP_LIMITS } from '../../src/providers/whatsapp-cloud/limits.js';
import {
  ProviderError,
  type PreparedMedia,
  type PreparedMessage,
  type ProviderContext,
} from '../../src/providers/types.js';
import { FakeGraph } from '../helpers/fake-graph.js';

const TOKEN = 'EAAG-test-token';
const ctx: ProviderContext = {
  channelId: '65f000000000000000000001',
  config: { phoneNumberId: '106540352242922', accessToken: TOKEN, appSecret: 's', verifyToken: 'v' },
};
const MESSAGES_PATH = '/v23.0/106540352242922/messages';
const envelope = { messaging_product: 'whatsapp', recipient_type: 'individual', to: '+5511987654321' };

/** A template as the Channel API receives it, prepared as the pipeline will. */
function template(t: SendTemplateMessage): PreparedMessage {
  const r = prepareMessage({ type: 'template', template: t } satisfies SendMessage, WHATSAPP_LIMITS);
  assert.ok(r.ok, JSON.stringify(r));
  assert.equal(r.prepared.type, 'template');
  return r.prepared as PreparedMessage;
}

function media(m: Omit<PreparedMedia, 'mediaId'>): PreparedMessage {
  return { type: 'media', media: { ...m, mediaId: '1013859600285441' } };
}

/** What a ProviderError says, as one object. */
function failure(err: unknown) {
  assert.ok(err instanceof ProviderError, String(err));
  return { code: err.code, message: err.message, temporary: err.temporary, details: err.details };
}

describe('WhatsApp Cloud provider against a fake Graph API', () => {
  let fake: FakeGraph;
  let provider: WhatsAppCloudProvider;

  before(async () => {
    fake = await FakeGraph.start({ token: TOKEN });
    provider = new WhatsAppCloudProvider({ baseUrl: `${fake.url}/`, version: 'v23.0', timeoutMs: 10_000 });
  });
  after(async () => fake?.close());

  /** Sends and returns what the fake received (path, auth, JSON) with the provider's result. */
  async function sent(message: PreparedMessage, to = '5511987654321') {
    const result = await provider.send(ctx, to, message);
    const req = await fake.nextRequest();
    return {
      result,
      request: {
        method: req.method,
        path: req.path,
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        json: req.json,
      },
    };
  }
  const request = (json: unknown) => ({
    method: 'POST',
    path: MESSAGES_PATH,
    authorization: `Bearer ${TOKEN}`,
    contentType: 'application/json',
    json,
  });

  it('sends a text and keeps the wa_id Graph answers', async () => {
    const first = await sent({ type: 'text', text: 'Olá' });
    assert.deepEqual(
      first.request,
      request({ ...envelope, type: 'text', text: { body: 'Olá', preview_url: false } }),
    );
    assert.equal(first.result.recipientAddress, '5511987654321');
    assert.match(first.result.providerMessageId, /^wamid\.\d+$/);

    // A Brazilian account registered before the ninth digit: Graph answers the 12-digit id.
    fake.setWaId('5511987654321', '551187654321');
    const second = await sent({ type: 'text', text: 'De novo' }, '+5511987654321');
    assert.equal(second.result.recipientAddress, '551187654321');
    assert.deepEqual(second.request.json, {
      ...envelope,
      type: 'text',
      text: { body: 'De novo', preview_url: false },
    });
    fake.setWaId('5511987654321', '5511987654321');
  });

  it('sends to a customer known only by a business-scoped user id through `recipient`', async () => {
    const { request: req, result } = await sent({ type: 'text', text: 'Olá' }, 'BR.1502576394655843');
    assert.deepEqual(req.json, {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      recipient: 'BR.1502576394655843',
      type: 'text',
      text: { body: 'Olá', preview_url: false },
    });
    // Graph answers no wa_id for such a send: the stored address stays the user id.
    assert.equal(result.recipientAddress, null);
  });

  it('sends each media kind by id, with captions and file names only where they belong', async () => {
    const id = '1013859600285441';
    const cases: Array<[PreparedMessage, unknown]> = [
      [
        media({ kind: 'image', mimetype: 'image/png', caption: 'Foto', filename: 'a.png' }),
        { type: 'image', image: { id, caption: 'Foto' } },
      ],
      [
        media({ kind: 'video', mimetype: 'video/mp4', caption: 'Vídeo', filename: 'v.mp4' }),
        { type: 'video', video: { id, caption: 'Vídeo' } },
      ],
      [
        media({ kind: 'audio', mimetype: 'audio/ogg', caption: 'ignored', filename: 'a.ogg' }),
        { type: 'audio', audio: { id } },
      ],
      [
        media({ kind: 'document', mimetype: 'application/pdf', caption: 'Boleto', filename: 'boleto.pdf' }),
        { type: 'document', document: { id, caption: 'Boleto', filename: 'boleto.pdf' } },
      ],
      [media({ kind: 'document', mimetype: 'text/plain' }), { type: 'document', document: { id } }],
      [
        media({ kind: 'sticker', mimetype: 'image/webp', caption: 'ignored' }),
        { type: 'sticker', sticker: { id } },
      ],
    ];
    for (const [message, body] of cases) {
      const { request: req } = await sent(message);
      assert.deepEqual(req, request({ ...envelope, ...(body as object) }), JSON.stringify(message));
    }
  });

  it('sends a named-parameter template with a document header and a url button', async () => {
    const { request: req, result } = await sent(
      template({
        name: 'pedido_confirmado',
        mediaHeader: { format: 'document', link: 'https://files.example.com/f.pdf', filename: 'f.pdf' },
        variables: {
          body: [
            { key: 'first_name', value: 'Maria' },
            { key: 'order_number', value: 'A-1' },
          ],
          buttons: [{ value: 'A-1', correlationId: 2 }],
        },
      }),
    );
    assert.deepEqual(
      req,
      request({
        ...envelope,
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
      }),
    );
    assert.equal(result.recipientAddress, '5511987654321');
  });

  it('sends a legacy array of variables as positional body parameters, and an image header by id', async () => {
    const { request: req } = await sent(
      template({
        name: 'lembrete',
        language: 'en_US',
        mediaHeader: { format: 'image', fileId: '4490709327384033' },
        variables: [{ value: 'terça', correlationId: 2 }, 'Maria'],
      }),
    );
    assert.deepEqual(req.json, {
      ...envelope,
      type: 'template',
      template: {
        name: 'lembrete',
        language: { code: 'en_US', policy: 'deterministic' },
        components: [
          { type: 'header', parameters: [{ type: 'image', image: { id: '4490709327384033' } }] },
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'Maria' },
              { type: 'text', text: 'terça' },
            ],
          },
        ],
      },
    });
  });

  it('leaves components out of a template without parameters', async () => {
    const { request: req } = await sent(template({ name: 'hello_world' }));
    assert.deepEqual(req.json, {
      ...envelope,
      type: 'template',
      template: { name: 'hello_world', language: { code: 'pt_BR', policy: 'deterministic' } },
    });
  });

  it('sends an order_details charge with ERP amounts converted to integers', async () => {
    const { request: req } = await sent(
      template({
        name: 'cobranca',
        variables: { body: ['Maria'] },
        buttons: [
          {
            index: 1,
            type: 'order_details',
            orderDetails: {
              referenceId: 'pedido-123',
              type: 'digital-goods',
              paymentType: 'br',
              currency: 'BRL',
              totalAmount: { value: 371990, offset: 100 },
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
                    name: 'Vela',
                    amount: { value: '1234.56', offset: 100 },
                    quantity: 2,
                  },
                  { retailerId: 'sku-3', name: 'Fita', amount: { value: 622, offset: 100 }, quantity: 1 },
                ],
                subtotal: { value: '3.709,90', offset: 100 },
                tax: { value: '10', offset: 100, description: 'taxa de serviço' },
              },
            },
          },
        ],
      }),
    );
    assert.deepEqual(
      req,
      request({
        ...envelope,
        type: 'template',
        template: {
          name: 'cobranca',
          language: { code: 'pt_BR', policy: 'deterministic' },
          components: [
            { type: 'body', parameters: [{ type: 'text', text: 'Maria' }] },
            {
              type: 'button',
              sub_type: 'order_details',
              index: 1,
              parameters: [
                {
                  type: 'action',
                  action: {
                    order_details: {
                      reference_id: 'pedido-123',
                      type: 'digital-goods',
                      payment_type: 'br',
                      currency: 'BRL',
                      total_amount: { value: 371990, offset: 100 },
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
                            name: 'Vela',
                            amount: { value: 123456, offset: 100 },
                            quantity: 2,
                          },
                          {
                            retailer_id: 'sku-3',
                            name: 'Fita',
                            amount: { value: 622, offset: 100 },
                            quantity: 1,
                          },
                        ],
                        subtotal: { value: 370990, offset: 100 },
                        tax: { value: 1000, offset: 100, description: 'taxa de serviço' },
                      },
                    },
                  },
                },
              ],
            },
          ],
        },
      }),
    );
  });

  it('sends a zero tax when the charge had none', async () => {
    const { request: req } = await sent(
      template({
        name: 'cobranca',
        buttons: [
          {
            index: 0,
            type: 'order_details',
            orderDetails: {
              referenceId: 'p.2',
              type: 'physical-goods',
              paymentType: 'br',
              currency: 'BRL',
              totalAmount: { value: '500', offset: 100 },
              paymentSettings: [
                {
                  type: 'pix_dynamic_code',
                  pixDynamicCode: { code: '0002', merchantName: 'Loja', key: 'a@b.com', keyType: 'EMAIL' },
                },
              ],
              order: {
                status: 'pending',
                items: [
                  { retailerId: 'sku-1', name: 'Bolo', amount: { value: 50000, offset: 100 }, quantity: 1 },
                ],
                subtotal: { value: 50000, offset: 100 },
              },
            },
          },
        ],
      }),
    );
    assert.deepEqual(req.json, {
      ...envelope,
      type: 'template',
      template: {
        name: 'cobranca',
        language: { code: 'pt_BR', policy: 'deterministic' },
        components: [
          {
            type: 'button',
            sub_type: 'order_details',
            index: 0,
            parameters: [
              {
                type: 'action',
                action: {
                  order_details: {
                    reference_id: 'p.2',
                    type: 'physical-goods',
                    payment_type: 'br',
                    currency: 'BRL',
                    total_amount: { value: 50000, offset: 100 },
                    payment_settings: [
                      {
                        type: 'pix_dynamic_code',
                        pix_dynamic_code: {
                          code: '0002',
                          merchant_name: 'Loja',
                          key: 'a@b.com',
                          key_type: 'EMAIL',
                        },
                      },
                    ],
                    order: {
                      status: 'pending',
                      items: [
                        {
                          retailer_id: 'sku-1',
                          name: 'Bolo',
                          amount: { value: 50000, offset: 100 },
                          quantity: 1,
                        },
                      ],
                      subtotal: { value: 50000, offset: 100 },
                      tax: { value: 0, offset: 100 },
                    },
                  },
                },
              },
            ],
          },
        ],
      },
    });
  });

  it('uploads media as multipart with the product, the type and the file', async () => {
    const bytes = Buffer.from('%PDF-1.4 fake pdf bytes\n\x00\xff', 'latin1');
    const result = await provider.uploadMedia(ctx, {
      size: bytes.length,
      // In uneven pieces, as storage reads them.
      chunks: async function* () {
        yield bytes.subarray(0, 5);
        yield bytes.subarray(5);
      },
      mimetype: 'application/pdf',
      filename: 'boleto.pdf',
    });
    const req = await fake.nextRequest();
    assert.match(result.mediaId, /^media\.\d+$/);
    assert.deepEqual(
      { method: req.method, path: req.path, authorization: req.headers.authorization, form: req.form },
      {
        method: 'POST',
        path: '/v23.0/106540352242922/media',
        authorization: `Bearer ${TOKEN}`,
        form: {
          messaging_product: { value: 'whatsapp' },
          type: { value: 'application/pdf' },
          file: { filename: 'boleto.pdf', contentType: 'application/pdf', bytes },
        },
      },
    );
    assert.match(String(req.headers['content-type']), /^multipart\/form-data; boundary=/);
  });

  it('classifies Graph errors by code: throughput is temporary', async () => {
    fake.failNext({
      status: 400,
      code: 130429,
      message: 'Rate limit hit',
      details: 'Cloud API message throughput has been reached.',
    });
    await assert.rejects(provider.send(ctx, '5511987654321', { type: 'text', text: 'x' }), (err) => {
      assert.deepEqual(failure(err), {
        code: '130429',
        message: 'Rate limit hit',
        temporary: true,
        details: 'Cloud API message throughput has been reached.',
      });
      return true;
    });
    await fake.nextRequest();
  });

  it('classifies Graph errors by code: a missing template is permanent, whatever the HTTP status', async () => {
    fake.failNext({
      status: 404,
      code: 132001,
      message: 'Template name does not exist in the translation',
      details: 'template name (x) does not exist in pt_BR',
    });
    await assert.rejects(provider.send(ctx, '5511987654321', template({ name: 'x' })), (err) => {
      assert.deepEqual(failure(err), {
        code: '132001',
        message: 'Template name does not exist in the translation',
        temporary: false,
        details: 'template name (x) does not exist in pt_BR',
      });
      return true;
    });
    // A Graph error inside a 500 is still judged by its code.
    fake.failNext({ status: 500, code: 131000, message: 'Something went wrong' });
    await assert.rejects(provider.send(ctx, '5511987654321', { type: 'text', text: 'x' }), (err) => {
      assert.deepEqual(failure(err), {
        code: '131000',
        message: 'Something went wrong',
        temporary: true,
        details: undefined,
      });
      return true;
    });
    await fake.nextRequest();
    await fake.nextRequest();
  });

  it('treats HTTP 5xx without a Graph body as temporary and other bodiless failures as permanent', async () => {
    fake.respondNext({ status: 503 });
    await assert.rejects(provider.send(ctx, '5511987654321', { type: 'text', text: 'x' }), (err) => {
      assert.deepEqual(failure(err), {
        code: 'http_503',
        message: 'WhatsApp Cloud API answered HTTP 503',
        temporary: true,
        details: undefined,
      });
      return true;
    });
    fake.respondNext({ status: 502, raw: '<html>Bad Gateway</html>' });
    await assert.rejects(
      provider.uploadMedia(ctx, {
        size: 1,
        chunks: async function* () {
          yield Buffer.from('x');
        },
        mimetype: 'text/plain',
      }),
      (err) => {
        assert.equal(failure(err).code, 'http_502');
        assert.equal(failure(err).temporary, true);
        return true;
      },
    );
    fake.respondNext({ status: 404, raw: 'Not Found' });
    await assert.rejects(provider.send(ctx, '5511987654321', { type: 'text', text: 'x' }), (err) => {
      assert.deepEqual(failure(err), {
        code: 'http_404',
        message: 'WhatsApp Cloud API answered HTTP 404',
        temporary: false,
        details: undefined,
      });
      return true;
    });
    for (let i = 0; i < 3; i++) await fake.nextRequest();
  });

  it('refuses a 2xx it cannot read without retrying (the message may have gone)', async () => {
    fake.respondNext({ status: 200, body: { messaging_product: 'whatsapp' } });
    await assert.rejects(provider.send(ctx, '5511987654321', { type: 'text', text: 'x' }), (err) => {
      assert.deepEqual(failure(err), {
        code: 'invalid_response',
        message: 'WhatsApp Cloud API answered without a message id',
        temporary: false,
        details: undefined,
      });
      return true;
    });
    await fake.nextRequest();
  });

  it('reports a wrong token as the permanent Graph error 190', async () => {
    const other = { ...ctx, config: { ...ctx.config, accessToken: 'expired' } };
    await assert.rejects(provider.send(other, '5511987654321', { type: 'text', text: 'x' }), (err) => {
      assert.deepEqual(failure(err), {
        code: '190',
        message: 'Invalid OAuth access token - Cannot parse access token',
        temporary: false,
        details: undefined,
      });
      return true;
    });
    const req = await fake.nextRequest();
    assert.equal(req.headers.authorization, 'Bearer expired');
  });

  it('refuses a channel without phoneNumberId or accessToken before any request', async () => {
    const before = fake.requests.length;
    await assert.rejects(
      provider.send({ channelId: 'c', config: { phoneNumberId: '1' } }, '5511987654321', {
        type: 'text',
        text: 'x',
      }),
      (err) => {
        assert.deepEqual(failure(err), {
          code: 'invalid_config',
          message: "The channel's WhatsApp settings lack accessToken",
          temporary: false,
          details: undefined,
        });
        return true;
      },
    );
    assert.equal(fake.requests.length, before);
  });

  it('treats a request that gets no answer in time as temporary', async () => {
    const impatient = new WhatsAppCloudProvider({ baseUrl: fake.url, version: 'v23.0', timeoutMs: 200 });
    fake.hangNext();
    await assert.rejects(impatient.send(ctx, '5511987654321', { type: 'text', text: 'x' }), (err) => {
      assert.deepEqual(failure(err), {
        code: 'timeout',
        message: 'WhatsApp Cloud API did not answer in time',
        temporary: true,
        details: undefined,
      });
      return true;
    });
    await fake.nextRequest();
  });
});

describe('WhatsApp Cloud provider without a reachable server', () => {
  it('treats a refused connection as temporary', async () => {
    const gone = await FakeGraph.start();
    const url = gone.url;
    await gone.close();
    const provider = new WhatsAppCloudProvider({ baseUrl: url, version: 'v23.0', timeoutMs: 10_000 });
    await assert.rejects(provider.send(ctx, '5511987654321', { type: 'text', text: 'x' }), (err) => {
      assert.deepEqual(failure(err), {
        code: 'network_error',
        message: `Could not reach the WhatsApp Cloud API: connect ECONNREFUSED ${url.replace('http://', '')}`,
        temporary: true,
        details: undefined,
      });
      return true;
    });
  });
});
