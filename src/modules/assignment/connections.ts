import type { Logger } from 'pino';
import { newId } from '../../lib/ids.js';
import type { AssignmentRepo } from './assignment.repo.js';
import type { AvailabilityService } from './assignment.service.js';

/**
 * This gateway node's connections per user, kept in `user_connections` for the availability sweep of
 * every node (docs/adr/0085-availability-and-auto-assignment.md): a user's first connection here marks
 * the row live (and brings back an availability the sweep took), their last one going stamps it, and a
 * heartbeat renews the live rows every `heartbeatMs` — a node that dies stops renewing, so its users
 * go offline like anyone who left. Writes go one at a time, in the order the connections came and went.
 */
export class GatewayConnections {
  readonly nodeId = newId();
  private readonly counts = new Map<string, number>();
  private chain: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly repo: AssignmentRepo,
    private readonly availability: AvailabilityService,
    private readonly heartbeatMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(
      () => this.write(() => this.repo.connectionsLive(this.nodeId, [...this.counts.keys()])),
      this.heartbeatMs,
    );
    this.timer.unref();
  }

  /** A connection of the user opened on this node. */
  opened(userId: string): void {
    if (this.stopped) return;
    const n = (this.counts.get(userId) ?? 0) + 1;
    this.counts.set(userId, n);
    if (n === 1)
      this.write(async () => {
        await this.repo.connectionsLive(this.nodeId, [userId]);
        await this.availability.connected(userId);
      });
  }

  /** A connection of the user closed on this node. */
  closed(userId: string): void {
    if (this.stopped) return;
    const n = (this.counts.get(userId) ?? 0) - 1;
    if (n > 0) {
      this.counts.set(userId, n);
      return;
    }
    this.counts.delete(userId);
    this.write(() => this.repo.connectionsGone(this.nodeId, [userId]));
  }

  /** Waits for the writes so far (tests, and the stop). */
  settled(): Promise<void> {
    return this.chain;
  }

  /** The node stops: its users' connections count as gone from now. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const users = [...this.counts.keys()];
    this.counts.clear();
    this.write(() => this.repo.connectionsGone(this.nodeId, users));
    await this.chain;
  }

  private write(fn: () => Promise<void>): void {
    this.chain = this.chain.then(fn).catch((err: unknown) =>
      // The heartbeat writes again; a lost first write costs at most one sweep's wrong guess.
      this.logger.warn({ err }, 'gateway connections not recorded'),
    );
  }
}
