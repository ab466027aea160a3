import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConsoleClient, type Envelope } from '../helpers/console-client.js';
import { exitReport, http, sleep, until } from '../helpers/fault-cluster.js';
import { recordResult } from '../helpers/fault-results.js';
import { faultCluster } from '../helpers/fault-scenario.js';

// Customer messages committed on node A around its kill -9 (customers writing through A, killed
// while they do): every one of them that was committed reaches a console client
// connected to node B — live, or through the resync the console does (`GET /api/events?after=`).
// Each opens a conversation, so each commits a `chat.new` to the team the client joined.

const ROUNDS = 5;
const CONCURRENCY = 60;

describe('fault: customer messages committed around a kill -9', () => {
  let client: ConsoleClient | null = null;
  const cluster = faultCluster(() => client?.close());

  it('every committed message reaches the console on the other node', async () => {
    const c = cluster();
    const b = c.nodes[1]!;
    const auth = { authorization: `Bearer ${c.adminToken}` };
    client = await ConsoleClient.open(b.gatewayUrl, b.url, c.adminToken, {
      userId: c.adminId,
      teamIds: [c.teamId],
    });
    /** The log's chat.new events after `seq`, read through node B as the console would. */
    const committed = async (seq: number): Promise<Envelope[]> => {
      const out: Envelope[] = [];
      let after = seq;
      for (;;) {
        const res = await http(b.url, 'GET', `/api/events?after=${after}&limit=500`, { headers: auth });
        assert.equal(res.status, 200);
        out.push(...(res.json.events as Envelope[]).filter((e) => e.event === 'chat.new'));
        if (!res.json.hasMore) return out;
        after = res.json.nextAfter as number;
      }
    };
    const lastSeq = async () => {
      const res = await http(b.url, 'GET', '/api/events?after=0&limit=1', { headers: auth });
      let after = res.json.nextAfter as number;
      // Walk to the end of the log.
      for (let more = res.json.hasMore as boolean; more;) {
        const next = await http(b.url, 'GET', `/api/events?after=${after}&limit=500`, { headers: auth });
        after = next.json.nextAfter as number;
        more = next.json.hasMore as boolean;
      }
      return after;
    };

    let phone = 0;
    let requests = 0;
    let requestsBefore = 0;
    const committedEvents: Envelope[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const a = c.nodes[0]!;
      const from = await lastSeq();
      // A closed loop of CONCURRENCY customers writing through A; A is killed while they do, so some
      // messages are committed by the database without A having published them (or answered).
      let running = true;
      let answered201 = 0;
      const writers = Array.from({ length: CONCURRENCY }, async () => {
        while (running) {
          const r = await http(a.url, 'POST', `/api/sandbox/channels/${c.sandboxChannelId}/inbound`, {
            headers: auth,
            body: { from: `5531977${String(++phone).padStart(6, '0')}`, text: `round ${round}` },
            timeoutMs: 30_000,
          }).catch(() => null);
          if (r === null) return;
          if (r.status === 201) answered201++;
        }
      });
      await until(() => answered201 >= 100 || !a.alive(), 60_000, 10);
      // Frozen first (SIGSTOP), then killed: the commits A had already sent complete in the database
      // while A cannot read their answers, so it dies between a commit and its publish — the window a
      // plain kill -9 only hits by chance.
      a.child.proc.kill('SIGSTOP');
      await sleep(500);
      await c.killNode(0);
      running = false;
      await Promise.all(writers);
      requests += phone - requestsBefore;
      requestsBefore = phone;

      committedEvents.push(...(await committed(from)));
      assert.ok(b.alive(), exitReport(b));
      if (round < ROUNDS - 1) await c.startNode(0);
    }

    // Bounded wait for each (a hang detector): live, or by the client's resync.
    const results = await Promise.all(
      committedEvents.map((e) => client!.waitFor((x) => x.id === e.id, 30_000)),
    );
    const missing = committedEvents.filter((_, i) => results[i] === null).map((e) => `seq ${e.seq}`);
    const via = committedEvents.map((e) => client!.events.get(e.id)?.via);
    const seenLive = via.filter((v) => v === 'live').length;
    const seenResync = via.filter((v) => v === 'resync').length;
    const total = committedEvents.length;

    recordResult({
      scenario: 'event-kill',
      loopDelayMaxMs: c.loopDelayMaxMs(),
      load: `${CONCURRENCY} concurrent customers writing to node A`,
      fault: `node A frozen 0.5 s (SIGSTOP) then kill -9 while they write (${ROUNDS} times)`,
      requests,
      accepted: total,
      delivered: seenLive + seenResync,
      lost: missing.length,
      duplicated: 0,
      recoveryMs: null,
      drainMs: null,
      notes: `committed messages (chat.new) reaching the console on B: ${seenLive} live, ${seenResync} by resync, ${missing.length} never`,
    });
    assert.deepEqual(missing, [], 'every committed message reaches the console client on node B');
  });
});
