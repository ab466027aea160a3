import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exitReport, http, sleep, startCluster, type Cluster } from '../helpers/fault-cluster.js';
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

// PostgreSQL stopped for 10 s while two nodes accept and send: meanwhile requests are refused with the
// contract's 503 (Retry-After, {statusCode, message, error}) and /readyz says 503; once it is back the
// nodes serve again by themselves; nothing accepted is lost or sent twice — in particular a message
// the provider accepted just as the database went away is not sent again.

const RATE = 150;
const CONTACTS = 300;
const OUTAGE_MS = 10_000;

describe('fault: PostgreSQL stopped for 10 s under load', () => {
  let c: Cluster;
  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    await c?.close();
  });

  it('answers 503 meanwhile, recovers by itself, loses and doubles nothing', async () => {
    const load = new SendLoad(c, { rate: RATE, contacts: CONTACTS, timeoutMs: 10_000 });
    load.start();
    await sleep(6_000);
    load.phase('fault');
    const faultAt = Date.now();
    await c.pg.stop();
    const stoppedAt = Date.now();
    await sleep(OUTAGE_MS / 2);
    const ready = await Promise.all(
      c.nodes.map((n) =>
        http(n.url, 'GET', '/readyz', { timeoutMs: 10_000 }).then(
          (r) => r.status,
          () => 'no answer',
        ),
      ),
    );
    await sleep(OUTAGE_MS - (Date.now() - stoppedAt));
    await c.pg.start();
    const backAt = Date.now();
    load.phase('after');
    await sleep(10_000);
    await load.stop();
    const settled = await settle(c, load, 120_000);

    const o = outcome(load.attempts, c.fake.requests);
    const during = load.attempts.filter((a) => a.phase === 'fault');
    recordResult({
      scenario: 'postgres-outage',
      loopDelayMaxMs: c.loopDelayMaxMs(),
      load: `${RATE} req/s, ${CONTACTS} contacts, 2 nodes`,
      fault: `PostgreSQL stopped ${((backAt - faultAt) / 1000).toFixed(1)} s`,
      requests: o.requests,
      accepted: o.accepted,
      delivered: o.delivered,
      lost: o.lost.length,
      duplicated: o.duplicates,
      recoveryMs: recoveryMs(load.attempts, backAt, ['A', 'B']),
      drainMs: drainMs(c, load.attempts, backAt),
      notes:
        `answers ${JSON.stringify(o.statuses)}; /readyz during the outage ${JSON.stringify(ready)}; nodes exited: ` +
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
    assert.deepEqual(ready, [503, 503], '/readyz answers 503 while the database is down');
    assert.ok(
      during.some((a) => a.status === 503),
      'requests during the outage are refused with 503',
    );
    assertRefusalsAre503(load.attempts);
    assert.notEqual(recoveryMs(load.attempts, backAt, ['A', 'B']), null, 'both nodes accept again');
  });
});
