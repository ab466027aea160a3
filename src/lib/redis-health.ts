import type { Redis } from 'ioredis';
import type { Logger } from 'pino';

/** Sorted set of the nodes that hand out rate-limit budgets (api role), scored by last heartbeat. */
export const NODES_KEY = 'atende:nodes';
/** A node missing heartbeats this long is no longer counted (it stopped or lost Redis). */
const NODE_TTL_MS = 15_000;
/** While Redis is unreachable, how often it is tried again (and at most how often a heartbeat runs). */
const PROBE_MS = 1_000;

export type RedisHealthListener = (up: boolean) => void;

export interface RedisHealthOptions {
  /** This process's id in the node set. */
  nodeId: string;
  /** Whether this process hands out rate-limit budgets (api role), and so counts as a node. */
  sharesBudgets: boolean;
  /** Heartbeat interval while Redis answers. */
  heartbeatMs: number;
}

/**
 * Whether this process can reach Redis, for everything that falls back without it: rate limits
 * (each node's share of the budget), `/readyz` (degraded) and live events. It follows the core
 * client's connection (a drop is seen at once, a reconnect checked at once) and a heartbeat that
 * also records this node in `atende:nodes`, so every node knows how many share the budgets when
 * Redis goes away. Going down is logged once (warn, with the reason), coming back once (info).
 */
export class RedisHealth {
  private state: 'starting' | 'up' | 'down' = 'starting';
  private why: string | null = 'not connected yet';
  private nodes = 1;
  private readonly listeners = new Set<RedisHealthListener>();
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> | null = null;
  private stopped = false;
  private lastError: string | null = null;

  constructor(
    private readonly client: Redis,
    private readonly logger: Logger,
    private readonly opts: RedisHealthOptions,
  ) {
    client.on('error', (err: Error) => (this.lastError = err.message));
    client.on('close', () => this.down(this.lastError ?? 'connection closed'));
    client.on('ready', () => void this.beat());
  }

  /** First heartbeat, after waiting up to the connect timeout for the connection; never throws. */
  async start(): Promise<void> {
    if (this.client.status !== 'ready') {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.client.off('ready', done);
          resolve();
        };
        const timer = setTimeout(done, this.client.options.connectTimeout ?? 1_000);
        this.client.once('ready', done);
      });
    }
    await this.beat();
  }

  /** Stops the heartbeat and takes this node out of the set (best effort: Redis may be away). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.beating;
    if (this.opts.sharesBudgets && this.state === 'up') {
      await this.client.zrem(NODES_KEY, this.opts.nodeId).catch(() => undefined);
    }
  }

  isUp(): boolean {
    return this.state === 'up';
  }

  /** Why Redis is considered down (null while up). */
  get reason(): string | null {
    return this.state === 'up' ? null : this.why;
  }

  /**
   * Nodes sharing rate-limit budgets as last seen while Redis answered (at least 1). A node started
   * while Redis was already away has never seen the others and counts only itself.
   */
  nodeCount(): number {
    return this.nodes;
  }

  /** Calls `fn(up)` on every change of `isUp()`; returns the unsubscribe function. */
  onChange(fn: RedisHealthListener): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** A command failed for want of Redis: stop sending until a heartbeat gets through again. */
  failed(err: unknown): void {
    this.down(err instanceof Error ? err.message : String(err));
  }

  private beat(): Promise<void> {
    this.beating ??= this.heartbeat().finally(() => {
      this.beating = null;
      this.schedule();
    });
    return this.beating;
  }

  private async heartbeat(): Promise<void> {
    if (this.stopped) return;
    try {
      const now = Date.now();
      const tx = this.client.multi();
      if (this.opts.sharesBudgets) tx.zadd(NODES_KEY, now, this.opts.nodeId);
      tx.zremrangebyscore(NODES_KEY, '-inf', now - NODE_TTL_MS).zcard(NODES_KEY);
      tx.pexpire(NODES_KEY, NODE_TTL_MS);
      const results = await tx.exec();
      const failed = results?.find(([err]) => err !== null)?.[0];
      if (!results || failed) throw failed ?? new Error('transaction discarded');
      const count = Number(results[results.length - 2]![1]);
      this.nodes = Math.max(1, count);
      this.lastError = null;
      this.up();
    } catch (err) {
      this.failed(err);
    }
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    const next = this.state === 'up' ? this.opts.heartbeatMs : Math.min(PROBE_MS, this.opts.heartbeatMs);
    this.timer = setTimeout(() => void this.beat(), next);
    this.timer.unref();
  }

  private up(): void {
    if (this.stopped || this.state === 'up') return;
    if (this.state === 'down') this.logger.info({ nodes: this.nodes }, 'redis reachable again');
    this.state = 'up';
    this.why = null;
    this.notify(true);
  }

  private down(reason: string): void {
    if (this.stopped || this.state === 'down') return;
    const wasUp = this.state === 'up';
    this.state = 'down';
    this.why = reason;
    this.logger.warn(
      { reason, nodes: this.nodes },
      'redis unreachable: rate limits fall back to this node’s share, readiness reports degraded',
    );
    if (wasUp) this.notify(false);
  }

  private notify(up: boolean): void {
    for (const fn of this.listeners) {
      try {
        fn(up);
      } catch (err) {
        this.logger.error({ err }, 'redis health listener failed');
      }
    }
  }
}
