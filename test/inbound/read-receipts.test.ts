import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { FakeGraph, type RecordedRequest } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { createWhatsAppChannel, customerText, signedDelivery } from '../helpers/whatsapp.js';

// Read receipts: on a channel that sends them, an agent reading a chat tells WhatsApp the customer's
// latest message was read (blue ticks), through a job — reading never waits on Meta —, at most once
// per message; a refusal is recorded and not retried. Off by default.

const PHONE_NUMBER_ID = '6660001111';
const APP_SECRET = 'receipts-secret';
const MESSAGES_PATH = `/v23.0/${PHONE_NUMBER_ID}/messages`;
const CUSTOMER = '5511987651111';

describe('read receipts', () => {
  let fake: FakeGraph;
  let t: TestApp;
  let f: Fixture;
  let channelId: string;
  let chatId: string;
  let inSeq = 0;
  const admin = () => ({ authorization: `Bearer ${f.adminToken}` });
  const agent = () => ({ authorization: `Bearer ${f.agents[0]!.token}` });

  before(async () => {
    fake = await FakeGraph.start();
    t = await startTestApp({ env: { WHATSAPP_GRAPH_BASE_URL: fake.url, WHATSAPP_TIMEOUT_MS: '5000' } });
    f = await seedAccount(t.server.services);
    const created = await createWhatsAppChannel(f, { phoneNumberId: PHONE_NUMBER_ID, appSecret: APP_SECRET });
    assert.equal(created.channel.sendReadReceipts, false);
    channelId = created.id;
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  /** A customer message through a signed webhook; resolves once it is stored, with its wamid. */
  const customerWrites = async (body: string): Promise<string> => {
    const wamid = `wamid.receipt.${++inSeq}`;
    const res = await t.request(
      'POST',
      `/webhooks/whatsapp/${channelId}`,
      signedDelivery(PHONE_NUMBER_ID, APP_SECRET, customerText({ from: CUSTOMER, id: wamid, body })),
    );
    assert.equal(res.status, 200);
    for (let i = 0; i < 400; i++) {
      const row = await t.server.services.db
        .selectFrom('messages')
        .select('chat_id')
        .where('provider_message_id', '=', wamid)
        .executeTakeFirst();
      if (row) {
        chatId = row.chat_id;
        return wamid;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('inbound message not stored in time');
  };
  const read = async () => {
    const res = await t.request('POST', `/api/chats/${chatId}/read`, { headers: agent() });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.json.unreadMessages, 0);
  };
  const receipts = () =>
    t.server.services.db
      .selectFrom('read_receipts as r')
      .innerJoin('messages as m', 'm.id', 'r.message_id')
      .select(['m.provider_message_id', 'r.sent_at', 'r.error'])
      .where('r.channel_id', '=', channelId)
      .orderBy('r.queued_at')
      .execute();
  const receiptOf = async (wamid: string, done: (r: { sent_at: Date | null; error: unknown }) => boolean) => {
    for (let i = 0; i < 400; i++) {
      const r = (await receipts()).find((x) => x.provider_message_id === wamid);
      if (r && done(r)) return r;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`receipt of ${wamid} not settled in time`);
  };
  const expectReceipt = (r: RecordedRequest, wamid: string) => {
    assert.equal(r.method, 'POST');
    assert.equal(r.path, MESSAGES_PATH);
    assert.equal(r.headers.authorization, 'Bearer test-token');
    assert.deepEqual(r.json, { messaging_product: 'whatsapp', status: 'read', message_id: wamid });
  };

  it('sends nothing while the channel setting is off (the default)', async () => {
    await customerWrites('Oi');
    await read();
    // The receipt would be queued in the reading's own transaction: none was.
    assert.deepEqual(await receipts(), []);
  });

  it('once on, reading sends the latest customer message as read, once per message', async () => {
    const on = await t.request('PATCH', `/api/channels/${channelId}`, {
      headers: admin(),
      body: { sendReadReceipts: true },
    });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    assert.equal(on.json.sendReadReceipts, true);
    assert.equal(
      (await t.request('GET', `/api/channels/${channelId}`, { headers: admin() })).json.sendReadReceipts,
      true,
    );

    await customerWrites('Primeira');
    const latest = await customerWrites('Segunda');
    await read();
    expectReceipt(await fake.nextRequest(), latest);
    await receiptOf(latest, (r) => r.sent_at !== null);

    // Read again: nothing more for that message. The next request the provider sees is the receipt of
    // the next customer message, not a second one of this.
    await read();
    const next = await customerWrites('Terceira');
    await read();
    expectReceipt(await fake.nextRequest(), next);
    await receiptOf(next, (r) => r.sent_at !== null);
    assert.deepEqual((await receipts()).map((r) => r.provider_message_id).slice(-2), [latest, next]);
  });

  it('reading answers while Meta has not answered the receipt yet', async () => {
    const wamid = await customerWrites('Demora');
    const held = fake.holdNext();
    await read();
    expectReceipt(await fake.nextRequest(), wamid);
    assert.equal((await receipts()).find((r) => r.provider_message_id === wamid)?.sent_at, null);
    held.release();
    await receiptOf(wamid, (r) => r.sent_at !== null);
  });

  it('a refused receipt is recorded and not retried', async () => {
    const wamid = await customerWrites('Recusa');
    fake.failNext({ code: 100, message: 'Invalid parameter', details: 'message_id is not valid' });
    await read();
    expectReceipt(await fake.nextRequest(), wamid);
    const r = await receiptOf(wamid, (x) => x.error !== null);
    assert.deepEqual(
      [r.sent_at, r.error],
      [null, { code: '100', message: 'Invalid parameter', details: 'message_id is not valid' }],
    );
    // Not retried: the provider's next request is the next message's receipt.
    const next = await customerWrites('Depois');
    await read();
    expectReceipt(await fake.nextRequest(), next);
  });

  it('refuses a setting that is not a boolean', async () => {
    const res = await t.request('PATCH', `/api/channels/${channelId}`, {
      headers: admin(),
      body: { sendReadReceipts: 'yes' },
    });
    assert.equal(res.status, 400, JSON.stringify(res.body));
  });
});
