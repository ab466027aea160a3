import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { pino } from 'pino';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { createWhatsAppChannel, hubSignature } from '../helpers/whatsapp.js';

// One real-shaped webhook body per inbound type (test/fixtures/whatsapp), each posted signed to the
// webhook route: what is stored, what the chat list shows, and the events agents receive.

type Obj = Record<string, unknown>;
interface Envelope {
  seq: number;
  event: string;
  data: Obj;
}
interface Row {
  id: string;
  chat_id: string;
  type: string;
  content: Obj;
  provider_message_id: string | null;
}

const FIXTURE_NUMBER_ID = '106540352242922';
const TEXT_ID = 'wamid.HBgNNTUxMTk4NzY1NDMyMRUCABIYFjNFQjBDMEE0RTI5NEI4QjI4QjY4QjIA';
/** Fixture timestamps: 1764037200 (the customer's messages), 1764037260 (replies, edits, reactions). */
const SENT = new Date(1764037200 * 1000).toISOString();
const LATER = new Date(1764037260 * 1000).toISOString();

const fixture = (name: string): Obj =>
  JSON.parse(readFileSync(new URL(`../fixtures/whatsapp/${name}.json`, import.meta.url), 'utf8')) as Obj;
/** The fixture's only message, as Meta sent it. */
const rawMessage = (name: string): Obj => {
  const body = fixture(name) as { entry: { changes: { value: { messages: Obj[] } }[] }[] };
  return body.entry[0]!.changes[0]!.value.messages[0]!;
};

describe('WhatsApp inbound types', () => {
  let t: TestApp;
  let f: Fixture;
  const logged: Obj[] = [];

  before(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean)) logged.push(JSON.parse(line) as Obj);
        done();
      },
    });
    t = await startTestApp({ logger: pino({ level: 'info' }, sink) });
    f = await seedAccount(t.server.services);
  });
  after(async () => t?.close());

  const createChannel = () => createWhatsAppChannel(f);
  type Channel = Awaited<ReturnType<typeof createChannel>>;

  /** Posts the fixture, signed, to the channel's webhook and waits until the job processed it. */
  async function deliver(ch: Channel, name: string): Promise<void> {
    const raw = JSON.stringify(fixture(name)).replaceAll(FIXTURE_NUMBER_ID, ch.phoneNumberId);
    const res = await t.request('POST', `/webhooks/whatsapp/${ch.id}`, {
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(ch.appSecret, raw) },
      raw,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const deadline = Date.now() + 20_000;
    for (;;) {
      const rows = await t.server.services.db
        .selectFrom('inbound_webhook_events')
        .select('processed_at')
        .where('channel_id', '=', ch.id)
        .execute();
      if (rows.every((r) => r.processed_at !== null)) return;
      if (Date.now() > deadline) assert.fail(`${name} not processed`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  const rows = (channelId: string): Promise<Row[]> =>
    t.server.services.db
      .selectFrom('messages')
      .select(['id', 'chat_id', 'type', 'content', 'provider_message_id'])
      .where('channel_id', '=', channelId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();

  const chatView = async (id: string) => {
    const res = await t.request('GET', `/api/chats/${id}`, {
      headers: { authorization: `Bearer ${f.adminToken}` },
    });
    assert.equal(res.status, 200);
    return res.json as {
      lastMessage: { content: string; type: string };
      contact: { value: string; name: string };
    };
  };

  /** The events logged after `seq`, read back as an agent's console does on resync. */
  async function eventsAfter(seq: number): Promise<Envelope[]> {
    const res = await t.request('GET', `/api/events?after=${seq}&limit=100`, {
      headers: { authorization: `Bearer ${f.adminToken}` },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.json as { events: Envelope[] }).events;
  }
  const lastSeq = () => t.server.services.events.horizon.fresh();

  /**
   * A message's content without the outcome of its file's download (`media.status`, `size`,
   * `error`): a job of its own writes those, possibly before these tests read the row
   * (test/media/media.test.ts covers them).
   */
  const withoutDownload = (content: Obj): Obj => {
    const media = content.media as Obj | undefined;
    if (!media) return content;
    const { status: _status, size: _size, error: _error, ...rest } = media;
    return { ...content, media: rest };
  };

  /** Delivers one fixture on a fresh channel (after `first`, when given) and reads what it left. */
  async function receive(name: string, first?: string) {
    const ch = await createChannel();
    if (first) await deliver(ch, first);
    const seq = await lastSeq();
    await deliver(ch, name);
    const all = await rows(ch.id);
    const stored = all.at(-1)!;
    const events = await eventsAfter(seq);
    const upsert = events.find((e) => e.event === 'message.upsert');
    assert.ok(upsert, `no message.upsert among ${events.map((e) => e.event).join(', ')}`);
    const message = upsert.data.message as Obj;
    // The event carries the message as stored, content and all.
    assert.equal(message.id, stored.id);
    assert.equal(message.type, stored.type);
    assert.deepEqual(withoutDownload(message.content as Obj), withoutDownload(stored.content));
    return { ch, stored, all, events, view: await chatView(stored.chat_id) };
  }

  /** A simple type: stored with this content, shown with this summary. */
  const simple = (name: string, type: string, content: Obj, summary: string) =>
    it(`${name}: stored as ${type}, shown as "${summary}", event message.upsert`, async () => {
      const { stored, view, all } = await receive(name);
      assert.equal(all.length, 1);
      assert.equal(stored.type, type);
      assert.equal(stored.provider_message_id, rawMessage(name).id);
      assert.deepEqual(withoutDownload(stored.content), { ...content, sentAt: SENT });
      assert.equal(view.lastMessage.content, summary);
      assert.equal(view.lastMessage.type, type);
    });

  simple('text', 'text', { text: 'Oi, o pedido 1234 já saiu?' }, 'Oi, o pedido 1234 já saiu?');
  simple(
    'image',
    'image',
    {
      text: 'Comprovante do PIX',
      media: {
        id: '1479537139650973',
        mimetype: 'image/jpeg',
        sha256: 'uZlz7p6Lw6xJHnrm4m1l2cYQ1qk0aN3U7b4Zt0FJY4M=',
        caption: 'Comprovante do PIX',
      },
    },
    '[image] Comprovante do PIX',
  );
  simple(
    'image_download_failed',
    'image',
    {
      // Meta could not fetch the customer's file: no media to download, the reason kept.
      errors: [
        {
          code: '131052',
          title: 'Media download error',
          message: 'Media download failed',
          details: 'Failed to download the media from the sender.',
        },
      ],
    },
    '[image]',
  );
  simple(
    'video',
    'video',
    {
      text: 'Veio assim',
      media: {
        id: '1146729730316581',
        mimetype: 'video/mp4',
        sha256: 'g9T4u2Vb1x7pQ1d0Yf3Wc2Jr8mK5nL6oP7qR8sT9uVw=',
        caption: 'Veio assim',
      },
    },
    '[video] Veio assim',
  );
  simple(
    'audio',
    'audio',
    {
      media: {
        id: '1003383421387256',
        mimetype: 'audio/mpeg',
        sha256: 'Q2x5bW9udGgwZGVzY3JpcHRpb25vZmF1ZGlvZmlsZQ==',
      },
    },
    '[audio]',
  );
  simple(
    'voice',
    'audio',
    {
      media: {
        id: '1230981431416284',
        mimetype: 'audio/ogg; codecs=opus',
        sha256: 'a2V5c2hhcmVkdm9pY2Vub3RlZXhhbXBsZWhhc2g9PQ==',
        voice: true,
      },
    },
    '[voice]',
  );
  simple(
    'document',
    'document',
    {
      text: 'Segue a nota',
      media: {
        id: '1564876394253461',
        mimetype: 'application/pdf',
        sha256: 'Y2FsY3VsYXRlZGhhc2hvZnRoZWRvY3VtZW50Zm9yeW91',
        filename: 'nota-fiscal-1234.pdf',
        caption: 'Segue a nota',
      },
    },
    '[document] Segue a nota',
  );
  simple(
    'sticker',
    'sticker',
    {
      media: {
        id: '1342871270393456',
        mimetype: 'image/webp',
        sha256: 'c3RpY2tlcmhhc2hleGFtcGxlZm9ydGhlZml4dHVyZT0=',
        animated: false,
      },
    },
    '[sticker]',
  );
  simple(
    'location',
    'location',
    {
      text: '[location] MASP, Av. Paulista, 1578 - Bela Vista, São Paulo (-23.561414, -46.655881)',
      location: {
        latitude: -23.561414,
        longitude: -46.655881,
        name: 'MASP',
        address: 'Av. Paulista, 1578 - Bela Vista, São Paulo',
        url: 'https://masp.org.br',
      },
    },
    '[location] MASP, Av. Paulista, 1578 - Bela Vista, São Paulo (-23.561414, -46.655881)',
  );
  simple(
    'contacts',
    'contacts',
    {
      text: '[contacts] João Silva (+55 11 91234-5678)',
      contacts: [
        {
          name: 'João Silva',
          phones: [{ phone: '+55 11 91234-5678', waId: '5511912345678', type: 'CELL' }],
          emails: [{ email: 'joao.silva@example.com', type: 'WORK' }],
          organization: { company: 'Padaria Central', title: 'Gerente' },
        },
      ],
    },
    '[contacts] João Silva (+55 11 91234-5678)',
  );

  // Answers to our interactive and template messages name the message they answer (unknown here:
  // sent before these tests, so `messageId` is null).
  const answerTo = (id: string) => ({ providerMessageId: id, messageId: null });
  simple(
    'interactive_button_reply',
    'interactive',
    {
      text: 'Confirmar',
      context: answerTo('wamid.HBgNNTUxMTk4NzY1NDMyMRUCABEYEkJVVFRPTlNRVUVTVElPTjAwMQA='),
      interactive: { kind: 'button_reply', id: 'confirmar-entrega', title: 'Confirmar' },
    },
    'Confirmar',
  );
  simple(
    'interactive_list_reply',
    'interactive',
    {
      text: 'Manhã',
      context: answerTo('wamid.HBgNNTUxMTk4NzY1NDMyMRUCABEYEkxJU1RRVUVTVElPTjAwMDEA'),
      interactive: { kind: 'list_reply', id: 'horario-manha', title: 'Manhã', description: 'Entre 8h e 12h' },
    },
    'Manhã',
  );
  simple(
    'interactive_nfm_reply',
    'interactive',
    {
      text: 'Sent',
      context: answerTo('wamid.HBgNNTUxMTk4NzY1NDMyMRUCABEYEkZMT1dNRVNTQUdFMDAwMDEA'),
      interactive: {
        kind: 'nfm_reply',
        id: null,
        title: null,
        name: 'flow',
        body: 'Sent',
        response: {
          flow_token: 'cadastro-7781',
          nome: 'Maria Souza',
          cpf_final: '1234',
          aceita_ofertas: true,
        },
      },
    },
    'Sent',
  );
  simple(
    'button',
    'button',
    {
      text: 'Rastrear pedido',
      context: answerTo('wamid.HBgNNTUxMTk4NzY1NDMyMRUCABEYElRFTVBMQVRFTUVTU0FHRTAxAA=='),
      button: { text: 'Rastrear pedido', payload: 'RASTREAR_PEDIDO' },
    },
    'Rastrear pedido',
  );
  simple(
    'order',
    'order',
    {
      text: 'Pode entregar à tarde?',
      order: {
        catalogId: '1543257606274452',
        text: 'Pode entregar à tarde?',
        items: [
          { productRetailerId: 'bolo-cenoura', quantity: 2, itemPrice: 45.5, currency: 'BRL' },
          { productRetailerId: 'cafe-500g', quantity: 1, itemPrice: 29.9, currency: 'BRL' },
        ],
      },
    },
    '[order] 3 items, 120.90 BRL Pode entregar à tarde?',
  );
  simple(
    'referral',
    'text',
    {
      text: 'Olá! Quero saber mais sobre a promoção.',
      referral: {
        sourceType: 'ad',
        sourceId: '120211234567890123',
        sourceUrl: 'https://fb.me/3Ab1cD2eF',
        headline: 'Bolo de cenoura em dobro',
        body: 'Só nesta semana: compre um, leve dois.',
        mediaType: 'image',
        mediaUrl: 'https://scontent.xx.fbcdn.net/v/t45.1600-4/ad-image.jpg',
        ctwaClid:
          'ARAkLkA8rmlFeiCktEJQ-QTwRiyYHAFDLMNDBH0CD3qpjd0HR4irJ6LEkR7JwFF4XvnO2E4Nx0-eM-GABDLOPaOdRMv-_zfUQ2a',
      },
    },
    'Olá! Quero saber mais sobre a promoção.',
  );

  it('unsupported: stored as unsupported with its errors and raw JSON, shown with a label, logged', async () => {
    const { stored, view } = await receive('unsupported');
    assert.equal(stored.type, 'unsupported');
    const errors = [
      {
        code: '131051',
        title: 'Message type unknown',
        message: 'Message type unknown',
        details: 'Message type is currently not supported.',
      },
    ];
    assert.deepEqual(stored.content, {
      errors,
      unsupported: { type: 'poll_creation', errors },
      raw: rawMessage('unsupported'),
      sentAt: SENT,
    });
    assert.equal(view.lastMessage.content, '[unsupported: poll_creation]');
    assert.ok(logged.some((l) => l.msg === 'unsupported inbound message kept'));
  });

  it('a type the platform does not know: kept as unsupported under its own name, raw JSON bounded', async () => {
    const ch = await createChannel();
    const seq = await lastSeq();
    const body = fixture('text') as { entry: { changes: { value: { messages: Obj[] } }[] }[] };
    const small = {
      from: '5511987654321',
      id: 'wamid.hologram.1',
      timestamp: '1764037200',
      type: 'hologram',
      hologram: { depth: 3 },
    };
    const huge = { ...small, id: 'wamid.hologram.2', hologram: { blob: 'x'.repeat(20_000) } };
    body.entry[0]!.changes[0]!.value.messages = [small, huge];
    const raw = JSON.stringify(body).replaceAll(FIXTURE_NUMBER_ID, ch.phoneNumberId);
    const res = await t.request('POST', `/webhooks/whatsapp/${ch.id}`, {
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(ch.appSecret, raw) },
      raw,
    });
    assert.equal(res.status, 200);
    for (let i = 0; (await rows(ch.id)).length < 2; i++) {
      if (i > 1000) assert.fail('not stored');
      await new Promise((r) => setTimeout(r, 20));
    }
    const [a, b] = await rows(ch.id);
    assert.deepEqual(a!.content, { unsupported: { type: 'hologram', errors: [] }, raw: small, sentAt: SENT });
    assert.equal(b!.type, 'unsupported');
    assert.equal(b!.content.raw, undefined);
    assert.equal(typeof b!.content.rawOmitted, 'number');
    assert.equal((await chatView(b!.chat_id)).lastMessage.content, '[unsupported: hologram]');
    const upserts = (await eventsAfter(seq)).filter((e) => e.event === 'message.upsert');
    assert.equal(upserts.length, 2);
  });

  it('context_reply: the quoted message resolved to ours, on the reply and its event', async () => {
    const { stored, all, view } = await receive('context_reply', 'text');
    const [original] = all;
    assert.equal(stored.type, 'text');
    assert.deepEqual(stored.content, {
      text: 'Esse mesmo, obrigado!',
      context: { providerMessageId: TEXT_ID, messageId: original!.id },
      sentAt: LATER,
    });
    assert.equal(view.lastMessage.content, 'Esse mesmo, obrigado!');
  });

  it('reaction: kept as a message and attached to the message it names, with message.update', async () => {
    const { stored, all, view, events, ch } = await receive('reaction', 'text');
    const [original] = all;
    assert.equal(stored.type, 'reaction');
    assert.deepEqual(stored.content, {
      reaction: { providerMessageId: TEXT_ID, messageId: original!.id, emoji: '👍' },
      sentAt: LATER,
    });
    assert.equal(view.lastMessage.content, '[reaction] 👍');
    const target = (await rows(ch.id)).find((r) => r.id === original!.id)!;
    assert.deepEqual(target.content.reaction, { emoji: '👍', at: LATER, messageId: stored.id });
    const update = events.find((e) => e.event === 'message.update');
    assert.ok(update, 'no message.update of the target');
    assert.equal((update.data.message as Obj).id, original!.id);
    assert.deepEqual(((update.data.message as Obj).content as Obj).reaction, target.content.reaction);
  });

  it('edit: the original takes the new text and keeps the previous one, with message.update', async () => {
    const { stored, all, view, events, ch } = await receive('edit', 'text');
    const [original] = all;
    assert.equal(stored.type, 'edit');
    assert.deepEqual(stored.content, {
      text: 'Oi, o pedido 1235 já saiu?',
      edit: { providerMessageId: TEXT_ID, messageId: original!.id },
      sentAt: LATER,
    });
    assert.equal(view.lastMessage.content, '[edited] Oi, o pedido 1235 já saiu?');
    const target = (await rows(ch.id))[0]!;
    assert.deepEqual(target.content, {
      text: 'Oi, o pedido 1235 já saiu?',
      sentAt: SENT,
      edits: [{ text: 'Oi, o pedido 1234 já saiu?', at: SENT }],
      editedAt: LATER,
    });
    const update = events.find((e) => e.event === 'message.update');
    assert.deepEqual((update?.data.message as Obj | undefined)?.content, target.content);

    // A redelivery of the edit changes nothing twice.
    await deliver(ch, 'edit');
    assert.deepEqual(
      (await rows(ch.id)).map((r) => r.content),
      [target.content, stored.content],
    );
  });

  it('edit of a message never stored: kept on its own with its text, and logged', async () => {
    const { stored, all } = await receive('edit');
    assert.equal(all.length, 1);
    assert.deepEqual(stored.content, {
      text: 'Oi, o pedido 1235 já saiu?',
      edit: { providerMessageId: TEXT_ID, messageId: null },
      sentAt: LATER,
    });
    assert.ok(logged.some((l) => l.target === TEXT_ID && l.action === 'edit' && l.level === 40));
  });

  it('revoke: the original is marked deleted (text kept for agents), with message.update', async () => {
    const { stored, all, view, events, ch } = await receive('revoke', 'text');
    const [original] = all;
    assert.equal(stored.type, 'revoke');
    assert.deepEqual(stored.content, {
      revoke: { providerMessageId: TEXT_ID, messageId: original!.id },
      sentAt: LATER,
    });
    assert.equal(view.lastMessage.content, '[deleted]');
    const target = (await rows(ch.id))[0]!;
    assert.deepEqual(target.content, { text: 'Oi, o pedido 1234 já saiu?', sentAt: SENT, revokedAt: LATER });
    const update = events.find((e) => e.event === 'message.update');
    assert.deepEqual((update?.data.message as Obj | undefined)?.content, target.content);
  });

  it('system user_changed_number: a visible message, the contact and replies follow the new number', async () => {
    const { stored, all, view, ch } = await receive('system_user_changed_number', 'text');
    assert.equal(stored.type, 'system');
    assert.equal(stored.chat_id, all[0]!.chat_id, 'the notice lands in the conversation of the old number');
    assert.deepEqual(stored.content, {
      text: 'Maria Souza changed from 5511987654321 to 5511976543210',
      system: {
        kind: 'user_changed_number',
        body: 'Maria Souza changed from 5511987654321 to 5511976543210',
        newAddress: '5511976543210',
      },
      sentAt: SENT,
    });
    assert.equal(view.lastMessage.content, 'Maria Souza changed from 5511987654321 to 5511976543210');
    assert.equal(view.contact.value, '5511976543210');
    const contact = await t.server.services.db
      .selectFrom('contacts')
      .select(['value', 'provider_address', 'name'])
      .where('channel_id', '=', ch.id)
      .execute();
    assert.deepEqual(contact, [
      { value: '5511976543210', provider_address: '5511976543210', name: 'Maria Souza' },
    ]);

    // The customer's next message, from the new number, continues the same conversation.
    const next = JSON.stringify(fixture('text'))
      .replaceAll('5511987654321', '5511976543210')
      .replace(TEXT_ID, 'wamid.after.change');
    const raw = next.replaceAll(FIXTURE_NUMBER_ID, ch.phoneNumberId);
    const res = await t.request('POST', `/webhooks/whatsapp/${ch.id}`, {
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(ch.appSecret, raw) },
      raw,
    });
    assert.equal(res.status, 200);
    for (let i = 0; (await rows(ch.id)).length < 3; i++) {
      if (i > 1000) assert.fail('not stored');
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(new Set((await rows(ch.id)).map((r) => r.chat_id)).size, 1);
  });

  it('a number change to a number another contact has: both kept, replies go to the new number, logged', async () => {
    const ch = await createChannel();
    await deliver(ch, 'text');
    // The new number already wrote on this channel, as another contact.
    const other = (name: string) =>
      name.replaceAll('5511987654321', '5511976543210').replace(TEXT_ID, 'wamid.from.new.number');
    const raw = other(JSON.stringify(fixture('text'))).replaceAll(FIXTURE_NUMBER_ID, ch.phoneNumberId);
    const res = await t.request('POST', `/webhooks/whatsapp/${ch.id}`, {
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(ch.appSecret, raw) },
      raw,
    });
    assert.equal(res.status, 200);
    await deliver(ch, 'system_user_changed_number');
    const contacts = await t.server.services.db
      .selectFrom('contacts')
      .select(['value', 'provider_address'])
      .where('channel_id', '=', ch.id)
      .orderBy('created_at')
      .execute();
    assert.deepEqual(contacts, [
      { value: '5511987654321', provider_address: '5511976543210' },
      { value: '5511976543210', provider_address: '5511976543210' },
    ]);
    assert.ok(
      logged.some(
        (l) => l.level === 40 && l.channelId === ch.id && /another contact has/.test(String(l.msg)),
      ),
    );
  });

  it('a reaction taken back clears it from its target; an older one arriving late does not replace a newer one', async () => {
    const ch = await createChannel();
    await deliver(ch, 'text');
    const send = async (id: string, timestamp: string, emoji: string | null) => {
      const body = fixture('reaction') as { entry: { changes: { value: { messages: Obj[] } }[] }[] };
      const m = body.entry[0]!.changes[0]!.value.messages[0]!;
      m.id = id;
      m.timestamp = timestamp;
      m.reaction = { message_id: TEXT_ID, ...(emoji ? { emoji } : {}) };
      const raw = JSON.stringify(body).replaceAll(FIXTURE_NUMBER_ID, ch.phoneNumberId);
      const res = await t.request('POST', `/webhooks/whatsapp/${ch.id}`, {
        headers: {
          'content-type': 'application/json',
          'x-hub-signature-256': hubSignature(ch.appSecret, raw),
        },
        raw,
      });
      assert.equal(res.status, 200);
      const deadline = Date.now() + 20_000;
      while (!(await rows(ch.id)).some((r) => r.provider_message_id === id)) {
        if (Date.now() > deadline) assert.fail(`${id} not stored`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const target = async () => (await rows(ch.id))[0]!.content.reaction;
    await send('wamid.r.2', '1764037300', '❤️');
    await send('wamid.r.1', '1764037260', '👍');
    assert.equal(((await target()) as Obj).emoji, '❤️', 'the later reaction stays');
    await send('wamid.r.3', '1764037400', null);
    assert.equal(await target(), undefined);
    const summaries = (await rows(ch.id)).map((r) => r.type);
    assert.deepEqual(summaries, ['text', 'reaction', 'reaction', 'reaction']);
  });

  it('bsuid_sender: a customer with only a business-scoped user id gets a user_id contact', async () => {
    const { stored, view, ch } = await receive('bsuid_sender');
    assert.equal(stored.type, 'text');
    assert.deepEqual(stored.content, { text: 'Oi, vi o anúncio de vocês', sentAt: SENT });
    assert.equal(view.lastMessage.content, 'Oi, vi o anúncio de vocês');
    assert.equal(view.contact.value, 'BR.1502576394655843');
    assert.equal(view.contact.name, 'Ana');
    const contact = await t.server.services.db
      .selectFrom('contacts')
      .select(['type', 'value', 'provider_address'])
      .where('channel_id', '=', ch.id)
      .execute();
    assert.deepEqual(contact, [
      { type: 'user_id', value: 'BR.1502576394655843', provider_address: 'BR.1502576394655843' },
    ]);
  });

  it('value_errors: nothing stored, no event, the error logged at warn', async () => {
    const ch = await createChannel();
    const seq = await lastSeq();
    await deliver(ch, 'value_errors');
    assert.deepEqual(await rows(ch.id), []);
    assert.deepEqual(
      (await eventsAfter(seq)).filter((e) => e.event.startsWith('message.') || e.event.startsWith('chat.')),
      [],
    );
    const warning = logged.find(
      (l) => l.msg === 'webhook carried an error from the provider' && l.channelId === ch.id,
    );
    assert.ok(warning, 'the webhook error was not logged');
    assert.equal(warning.level, 40);
    assert.deepEqual(warning.error, {
      code: '131000',
      title: 'Something went wrong',
      message: 'Something went wrong',
      details: 'Message failed to send because of an unknown error.',
    });
  });
});
