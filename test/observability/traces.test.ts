import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { FakeGraph } from '../helpers/fake-graph.js';
import { seedAccount, type Fixture } from '../helpers/fixtures.js';
import { KIND, STATUS, startOtlpCollector, type OtlpCollector } from '../helpers/otlp-collector.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import {
  createWhatsAppChannel,
  signedDelivery,
  statusUpdate,
  type WhatsAppChannel,
} from '../helpers/whatsapp.js';

// OTEL_EXPORTER_OTLP_ENDPOINT set: a Channel API send with an incoming `traceparent` is one trace from
// the HTTP request through the queue to the worker's send and its Graph call; the status webhook that
// comes back later, and the integrator webhook it causes, are spans of their own linked to that trace.
// Spans reach a local OTLP/HTTP collector as the real exporter sends them (docs/adr/0098-traces.md).

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

describe('traces (OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
  let collector: OtlpCollector;
  let fake: FakeGraph;
  let receiver: WebhookReceiver;
  let t: TestApp;
  let f: Fixture;
  let channel: WhatsAppChannel;
  const bspDelay = process.env.OTEL_BSP_SCHEDULE_DELAY;

  before(async () => {
    collector = await startOtlpCollector();
    fake = await FakeGraph.start();
    receiver = await startReceiver();
    // The SDK's own variable: export within 50 ms rather than the default 5 s, so the test waits less.
    process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
    t = await startTestApp({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        OTEL_SERVICE_NAME: 'atende-test',
        WHATSAPP_GRAPH_BASE_URL: fake.url,
        WHATSAPP_TIMEOUT_MS: '5000',
        ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      },
    });
    f = await seedAccount(t.server.services);
    channel = await createWhatsAppChannel(f, { withApiKey: true });
    const hook = await t.request('POST', '/api/webhooks', {
      headers: { authorization: `Bearer ${f.adminToken}` },
      body: { url: receiver.url, events: ['message.update'] },
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));
  });
  after(async () => {
    await t?.close();
    await receiver?.close();
    await fake?.close();
    await collector?.close();
    if (bspDelay === undefined) delete process.env.OTEL_BSP_SCHEDULE_DELAY;
    else process.env.OTEL_BSP_SCHEDULE_DELAY = bspDelay;
  });

  it('follows a send from its request through the queue, the provider and the status webhook', async () => {
    assert.equal(t.server.services.tracing.enabled, true);
    const traceId = hex(16);
    const callerSpanId = hex(8);
    const res = await t.request('POST', '/channel-api/messages/send', {
      headers: { 'x-channel-api-key': channel.apiKey, traceparent: `00-${traceId}-${callerSpanId}-01` },
      body: { contact: { value: '5511987650001' }, message: { type: 'text', text: { value: 'Olá' } } },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const requestId = res.json.requestId as string;

    // The request's server span continues the caller's trace.
    const http = await collector.span(
      (s) => s.kind === KIND.server && s.attributes['http.route'] === '/channel-api/messages/send',
    );
    assert.equal(http.traceId, traceId);
    assert.equal(http.parentSpanId, callerSpanId);
    assert.equal(http.name, 'POST /channel-api/messages/send');
    assert.equal(http.service, 'atende-test');
    assert.equal(http.attributes['http.request.method'], 'POST');
    assert.equal(http.attributes['http.response.status_code'], 201);

    // The worker's span, after the queue, is a child of it; the Graph call a child of the worker's.
    const graphRequest = await fake.nextRequest();
    assert.equal(graphRequest.headers.traceparent, undefined, 'no trace header is sent to Meta');
    const send = await collector.span(
      (s) => s.name === 'send' && s.attributes['atende.request_id'] === requestId,
    );
    assert.equal(send.kind, KIND.consumer);
    assert.equal(send.traceId, traceId);
    assert.equal(send.parentSpanId, http.spanId);
    assert.equal(send.status.code, STATUS.unset);
    assert.equal(send.attributes['atende.channel_id'], channel.id);
    const graph = await collector.span((s) => s.kind === KIND.client && s.parentSpanId === send.spanId);
    assert.equal(graph.traceId, traceId);
    assert.equal(graph.name, 'POST graph /messages');
    assert.equal(graph.attributes['http.response.status_code'], 200);
    assert.equal(graph.attributes['url.template'], '/{version}/{phone-number-id}/messages');

    // The provider's status comes back as a webhook, processed by a job: its span is linked to the send.
    const log = await t.request('GET', `/channel-api/messages/requests/${requestId}`, {
      headers: { 'x-channel-api-key': channel.apiKey },
    });
    const wamid = log.json.providerMessageId as string;
    assert.match(wamid, /^wamid\./);
    const posted = await t.request(
      'POST',
      `/webhooks/whatsapp/${channel.id}`,
      signedDelivery(
        channel.phoneNumberId,
        channel.appSecret,
        statusUpdate({ id: wamid, status: 'delivered' }),
      ),
    );
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    const status = await collector.span(
      (s) => s.name === 'provider status' && s.attributes['atende.request_id'] === requestId,
    );
    assert.notEqual(status.traceId, traceId, 'a trace of its own');
    assert.deepEqual(status.links, [{ traceId, spanId: http.spanId }]);
    assert.equal(status.attributes['atende.message_status'], 'delivered');
    assert.equal(status.attributes['atende.status_outcome'], 'changed');

    // Its message.update reaches the integrator: a delivery span, linked to the send, whose context
    // the POST carries on.
    const delivered = await receiver.next((r) => r.headers['atende-event'] === 'message.update');
    const delivery = await collector.span(
      (s) => s.name === 'webhook delivery' && s.attributes['atende.event'] === 'message.update',
    );
    assert.equal(delivery.kind, KIND.client);
    assert.equal(delivery.attributes['http.response.status_code'], 200);
    assert.deepEqual(delivery.links, [{ traceId, spanId: http.spanId }]);
    assert.equal(delivered.headers.traceparent, `00-${delivery.traceId}-${delivery.spanId}-01`);

    // No span carries a phone number or the message's text.
    const everything = JSON.stringify(collector.spans);
    for (const secret of ['5511987650001', 'Olá', channel.accessToken, channel.phoneNumberId])
      assert.equal(everything.includes(secret), false, `a span names ${secret}`);
  });

  it('marks a failed Graph call and the attempt that made it as errors', async () => {
    fake.failNext({ code: 131026, message: 'Message undeliverable' });
    const res = await t.request('POST', '/channel-api/messages/send', {
      headers: { 'x-channel-api-key': channel.apiKey },
      body: { contact: { value: '5511987650002' }, message: { type: 'text', text: { value: 'Oi' } } },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const requestId = res.json.requestId as string;
    const http = await collector.span(
      (s) =>
        s.kind === KIND.server &&
        s.attributes['http.route'] === '/channel-api/messages/send' &&
        s.parentSpanId === null,
    );
    const send = await collector.span(
      (s) => s.name === 'send' && s.attributes['atende.request_id'] === requestId,
    );
    // No incoming traceparent: the request started the trace.
    assert.equal(send.traceId, http.traceId);
    assert.equal(send.status.code, STATUS.error);
    assert.match(send.status.message ?? '', /Message undeliverable/);
    const graph = await collector.span((s) => s.kind === KIND.client && s.parentSpanId === send.spanId);
    assert.equal(graph.status.code, STATUS.error);
    assert.equal(graph.attributes['http.response.status_code'], 400);
  });
});

describe('traces on a clean stop', () => {
  let collector: OtlpCollector;
  let t: TestApp;
  const bspDelay = process.env.OTEL_BSP_SCHEDULE_DELAY;

  before(async () => {
    collector = await startOtlpCollector();
    // Batches every ten minutes: only the stop's flush can export within the test.
    process.env.OTEL_BSP_SCHEDULE_DELAY = '600000';
    t = await startTestApp({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } });
  });
  after(async () => {
    await t?.close();
    await collector?.close();
    if (bspDelay === undefined) delete process.env.OTEL_BSP_SCHEDULE_DELAY;
    else process.env.OTEL_BSP_SCHEDULE_DELAY = bspDelay;
  });

  it('exports the spans still buffered when the node stops', async () => {
    const res = await t.request('GET', '/healthz');
    assert.equal(res.status, 200);
    assert.equal(collector.exports, 0);
    await t.close();
    const span = await collector.span((s) => s.attributes['http.route'] === '/healthz');
    assert.equal(span.name, 'GET /healthz');
    assert.equal(span.service, 'atende');
    assert.equal(span.attributes['http.response.status_code'], 200);
  });
});
