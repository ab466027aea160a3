import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { FakeGraph } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import {
  createWhatsAppChannel,
  deliveriesProcessed,
  signedDelivery,
  statusUpdate,
} from '../helpers/whatsapp.js';

// A Channel API request follows its message after the provider accepted it: a failure reported later
// by a status webhook (131047, the 24-hour window) fails the request and its log entry with the
// provider's code, message and details, in the same transaction as the message; a read reported
// after that proves delivery and makes it `sent` again.

const PHONE_NUMBER_ID = '5550001111';
const APP_SECRET = 'status-app-secret';

const WINDOW_FAILURE = {
  code: 131047,
  title: 'Re-engagement message',
  message: 'Re-engagement message',
  error_data: {
    details:
      'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
  },
};
const WINDOW_ERROR = {
  code: '131047',
  message: 'Re-engagement message',
  details:
    'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
};

interface RequestLog {
  requestId: string;
  status: string;
  messageId: string | null;
  providerMessageId: string | null;
  error: { code: string; message: string; details?: string } | null;
  updatedAt: string;
}

let phoneSeq = 0;
const phone = () => `55119877${String(++phoneSeq).padStart(5, '0')}`;

describe('request log follows late delivery statuses', () => {
  let fake: FakeGraph;
  let t: TestApp;
  let f: Fixture;
  let channelId: string;
  let key: string;
  const admin = () => ({ authorization: `Bearer ${f.adminToken}` });

  before(async () => {
    fake = await FakeGraph.start();
    t = await startTestApp({ env: { WHATSAPP_GRAPH_BASE_URL: fake.url, WHATSAPP_TIMEOUT_MS: '5000' } });
    f = await seedAccount(t.server.services);
    const channel = await createWhatsAppChannel(f, {
      phoneNumberId: PHONE_NUMBER_ID,
      appSecret: APP_SECRET,
      withApiKey: true,
    });
    channelId = channel.id;
    key = channel.apiKey;
  });
  after(async () => {
    await t?.close();
    await fake?.close();
  });

  const accept = async (to: string, text: string) => {
    const res = await t.request('POST', '/channel-api/messages/send', {
      headers: { 'x-channel-api-key': key },
      body: { contact: { value: to }, message: { type: 'text', text: { value: text } }, flowId: 'late' },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.json.requestId as string;
  };
  const requestLog = async (requestId: string) => {
    const res = await t.request('GET', `/channel-api/messages/requests/${requestId}`, {
      headers: { 'x-channel-api-key': key },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as RequestLog;
  };
  /** Polls the request log until the worker settled it (nothing to await: it runs in the background). */
  const settled = async (requestId: string): Promise<RequestLog> => {
    for (let i = 0; i < 600; i++) {
      const log = await requestLog(requestId);
      if (log.status === 'sent' || log.status === 'failed') return log;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`request ${requestId} not settled in time`);
  };
  const listed = async (status: string) => {
    const res = await t.request(
      'GET',
      `/api/channels/${channelId}/request-logs?status=${status}&flowId=late&limit=100`,
      { headers: admin() },
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.json.items as RequestLog[]).map((r) => r.requestId);
  };

  /** Posts a signed status webhook and waits until its job has processed it. */
  const status = async (wamid: string, s: string, errors?: unknown[]) => {
    const res = await t.request(
      'POST',
      `/webhooks/whatsapp/${channelId}`,
      signedDelivery(
        PHONE_NUMBER_ID,
        APP_SECRET,
        statusUpdate({ id: wamid, status: s, extra: errors ? { errors } : {} }),
      ),
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const processed = await deliveriesProcessed(t.server.services.db, channelId, { tries: 800, everyMs: 25 });
    assert.ok(processed, 'status webhook not processed in time');
  };

  const events = async (after: number) => {
    const res = await t.request('GET', `/api/events?after=${after}&limit=500`, { headers: admin() });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.json.events as { seq: number; event: string; data: Record<string, unknown> }[];
  };
  const lastSeq = async () => {
    const all = await events(0);
    return all.length === 0 ? 0 : all[all.length - 1]!.seq;
  };

  it('a failure reported after the provider accepted the message fails the request, its log entry and the message', async () => {
    const requestId = await accept(phone(), 'Seu pedido saiu');
    await fake.nextRequest();
    const sent = await settled(requestId);
    assert.equal(sent.status, 'sent');
    assert.ok(sent.providerMessageId && sent.messageId);
    assert.deepEqual(await listed('failed'), []);
    const seq = await lastSeq();

    await status(sent.providerMessageId, 'failed', [WINDOW_FAILURE]);

    const failed = await requestLog(requestId);
    assert.deepEqual(
      [failed.status, failed.error, failed.messageId, failed.providerMessageId],
      ['failed', WINDOW_ERROR, sent.messageId, sent.providerMessageId],
    );
    assert.ok(failed.updatedAt > sent.updatedAt);
    assert.deepEqual(await listed('failed'), [requestId]);
    assert.deepEqual(await listed('sent'), []);

    // The agent API shows the message's error with Meta's details, and so does its event.
    const chat = await t.server.services.db
      .selectFrom('messages')
      .select('chat_id')
      .where('id', '=', sent.messageId)
      .executeTakeFirstOrThrow();
    const history = await t.request('GET', `/api/chats/${chat.chat_id}/messages`, { headers: admin() });
    assert.equal(history.status, 200, JSON.stringify(history.body));
    const shown = (history.json.messages as Record<string, unknown>[]).find((m) => m.id === sent.messageId);
    assert.deepEqual([shown?.status, shown?.error, shown?.requestId], ['failed', WINDOW_ERROR, requestId]);
    const updates = (await events(seq)).filter((e) => e.event === 'message.update');
    assert.equal(updates.length, 1);
    const message = updates[0]!.data.message as Record<string, unknown>;
    assert.deepEqual(
      [message.id, message.status, message.error, message.requestId],
      [sent.messageId, 'failed', WINDOW_ERROR, requestId],
    );

    // The same failure again changes nothing; a read proves delivery: the request is sent again.
    await status(sent.providerMessageId, 'failed', [WINDOW_FAILURE]);
    assert.deepEqual(await requestLog(requestId), failed);
    await status(sent.providerMessageId, 'read');
    const read = await requestLog(requestId);
    assert.deepEqual([read.status, read.error], ['sent', null]);
    assert.deepEqual(await listed('failed'), []);
    assert.deepEqual(await listed('sent'), [requestId]);
  });

  it('a delivered message stays sent when a failure arrives after it', async () => {
    const requestId = await accept(phone(), 'Chegou?');
    await fake.nextRequest();
    const sent = await settled(requestId);
    await status(sent.providerMessageId!, 'delivered');
    await status(sent.providerMessageId!, 'failed', [WINDOW_FAILURE]);
    const log = await requestLog(requestId);
    assert.deepEqual([log.status, log.error], ['sent', null]);
  });

  it('a failure reported before the send was stored fails the request once it is', async () => {
    const to = phone();
    const wamid = 'wamid.failed-before-stored';
    await status(wamid, 'failed', [WINDOW_FAILURE]);
    fake.respondNext({
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        contacts: [{ input: `+${to}`, wa_id: to }],
        messages: [{ id: wamid }],
      },
    });
    const requestId = await accept(to, 'Rápido demais');
    await fake.nextRequest();
    const log = await settled(requestId);
    assert.deepEqual([log.status, log.error, log.providerMessageId], ['failed', WINDOW_ERROR, wamid]);
    const stored = await t.server.services.db
      .selectFrom('messages')
      .select(['status', 'error'])
      .where('id', '=', log.messageId!)
      .executeTakeFirstOrThrow();
    assert.deepEqual(stored, { status: 'failed', error: WINDOW_ERROR });
  });
});
