import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { startTestApp, TEST_JWT_SECRET, type TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/db.js';
import { FakeGraph } from '../helpers/fake-graph.js';
import { seedAccount } from '../helpers/fixtures.js';
import { createWhatsAppChannel } from '../helpers/whatsapp.js';
import { startBuiltServer, type Child } from '../helpers/processes.js';

// A worker process killed while the provider call of a send is in flight: after a restart the job
// comes back (heartbeat expiry, not pg-boss's default 15 minutes), the message is sent and the request
// log ends `sent`. The built server runs as a child process so that it can really be SIGKILLed.

const PHONE_NUMBER_ID = '1234567890';
const TO = '5511987654321';

describe('send-message across a worker crash', () => {
  let database: { url: string; drop: () => Promise<void> };
  let fake: FakeGraph;
  let t: TestApp;
  let db: pg.Pool;
  const children: Child[] = [];

  before(async () => {
    database = await createTestDatabase();
    fake = await FakeGraph.start();
    // Accepts requests only: the worker role runs in the children.
    t = await startTestApp({ databaseUrl: database.url, env: { ATENDE_ROLES: 'api' } });
    db = new pg.Pool({ connectionString: database.url, max: 2 });
  });
  after(async () => {
    for (const c of children)
      if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    await db?.end();
    await t?.close();
    await fake?.close();
    await database?.drop();
  });

  it('finishes the send after a restart and records it as sent', async () => {
    const f = await seedAccount(t.server.services);
    const { apiKey: key } = await createWhatsAppChannel(f, {
      phoneNumberId: PHONE_NUMBER_ID,
      withApiKey: true,
    });
    const status = async (requestId: string) =>
      (
        await t.request('GET', `/channel-api/messages/requests/${requestId}`, {
          headers: { 'x-channel-api-key': key },
        })
      ).json;

    const accepted = await t.request('POST', '/channel-api/messages/send', {
      headers: { 'x-channel-api-key': key },
      body: { contact: { value: TO }, message: { type: 'text', text: { value: 'Pedido enviado' } } },
    });
    assert.equal(accepted.status, 201);
    const requestId = accepted.json.requestId as string;
    const expected = {
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: `+${TO}`,
      type: 'text',
      text: { body: 'Pedido enviado', preview_url: false },
    };

    const env = {
      DATABASE_URL: database.url,
      ATENDE_ROLES: 'worker',
      ATENDE_JWT_SECRET: TEST_JWT_SECRET,
      WHATSAPP_GRAPH_BASE_URL: fake.url,
      LOG_LEVEL: 'info',
    };
    // The first worker's provider call is held open: the process dies in the middle of it.
    fake.hangNext();
    const first = await startBuiltServer(env);
    children.push(first.child);
    assert.deepEqual((await fake.nextRequest()).json, expected);
    assert.deepEqual(
      [(await status(requestId)).status, (await status(requestId)).attempts],
      ['processing', 1],
    );
    first.child.proc.kill('SIGKILL');
    await first.child.exited;

    const second = await startBuiltServer(env);
    children.push(second.child);
    const retried = await fake.nextRequest();
    assert.deepEqual(retried.json, expected);

    // The worker records the outcome after the provider's answer: poll the log, bounded.
    let log = await status(requestId);
    for (let i = 0; i < 400 && log.status !== 'sent'; i++) {
      await new Promise((r) => setTimeout(r, 50));
      log = await status(requestId);
    }
    assert.deepEqual([log.status, log.attempts, log.error], ['sent', 2, null]);
    const stored = await db.query('SELECT status, provider_message_id FROM messages WHERE request_id = $1', [
      requestId,
    ]);
    assert.deepEqual(stored.rows, [{ status: 'sent', provider_message_id: log.providerMessageId }]);
    assert.equal(fake.requests.length, 2);
  });
});
