import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  parseWebhook,
  verifySignature,
  verifySubscription,
} from '../../src/providers/whatsapp-cloud/webhook.js';
import { graphWebhook, hubSignature } from '../helpers/whatsapp.js';

const SECRET = 'app-secret-123';
const sign = (body: Buffer, secret = SECRET) => hubSignature(secret, body);

/** A Graph webhook body carrying one `messages` change. */
const webhook = (value: Record<string, unknown>) => graphWebhook('106540352242922', value);
const contacts = [{ profile: { name: 'Maria' }, wa_id: '551187654321' }];
const NOW = new Date('2026-01-02T03:04:05.000Z');
const T = new Date(1744344496 * 1000);

describe('verifySignature', () => {
  const body = Buffer.from('{"object":"whatsapp_business_account","entry":[]}');

  it('accepts the HMAC-SHA256 of the raw bytes', () => {
    assert.equal(verifySignature(SECRET, body, sign(body)), true);
    assert.equal(verifySignature(SECRET, body, sign(body).toUpperCase().replace('SHA256=', 'sha256=')), true);
  });

  it('refuses a signature of other bytes or another secret', () => {
    assert.equal(verifySignature(SECRET, body, sign(Buffer.from(`${body.toString()} `))), false);
    assert.equal(verifySignature(SECRET, body, sign(body, 'other-secret')), false);
    // Same JSON, re-serialized: the signature covers bytes, not meaning.
    const reserialized = Buffer.from(JSON.stringify(JSON.parse(body.toString()), null, 1));
    assert.equal(verifySignature(SECRET, reserialized, sign(body)), false);
  });

  it('refuses a missing or malformed header, and an empty secret', () => {
    const good = sign(body);
    for (const header of [
      undefined,
      '',
      'sha256=',
      good.slice('sha256='.length),
      `sha1=${good.slice(7)}`,
      `${good}00`,
      good.slice(0, -2),
      `sha256=${'z'.repeat(64)}`,
      `${good},${good}`,
    ]) {
      assert.equal(verifySignature(SECRET, body, header), false, String(header));
    }
    assert.equal(verifySignature('', body, sign(body, '')), false);
  });
});

describe('verifySubscription', () => {
  it('echoes the challenge only for subscribe with the right token', () => {
    const q = { 'hub.mode': 'subscribe', 'hub.verify_token': 'tok', 'hub.challenge': '1158201444' };
    assert.equal(verifySubscription(q, 'tok'), '1158201444');
    assert.equal(verifySubscription({ ...q, 'hub.verify_token': 'tok2' }, 'tok'), null);
    assert.equal(verifySubscription({ ...q, 'hub.mode': 'unsubscribe' }, 'tok'), null);
    assert.equal(verifySubscription({ 'hub.mode': 'subscribe', 'hub.verify_token': 'tok' }, 'tok'), null);
    assert.equal(verifySubscription(q, undefined), null);
  });
});

describe('parseWebhook', () => {
  it('reads a text message with the sender name', () => {
    const raw = {
      from: '551187654321',
      id: 'wamid.A',
      timestamp: '1744344496',
      type: 'text',
      text: { body: 'Oi' },
    };
    assert.deepEqual(parseWebhook(webhook({ contacts, messages: [raw] }), NOW), {
      messages: [
        {
          providerMessageId: 'wamid.A',
          from: '551187654321',
          userId: null,
          name: 'Maria',
          timestamp: T,
          type: 'text',
          text: 'Oi',
          raw,
        },
      ],
      statuses: [],
      errors: [],
      skipped: [],
    });
  });

  it('reads media with caption, file name and hash', () => {
    const image = {
      from: '551187654321',
      id: 'wamid.I',
      timestamp: '1744344496',
      type: 'image',
      image: { id: '1479537139650973', mime_type: 'image/jpeg', sha256: 'abc=', caption: 'Olha' },
    };
    const document = {
      from: '551187654321',
      id: 'wamid.D',
      timestamp: '1744344496',
      type: 'document',
      document: { id: '2', mime_type: 'application/pdf', sha256: 'def=', filename: 'nota.pdf' },
    };
    const audio = {
      from: '551187654321',
      id: 'wamid.V',
      timestamp: '1744344496',
      type: 'audio',
      audio: { id: '3', mime_type: 'audio/ogg; codecs=opus', sha256: 'ghi=', voice: true },
    };
    const base = { from: '551187654321', userId: null, name: 'Maria', timestamp: T };
    assert.deepEqual(parseWebhook(webhook({ contacts, messages: [image, document, audio] }), NOW), {
      messages: [
        {
          ...base,
          providerMessageId: 'wamid.I',
          type: 'image',
          text: 'Olha',
          media: { id: '1479537139650973', mimetype: 'image/jpeg', sha256: 'abc=', caption: 'Olha' },
          raw: image,
        },
        {
          ...base,
          providerMessageId: 'wamid.D',
          type: 'document',
          text: null,
          media: { id: '2', mimetype: 'application/pdf', sha256: 'def=', filename: 'nota.pdf' },
          raw: document,
        },
        {
          ...base,
          providerMessageId: 'wamid.V',
          type: 'audio',
          text: null,
          media: { id: '3', mimetype: 'audio/ogg; codecs=opus', sha256: 'ghi=', voice: true },
          raw: audio,
        },
      ],
      statuses: [],
      errors: [],
      skipped: [],
    });
  });

  it('summarizes location, contacts, interactive, button, reaction and system messages as text', () => {
    const msg = (id: string, type: string, extra: Record<string, unknown>) => ({
      from: '551187654321',
      id,
      timestamp: '1744344496',
      type,
      ...extra,
    });
    const raws = [
      msg('1', 'location', {
        location: { latitude: -23.55, longitude: -46.63, name: 'Loja', address: 'Rua A, 1' },
      }),
      msg('2', 'contacts', {
        contacts: [
          {
            name: { formatted_name: 'João' },
            phones: [{ phone: '+55 11 91234-5678', wa_id: '5511912345678' }],
          },
        ],
      }),
      msg('3', 'interactive', {
        interactive: { type: 'button_reply', button_reply: { id: 'yes', title: 'Sim' } },
      }),
      msg('4', 'interactive', {
        interactive: { type: 'list_reply', list_reply: { id: 'r1', title: 'Segunda' } },
      }),
      msg('5', 'button', { button: { payload: 'CONFIRM', text: 'Confirmar' } }),
      msg('6', 'reaction', { reaction: { message_id: 'wamid.X', emoji: '👍' } }),
      msg('7', 'reaction', { reaction: { message_id: 'wamid.X' } }),
      msg('8', 'system', { system: { body: 'Maria changed her number', type: 'user_changed_number' } }),
    ];
    const texts = [
      '[location] Loja, Rua A, 1 (-23.55, -46.63)',
      '[contacts] João (+55 11 91234-5678)',
      'Sim',
      'Segunda',
      'Confirmar',
      '👍',
      null,
      'Maria changed her number',
    ];
    const parsed = parseWebhook(webhook({ contacts, messages: raws }), NOW);
    assert.deepEqual(
      parsed.messages.map((m) => [m.providerMessageId, m.type, m.text]),
      raws.map((raw, i) => [raw.id, raw.type, texts[i]]),
    );
    // Besides the text, each keeps its fields (the end-to-end shapes: whatsapp-inbound-types).
    assert.deepEqual(parsed.messages[2]!.interactive, { kind: 'button_reply', id: 'yes', title: 'Sim' });
    assert.deepEqual(parsed.messages[4]!.button, { text: 'Confirmar', payload: 'CONFIRM' });
    assert.deepEqual(parsed.messages[5]!.reaction, { providerMessageId: 'wamid.X', emoji: '👍' });
    assert.deepEqual(parsed.messages[6]!.reaction, { providerMessageId: 'wamid.X', emoji: null });
    assert.deepEqual(parsed.messages[7]!.system, {
      kind: 'user_changed_number',
      body: 'Maria changed her number',
    });
  });

  it('reads statuses, with the first error of a failure and its details apart', () => {
    const body = webhook({
      statuses: [
        { id: 'wamid.S', status: 'delivered', timestamp: '1744344496', recipient_id: '5511987654321' },
        {
          id: 'wamid.F',
          status: 'failed',
          timestamp: '1744344497',
          recipient_id: '5511987654321',
          errors: [
            {
              code: 131049,
              title: 'This message was not delivered to maintain healthy ecosystem engagement.',
              message: 'This message was not delivered to maintain healthy ecosystem engagement.',
              error_data: {
                details: 'In order to maintain a healthy ecosystem engagement, the message failed.',
              },
            },
          ],
        },
        { id: 'wamid.W', status: 'warning', timestamp: '1744344497' },
      ],
    });
    assert.deepEqual(parseWebhook(body, NOW), {
      messages: [],
      errors: [],
      skipped: [],
      statuses: [
        {
          providerMessageId: 'wamid.S',
          status: 'delivered',
          timestamp: T,
          recipient: '5511987654321',
          error: null,
        },
        {
          providerMessageId: 'wamid.F',
          status: 'failed',
          timestamp: new Date(1744344497 * 1000),
          recipient: '5511987654321',
          error: {
            code: '131049',
            message: 'This message was not delivered to maintain healthy ecosystem engagement.',
            details: 'In order to maintain a healthy ecosystem engagement, the message failed.',
          },
          // Every error, as given, with the status's other details.
          details: {
            errors: [
              {
                code: '131049',
                title: 'This message was not delivered to maintain healthy ecosystem engagement.',
                message: 'This message was not delivered to maintain healthy ecosystem engagement.',
                details: 'In order to maintain a healthy ecosystem engagement, the message failed.',
              },
            ],
          },
        },
      ],
    });
  });

  it('reads what a status says about cost: pricing, conversation and the callback data', () => {
    const body = webhook({
      statuses: [
        {
          id: 'wamid.P',
          status: 'sent',
          timestamp: '1744344496',
          recipient_id: '5511987654321',
          conversation: {
            id: 'CONVERSATION_ID',
            expiration_timestamp: '1744430896',
            origin: { type: 'marketing' },
          },
          pricing: { billable: true, pricing_model: 'PMP', category: 'marketing', type: 'regular' },
          biz_opaque_callback_data: 'campanha-42',
        },
        // Parts Meta leaves out, or sends as something else, are null; junk parts are no part.
        {
          id: 'wamid.Q',
          status: 'delivered',
          timestamp: '1744344496',
          conversation: { origin: 'x', expiration_timestamp: 'soon' },
          pricing: { billable: 'yes', category: 7 },
          biz_opaque_callback_data: 12,
        },
        { id: 'wamid.R', status: 'read', timestamp: '1744344496', pricing: 'free', conversation: [] },
      ],
    });
    assert.deepEqual(
      parseWebhook(body, NOW).statuses.map((s) => [s.providerMessageId, s.details]),
      [
        [
          'wamid.P',
          {
            pricing: { billable: true, pricingModel: 'PMP', category: 'marketing', type: 'regular' },
            conversation: {
              id: 'CONVERSATION_ID',
              originType: 'marketing',
              expiresAt: new Date(1744430896 * 1000).toISOString(),
            },
            callbackData: 'campanha-42',
          },
        ],
        [
          'wamid.Q',
          {
            pricing: { billable: null, pricingModel: null, category: null, type: null },
            conversation: { id: null, originType: null, expiresAt: null },
          },
        ],
        ['wamid.R', undefined],
      ],
    );
  });

  it("keeps a customer message's own errors, whatever its type", () => {
    const failedDownload = {
      from: '551187654321',
      id: 'wamid.E',
      timestamp: '1744344496',
      type: 'image',
      image: { id: '77', mime_type: 'image/jpeg' },
      errors: [
        {
          code: 131052,
          title: 'Media download error',
          message: 'Media download failed',
          error_data: { details: 'Failed to download the media from the sender.' },
        },
      ],
    };
    const [message] = parseWebhook(webhook({ contacts, messages: [failedDownload] }), NOW).messages;
    assert.deepEqual(message?.errors, [
      {
        code: '131052',
        title: 'Media download error',
        message: 'Media download failed',
        details: 'Failed to download the media from the sender.',
      },
    ]);
    assert.deepEqual(message?.media, { id: '77', mimetype: 'image/jpeg' });
  });

  it('never throws on junk and skips what it cannot read', () => {
    const empty = { messages: [], statuses: [] };
    for (const junk of [
      null,
      undefined,
      42,
      'text',
      [],
      {},
      { entry: 'x' },
      { entry: [null, 1, { changes: [null, { field: 'messages' }, { field: 'messages', value: [] }] }] },
      {
        entry: [
          {
            changes: [
              { field: 'account_update', value: { messages: [{ id: 'a', from: '1', type: 'text' }] } },
            ],
          },
        ],
      },
      webhook({
        messages: [null, 'x', { id: 'wamid.1' }, { id: 1, from: '1', type: 'text' }],
        statuses: [{ id: 'x' }, 7],
      }),
      webhook({ messages: { id: 'wamid.1' }, statuses: 'delivered', contacts: 'x' }),
    ]) {
      const { messages, statuses } = parseWebhook(junk, NOW);
      assert.deepEqual({ messages, statuses }, empty, JSON.stringify(junk));
    }
  });

  it('keeps a message whose details are odd, with what can be read', () => {
    const empty = { from: '1', id: 'wamid.U', timestamp: '1', type: 'order', order: {} };
    const odd = {
      from: '551187654321',
      id: 'wamid.O',
      timestamp: 'yesterday',
      type: 'image',
      image: 'broken',
    };
    const textless = { from: '551187654321', id: 'wamid.T', type: 'text', text: { body: 5 } };
    assert.deepEqual(
      parseWebhook(webhook({ contacts: [{ wa_id: 1 }], messages: [empty, odd, textless] }), NOW),
      {
        messages: [
          {
            providerMessageId: 'wamid.U',
            from: '1',
            userId: null,
            name: null,
            timestamp: new Date(1000),
            type: 'order',
            text: null,
            order: { catalogId: null, text: null, items: [] },
            raw: empty,
          },
          {
            providerMessageId: 'wamid.O',
            from: '551187654321',
            userId: null,
            name: null,
            timestamp: NOW,
            type: 'image',
            text: null,
            raw: odd,
          },
          {
            providerMessageId: 'wamid.T',
            from: '551187654321',
            userId: null,
            name: null,
            timestamp: NOW,
            type: 'text',
            text: null,
            raw: textless,
          },
        ],
        statuses: [],
        errors: [],
        skipped: [],
      },
    );
  });

  it('returns unreadable messages and webhook-level errors apart, for the caller to log', () => {
    const body = webhook({
      messages: [
        { id: 'wamid.N', timestamp: '1', type: 'text', text: { body: 'who?' } },
        { from: '551187654321', timestamp: '1', type: 'text' },
      ],
      errors: [{ code: 131000, title: 'Something went wrong', error_data: { details: 'Unknown error.' } }],
    });
    const parsed = parseWebhook(body, NOW);
    assert.deepEqual(parsed.messages, []);
    assert.deepEqual(parsed.skipped, [
      { providerMessageId: 'wamid.N', type: 'text', reason: 'no sender' },
      { providerMessageId: null, type: 'text', reason: 'no id or type' },
    ]);
    assert.deepEqual(parsed.errors, [
      { code: '131000', title: 'Something went wrong', message: null, details: 'Unknown error.' },
    ]);
  });

  it('reads a sender known only by a business-scoped user id', () => {
    const raw = {
      from_user_id: 'US.13491208655302741918',
      id: 'wamid.B',
      timestamp: '1744344496',
      type: 'text',
      text: { body: 'Oi' },
    };
    const parsed = parseWebhook(
      webhook({
        contacts: [{ profile: { name: 'Ana' }, user_id: 'US.13491208655302741918' }],
        messages: [raw],
      }),
      NOW,
    );
    assert.deepEqual(parsed.messages, [
      {
        providerMessageId: 'wamid.B',
        from: null,
        userId: 'US.13491208655302741918',
        name: 'Ana',
        timestamp: T,
        type: 'text',
        text: 'Oi',
        raw,
      },
    ]);
  });
});
