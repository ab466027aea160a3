import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordResult } from '../helpers/fault-results.js';
import {
  assertNothingLostOrDoubled,
  exitedNodes,
  faultCluster,
  loadAroundFault,
} from '../helpers/fault-scenario.js';
import { assertRefusalsAre503, drainMs, recoveryMs } from '../helpers/send-load.js';

// PostgreSQL restarted (fast shutdown: every session ends with 57P01, then a new server on the same
// port) while two nodes accept and send: both nodes keep running, every accepted message reaches the
// provider exactly once and in each contact's order, and what is refused meanwhile is a 503.

const RATE = 150;
const CONTACTS = 300;

describe('fault: PostgreSQL restarted under load', () => {
  const cluster = faultCluster();

  it('keeps both nodes running; every accepted message is sent once, in order', async () => {
    const c = cluster();
    const { load, settled, o, fault } = await loadAroundFault(
      c,
      { rate: RATE, contacts: CONTACTS, timeoutMs: 10_000 },
      async () => {
        const faultAt = Date.now();
        await c.pg.restart();
        return { faultAt, backAt: Date.now() };
      },
    );
    const { faultAt, backAt } = fault;

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
        `answers ${JSON.stringify(o.statuses)}; nodes exited: ${exitedNodes(c)}; ` +
        `order violations ${o.orderViolations.length}; sent after a refusal ${o.sentAfterRefusal.length}`,
    });

    assertNothingLostOrDoubled(c, load, o, settled, backAt);
    assert.deepEqual(o.sentAfterRefusal, [], 'no refused request is sent');
    assertRefusalsAre503(load.attempts);
    assert.notEqual(recoveryMs(load.attempts, backAt, ['A', 'B']), null, 'both nodes accept again');
  });
});
