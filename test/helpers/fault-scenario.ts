import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { exitReport, sleep, startCluster, type Cluster } from './fault-cluster.js';
import { describeMarkers, outcome, SendLoad, settle, type LoadOptions, type Outcome } from './send-load.js';

/**
 * What every fault suite (test/faults) shares: a cluster of its own for the suite — started before its
 * tests, closed after them, what `cleanup` names first — and, for the send-load scenarios, the run
 * around the fault and the guarantees every such scenario asserts.
 */
export function faultCluster(cleanup?: () => void): () => Cluster {
  let c: Cluster | undefined;
  before(async () => {
    c = await startCluster();
  });
  after(async () => {
    cleanup?.();
    await c?.close();
  });
  return () => {
    if (!c) throw new Error('the cluster starts in the suite’s before hook');
    return c;
  };
}

/** Load before the fault, and after it. */
export const WARM_UP_MS = 6_000;
export const AFTER_FAULT_MS = 10_000;
/** How long the queue may take to drain once the load stops. */
export const SETTLE_BOUND_MS = 120_000;

/**
 * A send load on both nodes: WARM_UP_MS of it, then `fault` (its phase 'fault'), then AFTER_FAULT_MS
 * more (phase 'after'); then the load stops and the queue is given SETTLE_BOUND_MS to drain. Answers
 * the load, whether it settled, what the provider got against what was accepted, and what `fault`
 * answered.
 */
export async function loadAroundFault<T>(
  c: Cluster,
  options: LoadOptions,
  fault: () => Promise<T>,
): Promise<{ load: SendLoad; settled: boolean; o: Outcome; fault: T }> {
  const load = new SendLoad(c, options);
  load.start();
  await sleep(WARM_UP_MS);
  load.phase('fault');
  const result = await fault();
  load.phase('after');
  await sleep(AFTER_FAULT_MS);
  await load.stop();
  const settled = await settle(c, load, SETTLE_BOUND_MS);
  return { load, settled, o: outcome(load.attempts, c.fake.requests), fault: result };
}

/** The nodes that exited during a scenario, for its notes ('none' when both run). */
export function exitedNodes(c: Cluster): string {
  return (
    c.nodes
      .filter((n) => !n.alive())
      .map((n) => `${n.name} (${JSON.stringify(n.exit)})`)
      .join(', ') || 'none'
  );
}

/**
 * What a fault that kills no node must keep: both nodes running, the queue drained, no accepted
 * message lost or sent twice, each contact's order. `since`: the end of the fault, for the markers'
 * times in a failure's message.
 */
export function assertNothingLostOrDoubled(
  c: Cluster,
  load: SendLoad,
  o: Outcome,
  settled: boolean,
  since: number,
): void {
  for (const n of c.nodes) assert.ok(n.alive(), exitReport(n));
  assert.ok(settled, 'every accepted message reached the provider and the queue drained');
  assert.deepEqual(
    o.lost,
    [],
    `no accepted message is lost; lost:\n  ${describeMarkers(c, load.attempts, o.lost, since)}`,
  );
  assert.deepEqual(
    o.duplicated,
    [],
    `no message is sent twice; sent twice (times from the end of the fault):\n  ${describeMarkers(c, load.attempts, o.duplicated, since)}`,
  );
  assert.deepEqual(o.orderViolations, [], 'per-contact order is kept');
}
