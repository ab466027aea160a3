import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { http, sleep } from '../helpers/fault-cluster.js';
import { recordResult } from '../helpers/fault-results.js';
import {
  assertNothingLostOrDoubled,
  exitedNodes,
  faultCluster,
  loadAroundFault,
} from '../helpers/fault-scenario.js';
import { assertRefusalsAre503, drainMs, recoveryMs } from '../helpers/send-load.js';

// PostgreSQL stopped for 10 s while two nodes accept and send: meanwhile requests are refused with the
// contract's 503 (Retry-After, {statusCode, message, error}) and /readyz says 503; once it is back the
// nodes serve again by themselves; nothing accepted is lost or sent twice — in particular a message
// the provider accepted just as the database went away is not sent again.

const RATE = 150;
const CONTACTS = 300;
const OUTAGE_MS = 10_000;

describe('fault: PostgreSQL stopped for 10 s under load', () => {
  const cluster = faultCluster();

  it('answers 503 meanwhile, recovers by itself, loses and doubles nothing', async () => {
    const c = cluster();
    const { load, settled, o, fault } = await loadAroundFault(
      c,
      { rate: RATE, contacts: CONTACTS, timeoutMs: 10_000 },
      async () => {
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
        return { faultAt, backAt: Date.now(), ready };
      },
    );
    const { faultAt, backAt, ready } = fault;

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
        `answers ${JSON.stringify(o.statuses)}; /readyz during the outage ${JSON.stringify(ready)}; ` +
        `nodes exited: ${exitedNodes(c)}; ` +
        `order violations ${o.orderViolations.length}; sent after a refusal ${o.sentAfterRefusal.length}`,
    });

    assertNothingLostOrDoubled(c, load, o, settled, backAt);
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
