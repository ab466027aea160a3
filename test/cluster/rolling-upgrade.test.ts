import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LATEST_MIGRATION } from '../../src/db/migrate.js';
import { http, sleep, startCluster, until, type Cluster, type FaultNode } from '../helpers/fault-cluster.js';
import { buildPreviousRelease, type PreviousRelease } from '../helpers/previous-release.js';
import { MAIN } from '../helpers/processes.js';
import { describeMarkers, outcome, SendLoad, settle } from '../helpers/send-load.js';
import { hubSignature, graphWebhook, statusUpdate } from '../helpers/whatsapp.js';

// A rolling upgrade from the previous release (deploy/previous-release) to this tree, on one
// PostgreSQL and one Redis (docs/deploying.md#rolling-upgrades, ADR 96):
//
// 1. The previous release's nodes — two `api,gateway`, one `worker` — start on an empty database,
//    which the first migrates to that release's schema.
// 2. A node of this release starts beside them and migrates the database to this release's schema
//    (expand-only, so the old nodes keep working on it).
// 3. Through the old nodes and through the new one: the send path (Channel API send → the fake Graph
//    API → a signed status webhook → the message delivered) and the list paths (the Channel API's
//    and the agent API's chat lists).
// 4. The old nodes are replaced one by one by new ones (SIGTERM, then a new node on its ports).
// Under a steady Channel API send load over the API nodes throughout: every accepted send (201)
// reaches the provider exactly once, in order per contact; nothing refused is sent.
//
// A node of the previous release is never *restarted* on the new schema unless that release
// tolerates migrations it does not know (this tree's src/db/migrate.ts does; d3be647's Kysely
// migrator refuses them): the test checks whichever the previous release does.

const RATE = 8;
const CONTACTS = 8;
const PAUSE_MS = 1_500;
const OLD_ROLES = ['api,gateway', 'api,gateway', 'worker'];

describe('cluster: rolling upgrade from the previous release', () => {
  let release: PreviousRelease;
  let c: Cluster | undefined;
  /** The lock-wait sampler's switch (see the test), off however the test ends. */
  let sampling = false;

  before(async () => {
    release = await buildPreviousRelease();
    c = await startCluster({
      main: release.main,
      roles: OLD_ROLES,
      env: { ATENDE_WEBHOOK_RETRY_BASE_MS: '200' },
    });
  });
  after(async () => {
    sampling = false;
    await c?.close();
  });

  it('serves through old and new nodes on the new schema and loses nothing over the roll', async (t) => {
    const cl = c!;
    const auth = { authorization: `Bearer ${cl.adminToken}` };
    const applied = async () =>
      (await cl.query<{ name: string }>('SELECT name FROM kysely_migration ORDER BY name')).map(
        (r) => r.name,
      );
    assert.deepEqual(await applied(), release.migrations, `the database is on ${release.commit}'s schema`);
    assert.ok(!release.migrations.includes(LATEST_MIGRATION), 'this release has migrations to apply');

    const key = await http(cl.nodes[0]!.url, 'POST', '/api/api-keys', {
      headers: auth,
      body: { name: 'lists', scopes: ['chats:read'] },
    });
    assert.equal(key.status, 201, `account key: ${JSON.stringify(key.json)}`);
    const accountKey = { authorization: `ApiKey ${key.json.token as string}` };

    const apiNodes = () => cl.nodes.filter((n, i) => i !== 2 && n.alive());
    const load = new SendLoad(cl, { rate: RATE, contacts: CONTACTS, timeoutMs: 15_000, targets: apiNodes });
    load.phase('old');
    load.start();
    await sleep(PAUSE_MS);

    // A node of this release beside the old ones: it migrates the database on start.
    load.phase('mixed');
    // Statements that waited for a lock while the new node migrated and the nodes of both served, for
    // the diagnostics: a send's lease (5 s) outlived by a blocked worker would be run again elsewhere.
    const waits = new Map<string, number>();
    sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const rows = await cl
          .query<{ q: string; ms: number }>(
            `SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 120) AS q,
                    (extract(epoch FROM now() - query_start) * 1000)::int AS ms
             FROM pg_stat_activity WHERE wait_event_type = 'Lock'`,
          )
          .catch(() => []);
        for (const r of rows) waits.set(r.q, Math.max(waits.get(r.q) ?? 0, r.ms));
        await sleep(100);
      }
    })();
    const launched = Date.now();
    const fresh = await cl.startNode(3, { main: MAIN });
    t.diagnostic(`the new node started in ${Date.now() - launched} ms`);
    assert.ok((await applied()).includes(LATEST_MIGRATION), 'the new node migrated the database');
    // How long the new migrations held their locks while the old nodes served (one transaction).
    const [span] = await cl.query<{ ms: number }>(
      `SELECT (extract(epoch FROM max(timestamp::timestamptz) - min(timestamp::timestamptz)) * 1000)::int AS ms
       FROM kysely_migration WHERE NOT (name = ANY($1::text[]))`,
      [release.migrations],
    );
    t.diagnostic(`the new node's migrations: ${span?.ms ?? '?'} ms from the first to the last`);
    const old = [cl.nodes[0]!, cl.nodes[1]!];

    // The send and list paths through each old node and through the new one, while both serve.
    let n = 0;
    const sendThrough = async (via: FaultNode, statusVia: FaultNode) => {
      const marker = `upgrade-${++n}-${via.name}`;
      const phone = `5511976${String(n).padStart(6, '0')}`;
      const sent = await http(via.url, 'POST', '/channel-api/messages/send', {
        headers: { 'x-channel-api-key': cl.channelKey },
        body: { contact: { value: phone }, message: { type: 'text', text: { value: marker } } },
      });
      assert.equal(sent.status, 201, `send through ${via.name}: ${JSON.stringify(sent.json)}`);
      const requestId = sent.json.requestId as string;
      let message: { id: string; chat_id: string; provider_message_id: string } | undefined;
      assert.ok(
        await until(async () => {
          [message] = await cl.query<{ id: string; chat_id: string; provider_message_id: string }>(
            'SELECT id, chat_id, provider_message_id FROM messages WHERE request_id = $1 AND provider_message_id IS NOT NULL',
            [requestId],
          );
          return message !== undefined;
        }, 30_000),
        `the message sent through ${via.name} reached the provider`,
      );
      const received = cl.fake.requests.filter(
        (r) => (r.json as { text?: { body?: unknown } } | undefined)?.text?.body === marker,
      );
      assert.equal(received.length, 1, `the fake Graph API got ${marker} once`);

      const raw = JSON.stringify(
        graphWebhook(
          '1098765432',
          statusUpdate({ id: message!.provider_message_id, status: 'delivered', recipientId: phone }),
        ),
      );
      const hook = await fetch(`${statusVia.url}/webhooks/whatsapp/${cl.channelId}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-hub-signature-256': hubSignature(cl.appSecret, raw),
        },
        body: raw,
        signal: AbortSignal.timeout(15_000),
      });
      assert.equal(hook.status, 200, `status webhook through ${statusVia.name}`);
      assert.ok(
        await until(async () => {
          const [row] = await cl.query<{ status: string }>('SELECT status FROM messages WHERE id = $1', [
            message!.id,
          ]);
          return row?.status === 'delivered';
        }, 30_000),
        `the status posted through ${statusVia.name} was applied`,
      );
      const log = await http(statusVia.url, 'GET', `/channel-api/messages/requests/${requestId}`, {
        headers: { 'x-channel-api-key': cl.channelKey },
      });
      assert.equal(log.status, 200, `request log through ${statusVia.name}: ${JSON.stringify(log.json)}`);
      return message!.chat_id;
    };
    const listsThrough = async (via: FaultNode, chatIds: string[]) => {
      const ids = (json: Record<string, unknown>) => (json.chats as Array<{ id: string }>).map((ch) => ch.id);
      const channel = await http(via.url, 'GET', '/channel-api/chats?limit=100', { headers: accountKey });
      assert.equal(
        channel.status,
        200,
        `Channel API list through ${via.name}: ${JSON.stringify(channel.json)}`,
      );
      const agent = await http(via.url, 'GET', '/api/chats?limit=100', { headers: auth });
      assert.equal(agent.status, 200, `agent API list through ${via.name}: ${JSON.stringify(agent.json)}`);
      for (const id of chatIds) {
        assert.ok(ids(channel.json).includes(id), `${via.name}'s Channel API list has chat ${id}`);
        assert.ok(ids(agent.json).includes(id), `${via.name}'s agent API list has chat ${id}`);
      }
    };
    const mixedChats = [
      await sendThrough(old[0]!, fresh),
      await sendThrough(fresh, old[1]!),
      await sendThrough(old[1]!, old[0]!),
    ];
    for (const node of [...old, fresh]) await listsThrough(node, mixedChats);

    sampling = false;
    await sampler;
    const longest = [...waits].sort((a, b) => b[1] - a[1]).slice(0, 3);
    t.diagnostic(
      `longest lock waits while mixed: ${longest.map(([q, ms]) => `${ms} ms ${q}`).join(' | ') || 'none'}`,
    );

    // The roll: each old node stopped (cleanly) and replaced by a new one on its ports.
    for (let i = 0; i < OLD_ROLES.length; i++) {
      load.phase(`replace ${cl.nodes[i]!.name}`);
      await cl.stopNode(i);
      assert.deepEqual(
        cl.nodes[i]!.exit,
        { code: 0, signal: null },
        `old node ${cl.nodes[i]!.name} stopped cleanly`,
      );
      await cl.startNode(i, { samePorts: true, main: MAIN });
      load.phase('new');
      await sleep(PAUSE_MS);
    }
    const newChats = [await sendThrough(cl.nodes[0]!, cl.nodes[1]!), await sendThrough(cl.nodes[1]!, fresh)];
    for (const node of [cl.nodes[0]!, cl.nodes[1]!]) await listsThrough(node, [...mixedChats, ...newChats]);

    await load.stop();
    const settled = await settle(cl, load, 60_000);
    const o = outcome(load.attempts, cl.fake.requests);
    t.diagnostic(
      `rolling upgrade ${release.commit.slice(0, 7)} → this tree at ${RATE} req/s: answers ` +
        `${JSON.stringify(o.statuses)}, delivered ${o.delivered}, lost ${o.lost.length}, duplicated ${o.duplicates}`,
    );
    assert.ok(o.accepted > 0, 'sends were accepted');
    assert.ok(settled, 'every accepted message reached the provider and the queue drained');
    assert.deepEqual(
      o.lost,
      [],
      `nothing accepted is lost:\n  ${describeMarkers(cl, load.attempts, o.lost, 0)}`,
    );
    assert.deepEqual(
      o.duplicated,
      [],
      `nothing is sent twice:\n  ${describeMarkers(cl, load.attempts, o.duplicated, 0)}`,
    );
    assert.deepEqual(o.orderViolations, [], 'per-contact order is kept across old and new workers');
    assert.deepEqual(o.sentAfterRefusal, [], 'no refused request is sent');
    // 201, the contract's 503 from a closing node, or a refused connection to one that just closed.
    const bad = load.attempts.filter((a) => ![201, 503, 'error'].includes(a.status));
    assert.deepEqual(
      bad.map((a) => `${a.marker} ${String(a.status)} ${JSON.stringify(a.body).slice(0, 200)}`),
      [],
      `answers: ${JSON.stringify(o.statuses)}`,
    );

    // Restarting a node of the previous release on the new schema: what that release does.
    const migrator = await readFile(path.join(path.dirname(release.main), 'db', 'migrate.js'), 'utf8');
    const tolerant = migrator.includes('unknownExecutedMigrations');
    if (tolerant) {
      const again = await cl.startNode(4, { main: release.main });
      await sendThrough(again, cl.nodes[0]!);
      await listsThrough(again, mixedChats);
    } else {
      // d3be647's Kysely migrator refuses executed migrations it does not know ("corrupted
      // migrations"): an old node that stops during the roll cannot come back, only be replaced.
      await assert.rejects(cl.startNode(4, { main: release.main }), /corrupted migrations/);
      t.diagnostic(
        `${release.commit.slice(0, 7)} cannot restart on the new schema (known limit of that release)`,
      );
    }
  });
});
