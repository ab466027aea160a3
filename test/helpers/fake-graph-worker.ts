import { parentPort, workerData } from 'node:worker_threads';
import { FakeGraph, type FakeGraphOptions } from './fake-graph.js';

// The thread of `ThreadedFakeGraph`: a FakeGraph that reports each request, stamped as it arrives.
const port = parentPort!;
const fake = await FakeGraph.start((workerData ?? {}) as FakeGraphOptions);
port.postMessage({ url: fake.url });
for (;;) {
  const request = await fake.nextRequest();
  port.postMessage({ request, at: Date.now() });
}
