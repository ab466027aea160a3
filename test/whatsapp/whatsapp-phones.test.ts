import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { FakeGraph } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import {
  createWhatsAppChannel,
  customerText,
  deliveriesProcessed,
  signedDelivery,
  type WhatsAppChannel,
} from '../helpers/whatsapp.js';

// A customer is who Meta says: every wa_id is a full international number, taken as given (only a
// Brazilian mobile without its ninth digit is the same customer as with it). Customers of different
// countries never share a contact, a chat, a name or a reply address.

let seq = 0;
const wamid = () => `wamid.phones.${Date.now().toString(36)}.${(seq++).toString(36)}`;

const textMessage = (from: string, body: string, name: string) =>
  customerText({ from, id: wamid(), body, name });

interface ChatView {
  id: string;
  contact: { id: string; name: string; value: string };
  unreadMessages: number;
}

describe('WhatsApp customers of different countries', () => {
  let t: TestApp;
  let f: Fixture;
  let graph: FakeGraph;
  const agent = () => ({ authorization: `Bearer ${f.agents[0]!.token}` });

  before(async () => {
    graph = await FakeGraph.start();
    t = await startTestApp({ env: { WHATSAPP_GRAPH_BASE_URL: graph.url } });
    f = await seedAccount(t.server.services);
  });
  after(async () => {
    await t?.close();
    await graph?.close();
  });

  /** Posts a signed delivery, expects 200 and waits (bounded) until the job has processed it. */
  async function deliver(ch: WhatsAppChannel, value: Record<string, unknown>): Promise<void> {
    const res = await t.request(
      'POST',
      `/webhooks/whatsapp/${ch.id}`,
      signedDelivery(ch.phoneNumberId, ch.appSecret, value),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const processed = await deliveriesProcessed(t.server.services.db, ch.id, { tries: 1_000, everyMs: 20 });
    assert.ok(processed, 'the delivery was not processed');
  }

  const chatsOf = (channelId: string) =>
    t.server.services.db
      .selectFrom('chats')
      .select(['id', 'contact_id', 'status'])
      .where('channel_id', '=', channelId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();

  const contactsOf = (channelId: string) =>
    t.server.services.db
      .selectFrom('contacts')
      .select(['id', 'value', 'name', 'provider_address'])
      .where('channel_id', '=', channelId)
      .orderBy('value')
      .execute();

  const chatView = async (id: string): Promise<ChatView> => {
    const res = await t.request('GET', `/api/chats/${id}`, { headers: agent() });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as ChatView;
  };

  /** The agent captures the chat and replies; answers the `to` of the send the fake Graph received. */
  async function reply(chatId: string, text: string, capture = true): Promise<string> {
    if (capture) {
      const captured = await t.request('POST', `/api/chats/${chatId}/capture`, { headers: agent() });
      assert.equal(captured.status, 200, JSON.stringify(captured.body));
    }
    const sent = await t.request('POST', `/api/chats/${chatId}/messages`, {
      headers: agent(),
      body: { text },
    });
    assert.equal(sent.status, 201, JSON.stringify(sent.body));
    const request = await graph.nextRequest();
    const body = request.json as { to: string; text: { body: string } };
    assert.equal(body.text.body, text);
    return body.to;
  }

  it('keeps a Singapore customer and a Brazilian one of area 65 apart: contacts, chats, names, replies', async () => {
    const ch = await createWhatsAppChannel(f);
    await deliver(ch, textMessage('6591234567', 'Hello from Singapore', 'Wei Ling'));
    await deliver(ch, textMessage('5565991234567', 'Oi, de Cuiabá', 'Joana'));

    const chats = await chatsOf(ch.id);
    assert.equal(chats.length, 2, 'two conversations');
    assert.deepEqual(await contactsOf(ch.id), [
      { id: chats[1]!.contact_id, value: '5565991234567', name: 'Joana', provider_address: '5565991234567' },
      { id: chats[0]!.contact_id, value: '6591234567', name: 'Wei Ling', provider_address: '6591234567' },
    ]);
    const singapore = await chatView(chats[0]!.id);
    const brazil = await chatView(chats[1]!.id);
    assert.deepEqual(
      [singapore.contact, singapore.unreadMessages],
      [{ id: chats[0]!.contact_id, name: 'Wei Ling', value: '6591234567' }, 1],
    );
    assert.deepEqual(
      [brazil.contact, brazil.unreadMessages],
      [{ id: chats[1]!.contact_id, name: 'Joana', value: '5565991234567' }, 1],
    );

    // Each reply reaches its own customer, in any order.
    assert.equal(await reply(brazil.id, 'Olá Joana'), '+5565991234567');
    assert.equal(await reply(singapore.id, 'Hi Wei Ling'), '+6591234567');

    // The Brazilian customer's account from before the ninth digit is still the same customer...
    await deliver(ch, textMessage('556591234567', 'Sou eu de novo', 'Joana S.'));
    assert.equal((await chatsOf(ch.id)).length, 2);
    assert.deepEqual((await chatView(brazil.id)).contact, {
      id: brazil.contact.id,
      name: 'Joana S.',
      value: '5565991234567',
    });
    // ...and is answered at the address Meta last gave; Singapore's name and address are untouched.
    assert.equal(await reply(brazil.id, 'Recebido', false), '+556591234567');
    assert.equal(await reply(singapore.id, 'Still here', false), '+6591234567');
    assert.deepEqual((await chatView(singapore.id)).contact, singapore.contact);
  });

  it('shows a wa_id of a country the phone metadata does not know as given', async () => {
    const ch = await createWhatsAppChannel(f);
    await deliver(ch, textMessage('2423423243', 'Mbote', 'Jean'));
    const [chat] = await chatsOf(ch.id);
    assert.ok(chat);
    assert.deepEqual((await chatView(chat.id)).contact, {
      id: chat.contact_id,
      name: 'Jean',
      value: '2423423243',
    });
    assert.equal(await reply(chat.id, 'Bonjour Jean'), '+2423423243');
  });

  it('sends a Channel API contact.value written without + to the country it names', async () => {
    const ch = await createWhatsAppChannel(f, { withApiKey: true });
    await deliver(ch, textMessage('6591234567', 'Hello', 'Wei Ling'));
    const [chat] = await chatsOf(ch.id);
    assert.ok(chat);
    const res = await t.request('POST', '/channel-api/messages/send', {
      headers: { 'x-channel-api-key': ch.apiKey },
      body: {
        contact: { value: '6591234567' },
        message: { type: 'text', text: { value: 'Your order shipped' } },
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const request = await graph.nextRequest();
    assert.equal((request.json as { to: string }).to, '+6591234567');
    // The same customer, the same conversation: no Brazilian contact appeared.
    assert.deepEqual(
      (await contactsOf(ch.id)).map((c) => c.value),
      ['6591234567'],
    );
    // Delivered into the customer's open conversation (bounded wait for the worker's outcome).
    let log: Record<string, unknown> = {};
    for (let i = 0; i < 400 && log.status !== 'sent'; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 25));
      log = (
        await t.request('GET', `/channel-api/messages/requests/${res.json.requestId as string}`, {
          headers: { 'x-channel-api-key': ch.apiKey },
        })
      ).json;
    }
    assert.equal(log.status, 'sent', JSON.stringify(log));
    assert.deepEqual(log.contact, { type: 'phone', value: '6591234567', name: null });
    const stored = await t.server.services.db
      .selectFrom('request_logs')
      .select('chat_id')
      .where('request_id', '=', res.json.requestId as string)
      .executeTakeFirstOrThrow();
    assert.equal(stored.chat_id, chat.id);
  });
});

describe('ATENDE_PHONE_DEFAULT_COUNTRY', () => {
  it('is a two-letter country, BR unless set, or none', () => {
    assert.equal(loadConfig({}).phoneDefaultCountry, 'BR');
    assert.equal(loadConfig({ ATENDE_PHONE_DEFAULT_COUNTRY: 'pt' }).phoneDefaultCountry, 'PT');
    assert.equal(loadConfig({ ATENDE_PHONE_DEFAULT_COUNTRY: 'none' }).phoneDefaultCountry, null);
    for (const bad of ['XX', 'Brazil', '55']) {
      assert.throws(
        () => loadConfig({ ATENDE_PHONE_DEFAULT_COUNTRY: bad }),
        (err: unknown) =>
          err instanceof ConfigError &&
          err.problems.includes(
            `ATENDE_PHONE_DEFAULT_COUNTRY must be a two-letter country code such as BR, or none (got "${bad.toUpperCase()}")`,
          ),
        bad,
      );
    }
  });

  for (const [setting, national] of [
    [undefined, { status: 201, value: '5511987654321' }],
    ['none', { status: 400, value: null }],
  ] as const) {
    it(`reads a Channel API number without country code ${setting ? `only when set (${setting})` : 'as Brazilian by default'}`, async () => {
      const app = await startTestApp(setting ? { env: { ATENDE_PHONE_DEFAULT_COUNTRY: setting } } : {});
      try {
        const fx = await seedAccount(app.server.services);
        const { apiKey } = await app.server.services.channels.rotateApiKey(fx.admin, fx.channels[0]!.id);
        const send = (value: string) =>
          app.request('POST', '/channel-api/messages/send', {
            headers: { 'x-channel-api-key': apiKey },
            body: { contact: { value }, message: { type: 'text', text: { value: 'Olá' } } },
          });
        const contactOf = async (requestId: string) =>
          (
            await app.server.services.db
              .selectFrom('request_logs')
              .select('contact')
              .where('request_id', '=', requestId)
              .executeTakeFirstOrThrow()
          ).contact.value;
        // With its country code, any number is read alike whatever the setting.
        for (const [value, stored] of [
          ['+55 11 98765-4321', '5511987654321'],
          ['6591234567', '6591234567'],
        ] as const) {
          const res = await send(value);
          assert.equal(res.status, 201, JSON.stringify(res.body));
          assert.equal(await contactOf(res.json.requestId as string), stored);
        }
        const res = await send('(11) 98765-4321');
        assert.equal(res.status, national.status, JSON.stringify(res.body));
        if (national.value) assert.equal(await contactOf(res.json.requestId as string), national.value);
        else
          assert.deepEqual(res.body, {
            statusCode: 400,
            message: ['contact.value must be a valid phone number'],
            error: 'Bad Request',
          });
      } finally {
        await app.close();
      }
    });
  }
});
