import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { recordResult } from '../helpers/fault-results.js';
import { faultCluster, loadAroundFault } from '../helpers/fault-scenario.js';
import { drainMs, recoveryMs } from '../helpers/send-load.js';

// kill -9 of one of two nodes while both accept and send: nothing accepted is lost (the other node
// takes over the killed node's leased lanes once their leases expire), the other node keeps answering,
// and the provider calls the killed node made without recording them are sent again — at-least-once:
// they are counted and reported, not asserted away.

const RATE = 150;
const CONTACTS = 300;

describe('fault: kill -9 of a node under load', () => {
  const cluster = faultCluster();

  it('loses nothing, the other node carries on, duplicates are counted', async () => {
    const c = cluster();
    const {
      load,
      settled,
      o,
      fault: killedAt,
    } = await loadAroundFault(c, { rate: RATE, contacts: CONTACTS, timeoutMs: 5_000 }, async () => {
      const at = Date.now();
      await c.killNode(0);
      return at;
    });
    const after = load.attempts.filter((a) => a.phase === 'after');
    recordResult({
      scenario: 'node-kill',
      loopDelayMaxMs: c.loopDelayMaxMs(),
      load: `${RATE} req/s, ${CONTACTS} contacts, 2 nodes`,
      fault: 'kill -9 of node A under load',
      requests: o.requests,
      accepted: o.accepted,
      delivered: o.delivered,
      lost: o.lost.length,
      duplicated: o.duplicates,
      recoveryMs: recoveryMs(load.attempts, killedAt, ['B']),
      drainMs: drainMs(c, load.attempts, killedAt),
      notes:
        `answers ${JSON.stringify(o.statuses)}; sent without an answer ${o.sentWithoutAnswer}; ` +
        `order violations ${o.orderViolations.length}`,
    });

    assert.ok(c.nodes[1]!.alive(), 'node B is still running');
    assert.equal(c.nodes[0]!.exit?.signal, 'SIGKILL');
    assert.ok(
      after.length > 0 && after.every((a) => a.node === 'B' && a.status === 201),
      'B accepted every request after the kill',
    );
    assert.ok(settled, 'every accepted message reached the provider and the queue drained');
    assert.deepEqual(o.lost, [], 'no accepted message is lost');
    assert.deepEqual(o.orderViolations, [], 'per-contact order is kept');
    assert.deepEqual(o.sentAfterRefusal, [], 'no refused request is sent');
  });
});
