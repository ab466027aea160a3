import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { prepareMessage, type PrepareResult } from '../../src/modules/message-content/prepare.js';
import type { SendMessage, SendOrderDetails } from '../../src/modules/message-content/content.types.js';
import { WHATSAPP_LIMITS } from '../../src/providers/whatsapp-cloud/limits.js';

/**
 * Any JSON a client might send in `message`; prepareMessage must judge it, not trust its type. Judged
 * against WhatsApp's limits, the provider the contract's sentences are written for.
 */
const prepare = (message: unknown, pathPrefix?: string): PrepareResult =>
  prepareMessage(message as SendMessage, WHATSAPP_LIMITS, pathPrefix === undefined ? {} : { pathPrefix });
const refused = (...messages: string[]) => ({ ok: false, messages });
const b64 = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');

describe('prepareMessage: message type', () => {
  it('requires a known type', () => {
    assert.deepEqual(prepare({ text: { value: 'x' } }), refused('type should not be empty'));
    assert.deepEqual(
      prepare({ type: 'audio' }),
      refused('type must be one of the following values: text, template, media'),
    );
    assert.deepEqual(prepare('text'), refused('message must be an object'));
  });

  it('puts the caller prefix before every path, not before the fixed contract sentence', () => {
    assert.deepEqual(prepare({ type: 'text' }, 'message.'), refused('message.text should not be empty'));
    assert.deepEqual(
      prepare(
        { type: 'media', media: { mimetype: 'image/png', mediaUrl: 'https://x.test/a.png' } },
        'message.',
      ),
      refused('message.media.mediaUrl is not accepted; send media.base64', 'Base64 payload is required'),
    );
  });
});

describe('prepareMessage: text', () => {
  it('accepts a text', () => {
    assert.deepEqual(prepare({ type: 'text', text: { value: 'Olá', pushName: 'Loja' } }), {
      ok: true,
      prepared: { type: 'text', text: 'Olá' },
    });
  });

  it('requires the text object and its value', () => {
    assert.deepEqual(prepare({ type: 'text' }), refused('text should not be empty'));
    assert.deepEqual(prepare({ type: 'text', text: 'Olá' }), refused('text must be an object'));
    assert.deepEqual(prepare({ type: 'text', text: {} }), refused('text.value should not be empty'));
    assert.deepEqual(
      prepare({ type: 'text', text: { value: '  ' } }),
      refused('text.value should not be empty'),
    );
    assert.deepEqual(prepare({ type: 'text', text: { value: 12 } }), refused('text.value must be a string'));
    assert.deepEqual(
      prepare({ type: 'text', text: { value: 'x', pushName: 3 } }),
      refused('text.pushName must be a string'),
    );
  });

  it('limits the text to 4096 characters, counted as characters not UTF-16 units', () => {
    assert.deepEqual(prepare({ type: 'text', text: { value: '😀'.repeat(4096) } }), {
      ok: true,
      prepared: { type: 'text', text: '😀'.repeat(4096) },
    });
    assert.deepEqual(
      prepare({ type: 'text', text: { value: 'a'.repeat(4097) } }),
      refused('text.value must be shorter than or equal to 4096 characters'),
    );
  });
});

describe('prepareMessage: media', () => {
  it('keeps kind, mimetype, caption, filename and the decoded size', () => {
    assert.deepEqual(
      prepare({
        type: 'media',
        media: {
          mimetype: 'image/jpeg',
          base64: b64(10),
          caption: 'Foto',
          filename: 'a.jpg',
          mediaType: 'image',
        },
      }),
      {
        ok: true,
        prepared: {
          type: 'media',
          media: {
            kind: 'image',
            mimetype: 'image/jpeg',
            byteLength: 10,
            filename: 'a.jpg',
            caption: 'Foto',
            mediaType: 'image',
          },
        },
      },
    );
    assert.deepEqual(
      prepare({ type: 'media', media: { mimetype: 'Audio/OGG; codecs=opus', base64: 'AAE=' } }),
      {
        ok: true,
        prepared: { type: 'media', media: { kind: 'audio', mimetype: 'audio/ogg', byteLength: 2 } },
      },
    );
  });

  it('maps every supported mimetype to its kind', () => {
    const kinds: Record<string, string> = {
      'image/png': 'image',
      'video/mp4': 'video',
      'video/3gpp': 'video',
      'audio/aac': 'audio',
      'audio/amr': 'audio',
      'audio/mpeg': 'audio',
      'audio/mp4': 'audio',
      'text/plain': 'document',
      'application/pdf': 'document',
      'application/msword': 'document',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'document',
      'application/vnd.ms-excel': 'document',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'document',
      'application/vnd.ms-powerpoint': 'document',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'document',
      'image/webp': 'sticker',
    };
    for (const [mimetype, kind] of Object.entries(kinds)) {
      assert.deepEqual(
        prepare({ type: 'media', media: { mimetype, base64: 'AAAA' } }),
        { ok: true, prepared: { type: 'media', media: { kind, mimetype, byteLength: 3 } } },
        mimetype,
      );
    }
  });

  it('answers the contract sentence when base64 is missing or empty', () => {
    assert.deepEqual(
      prepare({ type: 'media', media: { mimetype: 'image/png' } }),
      refused('Base64 payload is required'),
    );
    assert.deepEqual(
      prepare({ type: 'media', media: { mimetype: 'image/png', base64: '' } }),
      refused('Base64 payload is required'),
    );
    assert.deepEqual(prepare({ type: 'media' }), refused('media should not be empty'));
    assert.deepEqual(prepare({ type: 'media', media: [] }), refused('media must be an object'));
  });

  it('refuses a data: prefix and anything but strict base64', () => {
    assert.deepEqual(
      prepare({ type: 'media', media: { mimetype: 'image/png', base64: 'data:image/png;base64,AAAA' } }),
      refused('media.base64 must not have a data: prefix'),
    );
    for (const base64 of [
      'AAA',
      'AA=',
      'AAAA\n',
      'AA AA',
      'AA-_',
      'A===',
      '=AAA',
      'AB==',
      'AAB=',
      'AAAA====',
      '****',
    ]) {
      assert.deepEqual(
        prepare({ type: 'media', media: { mimetype: 'image/png', base64 } }),
        refused('media.base64 must be base64 encoded'),
        JSON.stringify(base64),
      );
    }
    assert.deepEqual(
      prepare({ type: 'media', media: { mimetype: 'image/png', base64: 42 } }),
      refused('media.base64 must be a string'),
    );
  });

  it('refuses mediaUrl', () => {
    assert.deepEqual(
      prepare({
        type: 'media',
        media: { mimetype: 'image/png', base64: 'AAAA', mediaUrl: 'https://x.test/a.png' },
      }),
      refused('media.mediaUrl is not accepted; send media.base64'),
    );
  });

  it('refuses unsupported mimetypes', () => {
    const list =
      'image/jpeg, image/png, video/mp4, video/3gpp, audio/aac, audio/amr, audio/mpeg, audio/mp4, audio/ogg, ' +
      'text/plain, application/pdf, application/msword, ' +
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document, application/vnd.ms-excel, ' +
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet, application/vnd.ms-powerpoint, ' +
      'application/vnd.openxmlformats-officedocument.presentationml.presentation, image/webp';
    assert.deepEqual(
      prepare({ type: 'media', media: { mimetype: 'image/gif', base64: 'AAAA' } }),
      refused(`media.mimetype must be one of the following values: ${list}`),
    );
    assert.deepEqual(
      prepare({ type: 'media', media: { mimetype: 'constructor', base64: 'AAAA' } }),
      refused(`media.mimetype must be one of the following values: ${list}`),
    );
    assert.deepEqual(
      prepare({ type: 'media', media: { base64: 'AAAA' } }),
      refused('media.mimetype should not be empty'),
    );
  });

  it('limits the decoded size by kind', () => {
    assert.deepEqual(prepare({ type: 'media', media: { mimetype: 'image/webp', base64: b64(500 * 1024) } }), {
      ok: true,
      prepared: { type: 'media', media: { kind: 'sticker', mimetype: 'image/webp', byteLength: 512000 } },
    });
    assert.deepEqual(
      prepare({ type: 'media', media: { mimetype: 'image/webp', base64: b64(500 * 1024 + 1) } }),
      refused('media.base64 must decode to at most 500 KB (512000 bytes) for sticker, got 512001 bytes'),
    );
    assert.deepEqual(
      prepare({ type: 'media', media: { mimetype: 'image/png', base64: b64(5 * 1024 * 1024 + 1) } }),
      refused('media.base64 must decode to at most 5 MB (5242880 bytes) for image, got 5242881 bytes'),
    );
    assert.deepEqual(
      prepare({ type: 'media', media: { mimetype: 'video/mp4', base64: b64(16 * 1024 * 1024 + 2) } }),
      refused('media.base64 must decode to at most 16 MB (16777216 bytes) for video, got 16777218 bytes'),
    );
  });

  it('checks the caption: none for audio and stickers, at most 1024 characters', () => {
    assert.deepEqual(
      prepare({ type: 'media', media: { mimetype: 'audio/mpeg', base64: 'AAAA', caption: 'ouça' } }),
      refused('media.caption is not allowed for audio'),
    );
    assert.deepEqual(
      prepare({ type: 'media', media: { mimetype: 'image/webp', base64: 'AAAA', caption: 'oi' } }),
      refused('media.caption is not allowed for sticker'),
    );
    assert.deepEqual(
      prepare({ type: 'media', media: { mimetype: 'video/mp4', base64: 'AAAA', caption: 'x'.repeat(1025) } }),
      refused('media.caption must be shorter than or equal to 1024 characters'),
    );
  });
});

describe('prepareMessage: template', () => {
  const template = (t: Record<string, unknown>) => prepare({ type: 'template', template: t });
  const prepared = (t: Record<string, unknown>) => ({
    ok: true,
    prepared: {
      type: 'template',
      template: {
        name: 'aviso',
        language: 'pt_BR',
        header: [],
        body: [],
        urlButtons: [],
        orderDetails: [],
        ...t,
      },
    },
  });

  it('requires a name and defaults the language to pt_BR', () => {
    assert.deepEqual(template({ name: 'aviso' }), prepared({}));
    assert.deepEqual(template({ name: 'aviso', language: 'en_US' }), prepared({ language: 'en_US' }));
    assert.deepEqual(template({}), refused('template.name should not be empty'));
    assert.deepEqual(template({ name: '' }), refused('template.name should not be empty'));
    assert.deepEqual(template({ name: 'aviso', language: 3 }), refused('template.language must be a string'));
    assert.deepEqual(prepare({ type: 'template' }), refused('template should not be empty'));
  });

  it('takes a plain array of variables as the body (legacy form)', () => {
    assert.deepEqual(
      template({ name: 'aviso', variables: ['Maria', { value: 'A-1' }] }),
      prepared({ body: [{ text: 'Maria' }, { text: 'A-1' }] }),
    );
  });

  it('sends named values with their parameter name, in the order given', () => {
    assert.deepEqual(
      template({
        name: 'aviso',
        variables: {
          header: [{ key: 'loja', value: 'Loja Centro' }],
          body: [
            { key: 'order_number', value: 'A-1' },
            { key: 'first_name', value: 'Maria', correlationId: 1 },
          ],
        },
      }),
      prepared({
        header: [{ text: 'Loja Centro', parameterName: 'loja' }],
        body: [
          { text: 'A-1', parameterName: 'order_number' },
          { text: 'Maria', parameterName: 'first_name' },
        ],
      }),
    );
  });

  it('orders positional values by correlationId, the others filling the free slots in order', () => {
    assert.deepEqual(
      template({
        name: 'aviso',
        variables: {
          body: [
            { value: 'terceiro', correlationId: 3 },
            'primeiro',
            { value: 'segundo' },
            { value: 'quarto', correlationId: 4 },
          ],
        },
      }),
      prepared({
        body: [{ text: 'primeiro' }, { text: 'segundo' }, { text: 'terceiro' }, { text: 'quarto' }],
      }),
    );
    assert.deepEqual(
      template({
        name: 'aviso',
        variables: [
          { value: 'b', correlationId: 2 },
          { value: 'a', correlationId: 1 },
        ],
      }),
      prepared({ body: [{ text: 'a' }, { text: 'b' }] }),
    );
  });

  it('refuses malformed variables', () => {
    assert.deepEqual(
      template({ name: 'aviso', variables: { body: [{ key: 'First-Name', value: 'Maria' }] } }),
      refused('template.variables.body[0].key must match ^[a-z_][a-z0-9_]*$ regular expression'),
    );
    assert.deepEqual(
      template({ name: 'aviso', variables: { body: [{ key: 'nome', value: 'Maria' }, 'A-1'] } }),
      refused('template.variables.body must not mix named values (with key) and positional ones'),
    );
    assert.deepEqual(
      template({
        name: 'aviso',
        variables: {
          body: [
            { key: 'nome', value: 'a' },
            { key: 'nome', value: 'b' },
          ],
        },
      }),
      refused('template.variables.body[1].key repeats template.variables.body[0].key'),
    );
    assert.deepEqual(
      template({
        name: 'aviso',
        variables: {
          body: [
            { value: 'a', correlationId: 1 },
            { value: 'b', correlationId: 1 },
          ],
        },
      }),
      refused('template.variables.body[1].correlationId 1 is used by another value'),
    );
    assert.deepEqual(
      template({ name: 'aviso', variables: { body: [{ value: 'a', correlationId: 3 }, 'b'] } }),
      refused(
        'template.variables.body[0].correlationId must not be greater than 2 (the number of values in template.variables.body)',
      ),
    );
    assert.deepEqual(
      template({ name: 'aviso', variables: { body: [{ value: 'a', correlationId: 0 }] } }),
      refused('template.variables.body[0].correlationId must be a positive integer'),
    );
    assert.deepEqual(
      template({ name: 'aviso', variables: { body: ['', { value: '' }, 3, { key: 'x' }] } }),
      refused(
        'template.variables.body[0] should not be empty',
        'template.variables.body[1].value should not be empty',
        'template.variables.body[2] must be a string or an object with a value',
        'template.variables.body[3].value should not be empty',
      ),
    );
    assert.deepEqual(
      template({ name: 'aviso', variables: { body: 'Maria' } }),
      refused('template.variables.body must be an array'),
    );
    assert.deepEqual(
      template({ name: 'aviso', variables: 'Maria' }),
      refused('template.variables must be an object or an array'),
    );
  });

  it('turns variables.buttons into url button parameters by correlationId - 1, else position', () => {
    assert.deepEqual(
      template({
        name: 'aviso',
        variables: { buttons: ['A-1', { value: 'rastreio/99', correlationId: 3 }] },
      }),
      prepared({
        urlButtons: [
          { index: 0, params: [{ text: 'A-1' }] },
          { index: 2, params: [{ text: 'rastreio/99' }] },
        ],
      }),
    );
    assert.deepEqual(
      template({ name: 'aviso', variables: { buttons: ['a', { value: 'b', correlationId: 1 }] } }),
      refused('template.variables.buttons[1] targets button index 0, which already has a value'),
    );
  });

  it('checks the media header: one of link (https) or fileId, filename only for documents', () => {
    assert.deepEqual(
      template({
        name: 'aviso',
        mediaHeader: { format: 'document', link: 'https://x.test/f.pdf', filename: 'f.pdf' },
      }),
      prepared({ mediaHeader: { format: 'document', link: 'https://x.test/f.pdf', filename: 'f.pdf' } }),
    );
    assert.deepEqual(
      template({ name: 'aviso', mediaHeader: { format: 'image', fileId: '1234' } }),
      prepared({ mediaHeader: { format: 'image', fileId: '1234' } }),
    );
    const header = (h: Record<string, unknown>) => template({ name: 'aviso', mediaHeader: h });
    assert.deepEqual(
      header({ format: 'image', link: 'https://x.test/a.png', fileId: '1' }),
      refused('template.mediaHeader must have only one of link or fileId'),
    );
    assert.deepEqual(
      header({ format: 'image' }),
      refused('template.mediaHeader must have either link or fileId'),
    );
    assert.deepEqual(
      header({ format: 'image', link: 'http://x.test/a.png' }),
      refused('template.mediaHeader.link must be an https URL'),
    );
    assert.deepEqual(
      header({ format: 'image', link: 'not a url' }),
      refused('template.mediaHeader.link must be an https URL'),
    );
    assert.deepEqual(
      header({ format: 'video', fileId: '1', filename: 'v.mp4' }),
      refused('template.mediaHeader.filename is only allowed when format is document'),
    );
    assert.deepEqual(
      header({ format: 'audio', fileId: '1' }),
      refused('template.mediaHeader.format must be one of the following values: image, video, document'),
    );
    assert.deepEqual(
      template({
        name: 'aviso',
        mediaHeader: { format: 'image', fileId: '1' },
        variables: { header: ['x'] },
      }),
      refused('template.variables.header must be empty when template.mediaHeader is given'),
    );
  });
});

describe('prepareMessage: order_details', () => {
  const details = (): SendOrderDetails => ({
    referenceId: 'pedido-123',
    type: 'digital-goods',
    paymentType: 'br',
    currency: 'BRL',
    totalAmount: { value: '1.300,00', offset: 100 },
    paymentSettings: [
      {
        type: 'pix_dynamic_code',
        pixDynamicCode: { code: '000201…', merchantName: 'Loja', key: '39580525000189', keyType: 'CNPJ' },
      },
    ],
    order: {
      status: 'pending',
      items: [
        { retailerId: 'sku-1', name: 'Bolo', amount: { value: '1234.56', offset: 100 }, quantity: 1 },
        { retailerId: 'sku-2', name: 'Vela', amount: { value: 522, offset: 100 }, quantity: 2 },
      ],
      subtotal: { value: '1.245,00', offset: 100 },
      tax: { value: '55', offset: 100, description: 'frete' },
    },
  });
  const withButton = (orderDetails: unknown, extra: Record<string, unknown> = {}) =>
    prepare({
      type: 'template',
      template: { name: 'cobranca', buttons: [{ index: 0, type: 'order_details', orderDetails }], ...extra },
    });
  const P = 'template.buttons[0].orderDetails';

  it('converts every amount and keeps the whole order', () => {
    assert.deepEqual(withButton(details()), {
      ok: true,
      prepared: {
        type: 'template',
        template: {
          name: 'cobranca',
          language: 'pt_BR',
          header: [],
          body: [],
          urlButtons: [],
          orderDetails: [
            {
              index: 0,
              orderDetails: {
                referenceId: 'pedido-123',
                type: 'digital-goods',
                paymentType: 'br',
                currency: 'BRL',
                totalAmount: { value: 130000, offset: 100 },
                paymentSettings: [
                  {
                    type: 'pix_dynamic_code',
                    pixDynamicCode: {
                      code: '000201…',
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
                      amount: { value: 123456, offset: 100 },
                      quantity: 1,
                    },
                    { retailerId: 'sku-2', name: 'Vela', amount: { value: 522, offset: 100 }, quantity: 2 },
                  ],
                  subtotal: { value: 124500, offset: 100 },
                  tax: { value: 5500, offset: 100, description: 'frete' },
                },
              },
            },
          ],
        },
      },
    });
  });

  it('sends a zero tax at the subtotal offset when there is none', () => {
    const d = details();
    delete d.order.tax;
    d.totalAmount = { value: 124500, offset: 100 };
    const r = withButton(d);
    assert.ok(r.ok && r.prepared.type === 'template');
    assert.deepEqual(r.prepared.template.orderDetails[0]?.orderDetails.order.tax, { value: 0, offset: 100 });
  });

  it('compares sums at a common scale when offsets differ', () => {
    const d = details();
    d.order.items = [
      { retailerId: 'sku-1', name: 'Bolo', amount: { value: '12,345', offset: 1000 }, quantity: 2 },
    ];
    d.order.subtotal = { value: '24.69', offset: 100 };
    d.order.tax = { value: 0, offset: 1 };
    d.totalAmount = { value: 24690, offset: 1000 };
    const r = withButton(d);
    assert.equal(r.ok, true, JSON.stringify(r));

    d.order.items = [
      { retailerId: 'sku-1', name: 'Bolo', amount: { value: '12,346', offset: 1000 }, quantity: 1 },
    ];
    d.order.subtotal = { value: '12.34', offset: 100 };
    d.totalAmount = { value: '12.34', offset: 100 };
    assert.deepEqual(
      withButton(d),
      refused(
        `${P}.order.subtotal must equal the sum of item amounts times quantities (expected 12346, got 12340 at offset 1000)`,
      ),
    );
  });

  it('refuses sums that do not add up', () => {
    const d = details();
    d.order.subtotal = { value: 124000, offset: 100 };
    d.totalAmount = { value: '1.000,00', offset: 100 };
    assert.deepEqual(
      withButton(d),
      refused(
        `${P}.order.subtotal must equal the sum of item amounts times quantities (expected 124500, got 124000)`,
        `${P}.totalAmount must equal order.subtotal plus order.tax (expected 129500, got 100000)`,
      ),
    );
  });

  it('names every missing or malformed field', () => {
    assert.deepEqual(
      withButton({ order: { items: [] } }),
      refused(
        `${P}.referenceId should not be empty`,
        `${P}.type should not be empty`,
        `${P}.paymentType should not be empty`,
        `${P}.currency should not be empty`,
        `${P}.totalAmount should not be empty`,
        `${P}.paymentSettings should not be empty`,
        `${P}.order.status should not be empty`,
        `${P}.order.items must contain at least 1 elements`,
        `${P}.order.subtotal should not be empty`,
      ),
    );
    const d = details() as unknown as Record<string, unknown> & { order: Record<string, unknown> };
    Object.assign(d, {
      referenceId: 'pedido 123',
      type: 'services',
      paymentType: 'upi',
      currency: 'USD',
      totalAmount: { value: 'R$ 10', offset: 100 },
      paymentSettings: [{ type: 'boleto' }],
    });
    d.order = {
      status: 'paid',
      items: [
        { retailerId: '', name: 'x'.repeat(61), amount: { value: '1.234', offset: 100 }, quantity: 0 },
        { retailerId: 'b', name: 'B', amount: { value: 1, offset: 3 }, quantity: 1.5 },
      ],
      subtotal: { value: -1, offset: 100 },
      tax: { offset: 100 },
    };
    assert.deepEqual(
      withButton(d),
      refused(
        `${P}.referenceId must match ^[A-Za-z0-9_.-]{1,60}$ regular expression`,
        `${P}.type must be one of the following values: digital-goods, physical-goods`,
        `${P}.paymentType must be one of the following values: br`,
        `${P}.currency must be one of the following values: BRL`,
        `${P}.totalAmount.value must be a decimal amount such as 1234.56, 1.234,56 or 25`,
        `${P}.paymentSettings[0].type must be one of the following values: pix_dynamic_code`,
        `${P}.paymentSettings[0].pixDynamicCode should not be empty`,
        `${P}.order.status must be one of the following values: pending`,
        `${P}.order.items[0].retailerId should not be empty`,
        `${P}.order.items[0].name must be shorter than or equal to 60 characters`,
        `${P}.order.items[0].amount.value has more decimal places than offset 100 allows (at most 2)`,
        `${P}.order.items[0].quantity must be a positive integer`,
        `${P}.order.items[1].amount.offset must be a power of ten (1, 10, 100, 1000, …)`,
        `${P}.order.items[1].quantity must be a positive integer`,
        `${P}.order.subtotal.value must be a non-negative integer in the smallest currency unit, or a decimal string`,
        `${P}.order.tax.value should not be empty`,
      ),
    );
  });

  it('checks the button itself and the pix code fields', () => {
    const d = details();
    d.paymentSettings = [
      {
        type: 'pix_dynamic_code',
        pixDynamicCode: { code: '', merchantName: 'Loja', key: 'k', keyType: 'IBAN' },
      },
    ];
    assert.deepEqual(
      prepare({
        type: 'template',
        template: {
          name: 'cobranca',
          variables: { buttons: ['A-1'] },
          buttons: [
            { index: 0, type: 'order_details', orderDetails: details() },
            { index: -1, type: 'url', orderDetails: d },
            null,
          ],
        },
      }),
      refused(
        'template.buttons[0].index 0 is already used by another button',
        'template.buttons[1].index must be a non-negative integer',
        'template.buttons[1].type must be one of the following values: order_details',
        'template.buttons[1].orderDetails.paymentSettings[0].pixDynamicCode.code should not be empty',
        'template.buttons[1].orderDetails.paymentSettings[0].pixDynamicCode.keyType must be one of the following values: CPF, CNPJ, EMAIL, PHONE, EVP',
        'template.buttons[2] should not be empty',
      ),
    );
    assert.deepEqual(withButton(undefined), refused(`${P} should not be empty`));
  });
});
