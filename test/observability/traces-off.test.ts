import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { FakeGraph } from '../helpers/fake-graph.js';
import { seedAccount } from '../helpers/fixtures.js';
import { startOtlpCollector, type OtlpCollector } from '../helpers/otlp-collector.js';
import { createWhatsAppChannel, type WhatsAppChannel } from '../helpers/whatsapp.js';

// Without OTEL_EXPORTER_OTLP_ENDPOINT in the configuration tracing is off: no exporter exists, no span
// is made, and a send with an incoming `traceparent` works as ever and stores no trace.

describe('traces off (OTEL_EXPORTER_OTLP_ENDPOINT unset)', () => {
  let collector: OtlpCollector;
  let fake: FakeGraph;
  let t: TestApp;
  let channel: WhatsAppChannel;
  const endpoint = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;

  before(async () => {
    collector = await startOtlpCollector();
    fake = await FakeGraph.start();
    // In this process's environment, but not in the configuration the server runs with: the SDK's
    // exporter, which reads that variable itself, must not be built behind the configuration's back.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = collector.url;
    t = await startTestApp({ env: { WHATSAPP_GRAPH_BASE_URL: fake.url, WHATSAPP_TIMEOUT_MS: '5000' } });
    const f = await seedAccount(t.server.services);
    channel = await createWhatsAppChannel(f, { withApiKey: true });
  });
  after(async () => {
    await t?.close();
    await fake?.close();
    await collector?.close();
    if (endpoint === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
  });

  it('sends as ever and exports nothing, before or after the node stops', async () => {
    assert.equal(t.server.services.tracing.enabled, false);
    const res = await t.request('POST', '/channel-api/messages/send', {
      headers: {
        'x-channel-api-key': channel.apiKey,
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      },
      body: { contact: { value: '5511987650003' }, message: { type: 'text', text: { value: 'Olá' } } },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const requestId = res.json.requestId as string;
    const graphRequest = await fake.nextRequest();
    assert.equal(graphRequest.path.endsWith('/messages'), true);

    const stored = await t.server.services.db
      .selectFrom('request_logs')
      .select('payload')
      .where('request_id', '=', requestId)
      .executeTakeFirstOrThrow();
    assert.equal('traceparent' in stored.payload, false);

    // A clean stop is when a tracing node flushes its last spans: nothing arrives even then.
    await t.close();
    assert.equal(collector.exports, 0);
    assert.deepEqual(collector.spans, []);
  });
});
