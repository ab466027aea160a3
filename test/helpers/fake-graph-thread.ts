import { Worker } from 'node:worker_threads';
import type { FakeGraphOptions, RecordedRequest } from './fake-graph.js';

/**
 * The fake Graph API (`FakeGraph`, answering as usual) on a thread of its own, for tests whose own
 * event loop is busy (the fault suite drives a send load and console clients from it). Node accepts
 * one connection per turn of an event loop: on a loaded test loop, connections the nodes open to a
 * fake in the same thread waited in the kernel's accept queue past the provider timeout (15 s), and
 * the nodes rightly retried requests the fake then read — duplicates caused by the harness.
 */
export class ThreadedFakeGraph {
  /** Every request, in arrival order, as the fake's thread received it. */
  readonly requests: RecordedRequest[] = [];
  /** When the fake's thread received each request (ms since the epoch). */
  readonly receivedAt = new WeakMap<RecordedRequest, number>();

  private constructor(
    private readonly worker: Worker,
    readonly url: string,
  ) {
    worker.on('message', (m: { request: RecordedRequest; at: number }) => {
      this.requests.push(m.request);
      this.receivedAt.set(m.request, m.at);
    });
  }

  static async start(options: FakeGraphOptions = {}): Promise<ThreadedFakeGraph> {
    // Compiled (npm test runs the tests as JavaScript) the fake is a module beside this one; run from
    // the TypeScript source, a worker does not inherit the loader and loads it through tsx's API.
    const worker = import.meta.url.endsWith('.js')
      ? new Worker(new URL('./fake-graph-worker.js', import.meta.url), { workerData: options })
      : new Worker(
          `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ tsImport }) =>
        tsImport(${JSON.stringify(new URL('./fake-graph-worker.ts', import.meta.url).href)}, ${JSON.stringify(import.meta.url)}))`,
          { eval: true, workerData: options },
        );
    const url = await new Promise<string>((resolve, reject) => {
      worker.once('message', (m: { url: string }) => resolve(m.url));
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`fake Graph thread exited (${code})`)));
    });
    return new ThreadedFakeGraph(worker, url);
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}
