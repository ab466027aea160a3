import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import {
  ADMIN_EMAIL,
  ADMIN_PASSWORD,
  http,
  JWT_SECRET,
  startCluster,
  until,
  type Cluster,
} from '../helpers/fault-cluster.js';
import { ThreadedFakeGraph } from '../helpers/fake-graph-thread.js';
import { recordResult } from '../helpers/fault-results.js';
import { MediaLoad, type MediaAttempt } from '../helpers/media-load.js';
import { startOwnPostgres, type OwnPostgres } from '../helpers/own-postgres.js';
import { startOwnRedis, type OwnRedis } from '../helpers/own-redis.js';
import { freePorts } from '../helpers/ports.js';
import { MAIN, spawnNode, type Child } from '../helpers/processes.js';
import { SendLoad, textOf } from '../helpers/send-load.js';

// A backup of a live instance, restored as docs/operating.md says: `pg_dump -Fc` of node A's database
// while texts and files are being sent, `pg_restore` into a new PostgreSQL cluster, a node started on
// it (new Redis, its own fake Graph API). Every message answered 201 before the dump started is in the
// restore, its file's bytes identical; the node serves; and the sends the restore holds unfinished go
// out from it, while those it holds as sent do not.

const RATE = 100;
const CONTACTS = 100;
const run = promisify(execFile);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('fault: pg_dump under load, restored onto a new cluster', () => {
  let c: Cluster | undefined;
  let pgB: OwnPostgres | undefined;
  let redisB: OwnRedis | undefined;
  let fakeB: ThreadedFakeGraph | undefined;
  let nodeB: Child | undefined;
  let dir: string | undefined;
  before(async () => {
    c = await startCluster({
      roles: ['api,gateway,worker'],
      postgres: { dumpTools: true },
      env: { ATENDE_USER_RATE_LIMIT_POINTS: '100000000' },
    });
    dir = await mkdtemp(path.join(tmpdir(), 'atende-backup-'));
  });
  after(async () => {
    if (nodeB) {
      nodeB.proc.kill('SIGKILL');
      await nodeB.exited;
    }
    await fakeB?.close();
    await redisB?.close();
    await pgB?.destroy();
    await c?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('restores every message accepted before the dump, files included, and serves from it', async () => {
    const a = c!;
    const nodeA = a.nodes[0]!;
    const admin = { authorization: `Bearer ${a.adminToken}` };
    // A conversation the admin attends, for replies with files (on the sandbox channel).
    const inbound = await http(nodeA.url, 'POST', `/api/sandbox/channels/${a.sandboxChannelId}/inbound`, {
      headers: admin,
      body: { from: '5511965432100', name: 'Maria', text: 'Olá' },
    });
    assert.equal(inbound.status, 201, JSON.stringify(inbound.json));
    const chatId = inbound.json.chatId as string;
    const capture = await http(nodeA.url, 'POST', `/api/chats/${chatId}/capture`, { headers: admin });
    assert.equal(capture.status, 200, JSON.stringify(capture.json));

    const texts = new SendLoad(a, { rate: RATE, contacts: CONTACTS, timeoutMs: 10_000 });
    const files = new MediaLoad({
      url: nodeA.url,
      adminToken: a.adminToken,
      channelKey: a.channelKey,
      chatId,
    });
    texts.start();
    files.start(2);
    const acceptedTexts = () => texts.attempts.filter((t) => t.status === 201);
    const busy = await until(
      () =>
        acceptedTexts().length >= 300 &&
        files.accepted('agent-reply').length >= 6 &&
        files.accepted('channel-send').length >= 6,
      60_000,
    );
    assert.ok(busy, 'the load is accepted before the dump');

    // pg_dump's snapshot is taken after this instant: whatever was answered 201 before it committed
    // before it. An answer stamped in the same millisecond is left out of the comparison.
    const dump = path.join(dir!, 'atende.dump');
    const dumpStartedAt = Date.now();
    await run(path.join(a.pg.bin, 'pg_dump'), ['-Fc', '-f', dump, a.pg.url()]);
    const dumpEndedAt = Date.now();
    // The load goes on past the dump, as it would on a live instance.
    const texting = await until(() => acceptedTexts().some((t) => t.endedAt > dumpEndedAt), 30_000);
    assert.ok(texting, 'sends are accepted after the dump');
    await Promise.all([texts.stop(), files.stop()]);
    await a.stopNode(0);

    const before = <T extends { status: unknown; endedAt: number }>(list: T[]) =>
      list.filter((x) => x.status === 201 && x.endedAt < dumpStartedAt);
    const textsBefore = before(texts.attempts).map((t) => ({
      marker: t.marker,
      requestId: (t.body as { requestId: string }).requestId,
    }));
    const repliesBefore = before(files.attempts.filter((f) => f.kind === 'agent-reply'));
    const mediaSendsBefore = before(files.attempts.filter((f) => f.kind === 'channel-send'));
    const duringDump = texts.attempts.filter(
      (t) => t.status === 201 && t.endedAt >= dumpStartedAt && t.endedAt <= dumpEndedAt,
    ).length;

    // A new cluster, the dump restored into an empty database as an operator would.
    pgB = await startOwnPostgres({ dumpTools: true });
    const adminB = new pg.Client({ connectionString: pgB.url() });
    await adminB.connect();
    await adminB.query('CREATE DATABASE atende');
    await adminB.end();
    await run(path.join(pgB.bin, 'pg_restore'), [
      '--no-owner',
      '--exit-on-error',
      '-d',
      pgB.url('atende'),
      dump,
    ]);

    // The restore as it is, before any node touches it.
    const db = new pg.Client({ connectionString: pgB.url('atende') });
    await db.connect();
    let unsettled: Set<string>;
    let waitingFiles: MediaAttempt[];
    let figures: { lost: number; waiting: number; unsettled: number } | undefined;
    // Sent by node A and again by the restored node: sends A finished after the dump.
    const sentTwice = () => {
      const fromA = new Set(a.fake.requests.map(textOf));
      return new Set((fakeB?.requests ?? []).map(textOf).filter((m) => m !== null && fromA.has(m))).size;
    };
    const report = () => {
      if (!figures) return;
      const accepted = textsBefore.length + repliesBefore.length + mediaSendsBefore.length;
      recordResult({
        scenario: 'backup-restore',
        loopDelayMaxMs: a.loopDelayMaxMs(),
        load: `${RATE} texts/s, ${CONTACTS} contacts + files, 1 node`,
        fault: `pg_dump -Fc under load (${((dumpEndedAt - dumpStartedAt) / 1000).toFixed(1)} s), restored into a new cluster`,
        requests: texts.attempts.length + files.attempts.length,
        accepted,
        delivered: accepted - figures.lost,
        lost: figures.lost,
        duplicated: sentTwice(),
        recoveryMs: null,
        drainMs: null,
        notes:
          `"accepted": answered 201 before the dump started (${textsBefore.length} texts, ` +
          `${repliesBefore.length} agents' files, ${mediaSendsBefore.length} Channel API files, ` +
          `${figures.waiting} of these still waiting with their bytes), "delivered": in the restore, files ` +
          `identical; ${duringDump} texts answered while pg_dump ran; ${figures.unsettled} sends unfinished ` +
          `in the restore, sent by the restored node ("duplicated": those node A had sent after the dump)`,
      });
    };
    try {
      try {
        const requests = await db.query<{
          id: string;
          text: string | null;
          status: string;
          blob: string | null;
        }>(
          `SELECT r.request_id::text AS id, r.payload->'message'->>'text' AS text, r.status, b.id AS blob
           FROM request_logs r LEFT JOIN media_blobs b ON b.id = r.media_blob_id`,
        );
        const byId = new Map(requests.rows.map((r) => [r.id, r]));
        const missingTexts = textsBefore.filter((t) => byId.get(t.requestId)?.text !== t.marker);
        const missingMediaSends = mediaSendsBefore.filter((m) => !byId.has(m.id!));
        const replies = await db.query<{ id: string; stored: string; bytes: string }>(
          `SELECT o.message_id AS id, encode(o.sha256, 'hex') AS stored,
                encode(sha256((SELECT string_agg(c.bytes, ''::bytea ORDER BY c.seq)
                                 FROM media_chunks c WHERE c.message_id = o.message_id)), 'hex') AS bytes
           FROM media_objects o JOIN messages m ON m.id = o.message_id
          WHERE o.message_id = ANY($1) AND o.complete`,
          [repliesBefore.map((r) => r.id)],
        );
        const replyHashes = new Map(replies.rows.map((r) => [r.id, r]));
        const badReplies = repliesBefore.filter(
          (r) => replyHashes.get(r.id!)?.stored !== r.sha256 || replyHashes.get(r.id!)?.bytes !== r.sha256,
        );
        // A Channel API file is kept until the provider has it (then deleted): a send the dump caught
        // unfinished holds it.
        waitingFiles = mediaSendsBefore.filter((m) => byId.get(m.id!)?.blob);
        const blobs = await db.query<{ id: string; bytes: string }>(
          `SELECT b.id, encode(sha256(coalesce(b.bytes, (SELECT string_agg(c.bytes, ''::bytea ORDER BY c.seq)
                  FROM media_blob_chunks c WHERE c.blob_id = b.id))), 'hex') AS bytes
           FROM media_blobs b WHERE b.id = ANY($1)`,
          [waitingFiles.map((m) => byId.get(m.id!)!.blob)],
        );
        const blobHashes = new Map(blobs.rows.map((r) => [r.id, r.bytes]));
        const badWaiting = waitingFiles.filter((m) => blobHashes.get(byId.get(m.id!)!.blob!) !== m.sha256);
        unsettled = new Set(
          requests.rows.filter((r) => r.status === 'queued' || r.status === 'processing').map((r) => r.id),
        );

        figures = {
          lost: missingTexts.length + badReplies.length + missingMediaSends.length,
          waiting: waitingFiles.length,
          unsettled: unsettled.size,
        };
        assert.deepEqual(missingTexts, [], 'every text accepted before the dump is in the restore');
        assert.deepEqual(
          missingMediaSends,
          [],
          'every Channel API file send accepted before the dump is in it',
        );
        assert.deepEqual(
          badReplies,
          [],
          "every agent's file accepted before the dump is in it, bytes identical",
        );
        assert.deepEqual(
          badWaiting,
          [],
          'every file waiting for its provider upload is in it, bytes identical',
        );
      } finally {
        await db.end();
      }

      // A node on the restore: a new Redis, the same ATENDE_JWT_SECRET, a provider of its own to tell
      // its sends from node A's.
      redisB = await startOwnRedis();
      fakeB = await ThreadedFakeGraph.start({ messageIdsAfter: 1_000_000_000 });
      const [port, gatewayPort] = (await freePorts(2)) as [number, number];
      nodeB = spawnNode(MAIN, [], {
        HOST: '127.0.0.1',
        PORT: String(port),
        GATEWAY_PORT: String(gatewayPort),
        DATABASE_URL: pgB.url('atende'),
        REDIS_URL: redisB.url,
        ATENDE_JWT_SECRET: JWT_SECRET,
        ATENDE_RATE_LIMIT_POINTS: '100000000',
        WHATSAPP_GRAPH_BASE_URL: fakeB.url,
      });
      await nodeB.waitForLog((l) => l.msg === 'Atende is running');
      const b = `http://127.0.0.1:${port}`;

      const ready = await http(b, 'GET', '/readyz');
      assert.deepEqual([ready.status, ready.json], [200, { status: 'ok' }]);
      const login = await http(b, 'POST', '/auth/login', {
        body: { email: ADMIN_EMAIL, password: ADMIN_PASSWORD },
      });
      assert.equal(login.status, 200, 'the users are restored');
      const adminOnB = { authorization: `Bearer ${login.json.accessToken as string}` };
      // The channel key issued on A still works: keys are kept (hashed) in the database.
      const followed = await Promise.all(
        textsBefore.map(async (t) => {
          const r = await http(b, 'GET', `/channel-api/messages/requests/${t.requestId}`, {
            headers: { 'x-channel-api-key': a.channelKey },
          });
          return r.status;
        }),
      );
      assert.deepEqual(
        followed.filter((s) => s !== 200),
        [],
        'every restored request is followed through the API',
      );
      for (const r of repliesBefore) {
        const res = await fetch(`${b}/api/messages/${r.id}/media`, { headers: adminOnB });
        assert.equal(res.status, 200);
        assert.equal(sha256(new Uint8Array(await res.arrayBuffer())), r.sha256, 'the file is served as sent');
      }

      // The node sends: a new message, and the sends the restore held unfinished (each once).
      const marker = 'fault-after-restore';
      const sent = await http(b, 'POST', '/channel-api/messages/send', {
        headers: { 'x-channel-api-key': a.channelKey },
        body: { contact: { value: '5511954321000' }, message: { type: 'text', text: { value: marker } } },
      });
      assert.equal(sent.status, 201, JSON.stringify(sent.json));
      const check = new pg.Client({ connectionString: pgB.url('atende') });
      await check.connect();
      try {
        const drained = await until(async () => {
          const { rows } = await check.query(
            `SELECT 1 FROM request_logs WHERE status IN ('queued', 'processing') LIMIT 1`,
          );
          return rows.length === 0;
        }, 60_000);
        assert.ok(drained, 'the restored node sends what the restore held unfinished');
        const { rows } = await check.query<{ id: string; status: string }>(
          `SELECT request_id::text AS id, status FROM request_logs WHERE request_id = ANY($1)`,
          [[...textsBefore.map((t) => t.requestId), ...mediaSendsBefore.map((m) => m.id)]],
        );
        assert.deepEqual(
          rows.filter((r) => r.status !== 'sent'),
          [],
          'every request accepted before the dump is sent',
        );
      } finally {
        await check.end();
      }
      const fromB = new Set(fakeB.requests.map(textOf).filter((m) => m !== null));
      assert.ok(fromB.has(marker), 'a send made on the restored node reaches the provider');
      const expected = new Set(textsBefore.filter((t) => unsettled.has(t.requestId)).map((t) => t.marker));
      for (const m of expected) assert.ok(fromB.has(m), `${m}, unfinished in the restore, is sent`);
      const settledBefore = new Set(
        textsBefore.filter((t) => !unsettled.has(t.requestId)).map((t) => t.marker),
      );
      assert.deepEqual(
        [...fromB].filter((m) => settledBefore.has(m)),
        [],
        'no send the restore holds as sent goes out again',
      );
      // A waiting file the node uploads is the file that was sent to A.
      const uploads = new Map<string, string>();
      for (const r of fakeB.requests) {
        const f = r.form?.file;
        if (f && 'bytes' in f) uploads.set(f.filename, sha256(f.bytes));
      }
      for (const m of waitingFiles) {
        const uploaded = uploads.get(m.filename);
        if (uploaded !== undefined) assert.equal(uploaded, m.sha256, `${m.filename} is uploaded as sent`);
      }
    } finally {
      report();
    }
  });
});
