import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exitReport, sleep, startCluster, type Cluster } from '../helpers/fault-cluster.js';
import { recordResult } from '../helpers/fault-results.js';
import {
  assertRefusalsAre503,
  describeMarkers,
  drainMs,
  outcome,
  recoveryMs,
  SendLoad,
  settle,
} from '../helpers/send-load.js';

// PostgreSQL restarted (fast shutdown: every session ends with 57P01, then a new server on the same
// port) while two nodes accept and send: both nodes keep running, every accepted message reaches the
// provider exactly once and in each contact's order, and what is refused meanwhile is a 503.

const RATE = 150;
const CONTACTS = 300;

describe('fault: PostgreSQL restarted under load', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    await c?.close();
  });

  it('keeps both nodes running; every accepted message is sent once, in order', async () => {
    const load = new SendLoad(c, { rate: RATE, contacts: CONTACTS, timeoutMs: 10_000 });
    load.start();
    await sleep(6_000);
    load.phase('fault');
    const faultAt = Date.now();
    await c.pg.restart();
    const backAt = Date.now();
    load.phase('after');
    await sleep(10_000);
    await load.stop();
    const settled = await settle(c, load, 120_000);

    const o = outcome(load.attempts, c.fake.requests);
    recordResult({
      scenario: 'postgres-restart',
      loopDelayMaxMs: c.loopDelayMaxMs(),
      load: `${RATE} req/s, ${CONTACTS} contacts, 2 nodes`,
      fault: `PostgreSQL restarted (down ${((backAt - faultAt) / 1000).toFixed(1)} s)`,
      requests: o.requests,
      accepted: o.accepted,
      delivered: o.delivered,
      lost: o.lost.length,
      duplicated: o.duplicates,
      recoveryMs: recoveryMs(load.attempts, backAt, ['A', 'B']),
      drainMs: drainMs(c, load.attempts, backAt),
      notes:
        `answers ${JSON.stringify(o.statuses)}; nodes exited: ` +
        `${
          c.nodes
            .filter((n) => !n.alive())
            .map((n) => `${n.name} (${JSON.stringify(n.exit)})`)
            .join(', ') || 'none'
        }; ` +
        `order violations ${o.orderViolations.length}; sent after a refusal ${o.sentAfterRefusal.length}`,
    });

    for (const n of c.nodes) assert.ok(n.alive(), exitReport(n));
    assert.ok(settled, 'every accepted message reached the provider and the queue drained');
    assert.deepEqual(
      o.lost,
      [],
      `no accepted message is lost; lost:\n  ${describeMarkers(c, load.attempts, o.lost, backAt)}`,
    );
    assert.deepEqual(
      o.duplicated,
      [],
      `no message is sent twice; sent twice (times from the end of the fault):\n  ${describeMarkers(c, load.attempts, o.duplicated, backAt)}`,
    );
    assert.deepEqual(o.orderViolations, [], 'per-contact order is kept');
    assert.deepEqual(o.sentAfterRefusal, [], 'no refused request is sent');
    assertRefusalsAre503(load.attempts);
    assert.notEqual(recoveryMs(load.attempts, backAt, ['A', 'B']), null, 'both nodes accept again');
  });
});
