import type { Logger } from 'pino';
import type { Envelope } from './catalogue.js';

/** What publishing needs of a Socket.IO server. */
export interface RoomEmitter {
  to(rooms: string | string[]): { emit(event: string, payload: Envelope): boolean };
}

/** An envelope and the rooms it goes to. */
export interface Routed {
  envelope: Envelope;
  rooms: string[];
}

/** Work after events are out, e.g. dropping watchers who may no longer see a transferred chat. */
export type AfterPublish = (events: readonly Routed[]) => Promise<void>;

/**
 * Sends committed events to Socket.IO rooms. The server it emits through is attached at start-up:
 * the gateway's own (gateway role), or, in a process without the gateway but with Redis, a server
 * that never listens and only writes into the Redis stream every gateway node reads (so events
 * reach every node and stay recoverable). With neither, publishing does nothing: the events are in
 * the log, and a single-node install runs every role in one process.
 */
export class EventPublisher {
  private io: RoomEmitter | null = null;
  private after: AfterPublish | null = null;

  constructor(private readonly logger: Logger) {}

  attach(io: RoomEmitter, after?: AfterPublish): void {
    this.io = io;
    this.after = after ?? null;
  }

  detach(io: RoomEmitter): void {
    if (this.io !== io) return;
    this.io = null;
    this.after = null;
  }

  /** Called after commit, in seq order. Never rejects: the change is already committed. */
  async publish(events: readonly Routed[]): Promise<void> {
    const io = this.io;
    if (!io || events.length === 0) return;
    for (const { envelope, rooms } of events) {
      if (rooms.length === 0) continue;
      try {
        io.to(rooms).emit(envelope.event, envelope);
      } catch (err) {
        this.logger.error({ err, event: envelope.event, seq: envelope.seq }, 'event publish failed');
      }
    }
    try {
      await this.after?.(events);
    } catch (err) {
      this.logger.error({ err }, 'after-publish step failed');
    }
  }
}
