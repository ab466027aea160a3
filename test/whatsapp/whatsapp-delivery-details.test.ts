import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { FakeGraph } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { connect, type GatewayClient } from '../helpers/gateway.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import {
  createWhatsAppChannel,
  deliveriesProcessed,
  signedDelivery,
  statusUpdate,
} from '../helpers/whatsapp.js';

// What Meta says with a delivery status besides the status — pricing, conversation, the sender's
// callback data, every error — posted as signed status webhooks for messages sent through the
// Channel API: kept with the message and its status history, shown on the message, the request log,
// the gateway's `message.update` and the outgoing webhook, and never lost or rolled back by statuses
// that arrive late, repeat, or come before the message was stored.

const PHONE_NUMBER_ID = '5550002222';
const APP_SECRET = 'delivery-app-secret';
/** Meta's timestamps are Unix seconds; statuses below are placed around this one. */
const T0 = 1744344500;

type Obj = Record<string, unknown>;

const MARKETING = {
  pricing: { billable: true, pricing_model: 'CBP', category: 'marketing', type: 'regular' },
  conversation: { id: 'CONV-M', expiration_timestamp: String(T0 + 86400), origin: { type: 'marketing' } },
};
/** MARKETING as the API shows it. */
const MARKETING_SHOWN = {
  pricing: { billable: true, pricingModel: 'CBP', category: 'marketing', type: 'regular' },
  conversation: {
    id: 'CONV-M',
    originType: 'marketing',
    expiresAt: new Date((T0 + 86400) * 1000).toISOString(),
  },
};
const UTILITY = {
  pricing: { billable: false, pricing_model: 'PMP', category: 'utility', type: 'free_customer_service' },
  conversation: { id: 'CONV-U', origin: { type: 'utility' } },
};
const UTILITY_SHOWN = {
  pricing: { billable: false, pricingModel: 'PMP', category: 'utility', type: 'free_customer_service' },
  conversation: { id: 'CONV-U', originType: 'utility', expiresAt: null },
};
const SPAM_FAILURE = {
  code: 131049,
  title: 'This message was not delivered to maintain healthy ecosystem engagement.',
  message: 'This message was not delivered to maintain healthy ecosystem engagement.',
  error_data: { details: 'In order to maintain a healthy ecosystem engagement, the message failed.' },
};
const SECOND_ERROR = { code: 131026, title: 'Message undeliverable' };

let phoneSeq = 0;
const phone = () => `55119866${String(++phoneSeq).padStart(5, '0')}`;

describe('what Meta says about cost and failure', () => {
  let fake: FakeGraph;
  let t: TestApp;
  let f: Fixture;
  let channelId: string;
  let key: string;
  let receiver: WebhookReceiver;
  let gw: GatewayClient;
  const admin = () => ({ authorization: `Bearer ${f.adminToken}` });

  before(async () => {
    fake = await FakeGraph.start();
    receiver = await startReceiver();
    t = await startTestApp({
      env: {
        WHATSAPP_GRAPH_BASE_URL: fake.url,
        WHATSAPP_TIMEOUT_MS: '5000',
        ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      },
    });
    f = await seedAccount(t.server.services);
    const channel = await createWhatsAppChannel(f, {
      phoneNumberId: PHONE_NUMBER_ID,
      appSecret: APP_SECRET,
      withApiKey: true,
    });
    channelId = channel.id;
    key = channel.apiKey;
    const hook = await t.request('POST', '/api/webhooks', {
      headers: admin(),
      body: { url: `${receiver.url}/hook`, events: ['message.update'] },
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
    gw = await connect(t.gatewayUrl!, { token: f.adminToken });
  });
  after(async () => {
    gw?.close();
    await t?.close();
    await fake?.close();
    await receiver?.close();
  });

  const accept = async (to: string) => {
    const res = await t.request('POST', '/channel-api/messages/send', {
      headers: { 'x-channel-api-key': key },
      body: {
        contact: { value: to },
        message: { type: 'text', text: { value: 'Promoção!' } },
        flowId: 'cost',
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.json.requestId as string;
  };
  const requestLog = async (requestId: string) => {
    const res = await t.request('GET', `/channel-api/messages/requests/${requestId}`, {
      headers: { 'x-channel-api-key': key },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.json;
  };
  /** Polls the request log until the worker settled it (it runs in the background). */
  const settled = async (requestId: string) => {
    for (let i = 0; i < 600; i++) {
      const log = await requestLog(requestId);
      if (log.status === 'sent' || log.status === 'failed')
        return log as Obj & { messageId: string; providerMessageId: string };
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`request ${requestId} not settled in time`);
  };
  /** Sends a message and waits until it is stored as sent, with its chat. */
  const sent = async () => {
    const requestId = await accept(phone());
    await fake.nextRequest();
    const log = await settled(requestId);
    const { chat_id: chatId } = await t.server.services.db
      .selectFrom('messages')
      .select('chat_id')
      .where('id', '=', log.messageId)
      .executeTakeFirstOrThrow();
    return { requestId, messageId: log.messageId, wamid: log.providerMessageId, chatId };
  };

  /** Posts one signed status webhook and waits until its job has processed it. */
  const status = async (wamid: string, s: string, at: number, extra: Obj = {}) => {
    const res = await t.request(
      'POST',
      `/webhooks/whatsapp/${channelId}`,
      signedDelivery(
        PHONE_NUMBER_ID,
        APP_SECRET,
        statusUpdate({ id: wamid, status: s, timestamp: String(at), extra }),
      ),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const processed = await deliveriesProcessed(t.server.services.db, channelId, { tries: 800, everyMs: 25 });
    assert.ok(processed, 'status webhook not processed in time');
  };

  /** The message as the agent API's history shows it. */
  const shown = async (chatId: string, messageId: string) => {
    const res = await t.request('GET', `/api/chats/${chatId}/messages`, { headers: admin() });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const message = (res.json.messages as Obj[]).find((m) => m.id === messageId);
    assert.ok(message, `message ${messageId} not in its chat's history`);
    return message;
  };
  const listed = async (requestId: string) => {
    const res = await t.request('GET', `/api/channels/${channelId}/request-logs?requestId=${requestId}`, {
      headers: admin(),
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.json.items as Obj[])[0];
  };
  const updatesAfter = async (seq: number, messageId: string) => {
    const res = await t.request('GET', `/api/events?after=${seq}&limit=500`, { headers: admin() });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.json.events as { event: string; data: { message: Obj } }[]).filter(
      (e) => e.event === 'message.update' && e.data.message.id === messageId,
    );
  };
  const lastSeq = () => t.server.services.events.horizon.fresh();

  it('keeps pricing, conversation and callback data: on the message, the request log, the gateway and the webhook', async () => {
    const m = await sent();
    assert.equal((await gw.ack('user_start_attendance', m.chatId)).ok, true);
    // Nothing reported yet: no `delivery` at all (an additive, optional field).
    assert.equal((await shown(m.chatId, m.messageId)).delivery, undefined);
    assert.equal((await requestLog(m.requestId)).delivery, undefined);

    await status(m.wamid, 'sent', T0, { ...MARKETING, biz_opaque_callback_data: 'campanha-42' });
    const delivery = { ...MARKETING_SHOWN, callbackData: 'campanha-42' };

    const message = await shown(m.chatId, m.messageId);
    assert.deepEqual([message.status, message.delivery], ['sent', delivery]);
    assert.deepEqual((await requestLog(m.requestId)).delivery, delivery);
    assert.deepEqual((await listed(m.requestId))?.delivery, delivery);

    const live = await gw.next(
      'message.update',
      (e) => (e.data as { message: Obj }).message.id === m.messageId,
    );
    assert.deepEqual((live.data as { message: Obj }).message.delivery, delivery);
    const hooked = await receiver.next((r) => r.body.includes(m.messageId));
    const envelope = JSON.parse(hooked.body) as { event: string; data: { message: Obj } };
    assert.equal(envelope.event, 'message.update');
    assert.deepEqual(envelope.data.message.delivery, delivery);

    // The status history keeps what each status said, as the provider said it.
    const history = await t.server.services.db
      .selectFrom('message_status_events')
      .select(['status', 'details'])
      .where('channel_id', '=', channelId)
      .where('provider_message_id', '=', m.wamid)
      .execute();
    assert.deepEqual(history, [{ status: 'sent', details: { ...delivery } }]);
  });

  it('out of order and repeated: nothing moves back, nothing reported is erased, the latest report wins', async () => {
    const m = await sent();
    // `delivered` (utility) arrives before the earlier `sent` (marketing): the later status's report
    // stands, and the status does not go back.
    await status(m.wamid, 'delivered', T0 + 10, UTILITY);
    await status(m.wamid, 'sent', T0, MARKETING);
    let message = await shown(m.chatId, m.messageId);
    assert.deepEqual([message.status, message.delivery], ['delivered', UTILITY_SHOWN]);

    // `read` without pricing keeps it; so does `sent` again without it.
    await status(m.wamid, 'read', T0 + 20);
    await status(m.wamid, 'sent', T0);
    message = await shown(m.chatId, m.messageId);
    assert.deepEqual([message.status, message.delivery], ['read', UTILITY_SHOWN]);
    assert.deepEqual((await requestLog(m.requestId)).delivery, UTILITY_SHOWN);

    // A repeat that says something new adds it, and tells clients; the same repeat again tells nothing.
    let seq = await lastSeq();
    await status(m.wamid, 'sent', T0, { biz_opaque_callback_data: 'lote-7' });
    message = await shown(m.chatId, m.messageId);
    assert.deepEqual(message.delivery, { ...UTILITY_SHOWN, callbackData: 'lote-7' });
    assert.equal(message.status, 'read');
    const updates = await updatesAfter(seq, m.messageId);
    assert.equal(updates.length, 1);
    assert.deepEqual(updates[0]!.data.message.delivery, message.delivery);
    seq = await lastSeq();
    await status(m.wamid, 'sent', T0, { biz_opaque_callback_data: 'lote-7' });
    assert.deepEqual(await updatesAfter(seq, m.messageId), []);

    // The latest status that reports pricing wins when reports differ: `read` now says marketing.
    await status(m.wamid, 'read', T0 + 20, MARKETING);
    message = await shown(m.chatId, m.messageId);
    assert.deepEqual(message.delivery, { ...MARKETING_SHOWN, callbackData: 'lote-7' });
  });

  it('keeps every error of a failure, also once a read proves delivery', async () => {
    const m = await sent();
    await status(m.wamid, 'failed', T0 + 5, { errors: [SPAM_FAILURE, SECOND_ERROR] });
    const errors = [
      {
        code: '131049',
        title: SPAM_FAILURE.title,
        message: SPAM_FAILURE.message,
        details: SPAM_FAILURE.error_data.details,
      },
      { code: '131026', title: 'Message undeliverable', message: null, details: null },
    ];
    let message = await shown(m.chatId, m.messageId);
    assert.deepEqual(
      [message.status, message.error, message.delivery],
      [
        'failed',
        { code: '131049', message: SPAM_FAILURE.message, details: SPAM_FAILURE.error_data.details },
        { errors },
      ],
    );
    const log = await requestLog(m.requestId);
    assert.deepEqual([log.status, log.delivery], ['failed', { errors }]);

    await status(m.wamid, 'read', T0 + 30, UTILITY);
    message = await shown(m.chatId, m.messageId);
    // Delivered after all: no failure any more, but what the provider said then stays on record.
    assert.deepEqual([message.status, message.error], ['read', null]);
    assert.deepEqual(message.delivery, { ...UTILITY_SHOWN, errors });
  });

  it('a report that arrives before the send was stored reaches the message once it is', async () => {
    const to = phone();
    const wamid = 'wamid.priced-before-stored';
    await status(wamid, 'sent', T0, { ...MARKETING, biz_opaque_callback_data: 'cedo' });
    fake.respondNext({
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        contacts: [{ input: `+${to}`, wa_id: to }],
        messages: [{ id: wamid }],
      },
    });
    const requestId = await accept(to);
    await fake.nextRequest();
    const log = await settled(requestId);
    const delivery = { ...MARKETING_SHOWN, callbackData: 'cedo' };
    assert.deepEqual([log.status, log.providerMessageId, log.delivery], ['sent', wamid, delivery]);
    const row = await t.server.services.db
      .selectFrom('messages')
      .select(['chat_id', 'delivery'])
      .where('id', '=', log.messageId)
      .executeTakeFirstOrThrow();
    assert.deepEqual((await shown(row.chat_id, log.messageId)).delivery, delivery);
  });
});
