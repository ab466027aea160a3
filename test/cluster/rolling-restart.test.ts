import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConsoleClient, type Envelope } from '../helpers/console-client.js';
import { http, sleep, startCluster, until, type Cluster } from '../helpers/fault-cluster.js';
import { startNginx, type OwnNginx } from '../helpers/nginx.js';
import { describeMarkers, outcome, SendLoad, settle } from '../helpers/send-load.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// Three nodes behind the nginx site file operators install (deploy/nginx/atende.conf): two with the
// API and the gateway, one worker. Everything goes through nginx: console clients on WebSocket and on
// long-polling, Channel API sends, a transfer, an outgoing webhook. Then every node is restarted in
// turn (SIGTERM, wait for its exit, start again) under a steady send load: nothing accepted is lost
// or sent twice, the clients reconnect and get the events they missed, and every request answers
// 201 or the contract's 503.

const RATE = 30;
const CONTACTS = 40;
const PAUSE_MS = 2_000;

describe('cluster: three nodes behind nginx, rolling restart', () => {
  let c: Cluster | undefined;
  let lb: OwnNginx | undefined;
  let receiver: WebhookReceiver | undefined;
  const clients: ConsoleClient[] = [];

  before(async () => {
    c = await startCluster({
      roles: ['api,gateway', 'api,gateway', 'worker'],
      env: {
        ATENDE_TRUST_PROXY: '127.0.0.1',
        ATENDE_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        ATENDE_WEBHOOK_RETRY_BASE_MS: '200',
      },
    });
    const port = (u: string) => new URL(u).port;
    // A and B serve the API and the gateway; C (the worker) listens on nothing nginx needs.
    const front = c.nodes.slice(0, 2);
    lb = await startNginx({
      api: front.map((n) => `127.0.0.1:${port(n.url)}`),
      gateway: front.map((n) => `127.0.0.1:${port(n.gatewayUrl)}`),
    });
    receiver = await startReceiver();
  });
  after(async () => {
    for (const cl of clients) cl.close();
    await lb?.close();
    await receiver?.close();
    await c?.close();
  });

  it('serves everything through nginx and loses nothing over a rolling restart', async (t) => {
    const cl = c!;
    const base = lb!.url;
    const auth = { authorization: `Bearer ${cl.adminToken}` };
    const subscribe = { userId: cl.adminId, teamIds: [cl.teamId] };
    const ws = await ConsoleClient.open(base, base, cl.adminToken, subscribe, ['websocket']);
    const polling = await ConsoleClient.open(base, base, cl.adminToken, subscribe, ['polling']);
    clients.push(ws, polling);

    const hook = await http(base, 'POST', '/api/webhooks', {
      headers: auth,
      body: { url: `${receiver!.url}/atende`, events: ['chat.new', 'chat.transfer'] },
    });
    assert.equal(hook.status, 201, `webhook created through nginx: ${JSON.stringify(hook.json)}`);
    const team2 = await http(base, 'POST', '/api/teams', { headers: auth, body: { name: 'Vendas' } });
    assert.equal(team2.status, 201);

    let n = 0;
    const inbound = async (tag: string) => {
      const res = await http(base, 'POST', `/api/sandbox/channels/${cl.sandboxChannelId}/inbound`, {
        headers: auth,
        body: { from: `5521977${String(++n).padStart(6, '0')}`, text: tag },
      });
      assert.equal(res.status, 201, `sandbox inbound ${tag}: ${res.status} ${JSON.stringify(res.json)}`);
      return res.json.chatId as string;
    };
    const chatNew = (chatId: string) => (e: Envelope) =>
      e.event === 'chat.new' && (e.data.chat as { id?: string } | undefined)?.id === chatId;
    const hookFor = (event: string, chatId: string) =>
      until(
        () => receiver!.requests.some((r) => r.body.includes(`"${event}"`) && r.body.includes(chatId)),
        30_000,
      );

    // Before: live events on both transports, a transfer, the webhook.
    const first = await inbound('before');
    for (const client of [ws, polling]) {
      assert.ok(await client.waitFor(chatNew(first), 30_000), 'a live chat.new through nginx');
    }
    const moved = await http(base, 'POST', `/api/chats/${first}/transfer`, {
      headers: auth,
      body: { teamId: team2.json.id as string },
    });
    assert.equal(moved.status, 200, `transfer through nginx: ${JSON.stringify(moved.json)}`);
    assert.ok(await hookFor('chat.new', first), 'the webhook got chat.new');
    assert.ok(await hookFor('chat.transfer', first), 'the webhook got chat.transfer');

    // The rolling restart under a steady send load through nginx.
    const load = new SendLoad(cl, { rate: RATE, contacts: CONTACTS, timeoutMs: 15_000, baseUrl: base });
    load.start();
    await sleep(PAUSE_MS);
    const connectsBefore = [ws.connects, polling.connects];
    const restartedAt = Date.now();
    for (let i = 0; i < cl.nodes.length; i++) {
      load.phase(`restart ${cl.nodes[i]!.name}`);
      await cl.stopNode(i);
      assert.deepEqual(
        cl.nodes[i]!.exit,
        { code: 0, signal: null },
        `node ${cl.nodes[i]!.name} stopped cleanly`,
      );
      await cl.startNode(i, { samePorts: true });
      load.phase('after');
      await sleep(PAUSE_MS);
    }
    await sleep(PAUSE_MS);
    await load.stop();
    const settled = await settle(cl, load, 60_000);
    const o = outcome(load.attempts, cl.fake.requests);

    t.diagnostic(
      `rolling restart of 3 nodes at ${RATE} req/s: answers ${JSON.stringify(o.statuses)}, ` +
        `delivered ${o.delivered}, lost ${o.lost.length}, duplicated ${o.duplicates}`,
    );
    assert.ok(o.accepted > 0, 'sends were accepted');
    assert.ok(settled, 'every accepted message reached the provider and the queue drained');
    assert.deepEqual(
      o.lost,
      [],
      `nothing accepted is lost:\n  ${describeMarkers(cl, load.attempts, o.lost, restartedAt)}`,
    );
    assert.deepEqual(
      o.duplicated,
      [],
      `nothing is sent twice:\n  ${describeMarkers(cl, load.attempts, o.duplicated, restartedAt)}`,
    );
    assert.deepEqual(o.orderViolations, [], 'per-contact order is kept');
    assert.deepEqual(o.sentAfterRefusal, [], 'no refused request is sent');
    // Only 201 or the contract's 503 (a node closing): nginx passes a refused connection on to the
    // other node, and a stopping node answers what it took. Never a 500, a 502 or a hang.
    const bad = load.attempts.filter((a) => ![201, 503].includes(a.status as number));
    assert.deepEqual(
      bad.map((a) => `${a.marker} ${String(a.status)} ${JSON.stringify(a.body).slice(0, 200)}`),
      [],
      `answers: ${JSON.stringify(o.statuses)}`,
    );
    const refused = load.attempts.filter((a) => a.status !== 201).length;
    const upstreamErrors = [
      ...new Set(
        lb!
          .errorLog()
          .split('\n')
          .filter((l) => /\[error\]/.test(l))
          .map((l) => l.replace(/^.*\[error\] [^:]*: \*\d+ /, '').replace(/, client:.*$/, '')),
      ),
    ];
    assert.ok(
      refused <= o.requests / 10,
      `few refusals over the restart: ${JSON.stringify(o.statuses)}; nginx: ${upstreamErrors.join(' | ')}`,
    );

    // The clients came back (their gateway node was restarted) and get what happens next.
    assert.ok(ws.connects > connectsBefore[0]! && polling.connects > connectsBefore[1]!, 'both reconnected');
    const last = await inbound('after');
    for (const client of [ws, polling]) {
      assert.ok(await client.waitFor(chatNew(last), 30_000), 'live events resume after the restart');
    }
    assert.ok(await hookFor('chat.new', last), 'the webhook works after the restart');
    assert.doesNotMatch(lb!.accessLog(), /" 50[04] /, 'nginx answered no 500 or 504');
  });
});
