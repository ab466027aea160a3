import { randomUUID } from 'node:crypto';
import type { Static, TObject } from '@sinclair/typebox';
import { inTransaction, type Db, type Tx } from '../db/index.js';
import type { UserActor } from '../access/actors.js';
import {
  ACCESS_CHANGE,
  SCHEMA_VERSION,
  type AccessChangeData,
  type Envelope,
  type EventName,
  type EventType,
} from './catalogue.js';
import { EVENTS_CHANNEL, WEBHOOKS_CHANNEL, type EventRow, type EventsRepo } from './events.repo.js';
import { EventHorizon } from './horizon.js';
import type { Doorbell } from '../db/doorbell.js';
import { READ_ALL_TAG, room, type Target } from './rooms.js';

interface Pending {
  accountId: string;
  event: EventName | typeof ACCESS_CHANGE;
  data: Record<string, unknown>;
  target: Target;
  stamp: string[] | null;
}

/**
 * The events of one transaction: added while the change is made, written to the log just before
 * commit (`EventsService.transaction`). Once committed, the gateway's tail of the log sends them
 * (src/events/tail.ts); a rolled-back transaction leaves nothing to send.
 */
export class EventBuffer {
  private readonly pending: Pending[] = [];
  /** The highest seq written, once `write` has run (0 when nothing was). */
  written = 0;
  /** Whether the write created webhook deliveries. */
  deliveries = false;

  /**
   * `stamp` names a timestamp in `data` that the writing statement sets to the transaction's time, for
   * an event written in the change's own statement before its time is known (see `eventWritesSql`).
   */
  add<E extends EventName, S extends TObject>(
    accountId: string,
    event: EventType<E, S>,
    data: Static<S>,
    target: Target,
    stamp: readonly string[] | null = null,
  ): void {
    this.pending.push({
      accountId,
      event: event.name,
      data: data as Record<string, unknown>,
      target,
      stamp: stamp ? [...stamp] : null,
    });
  }

  /** Records that these users' access changed: the gateway re-checks their connections (ACCESS_CHANGE). */
  accessChanged(accountId: string, userIds: readonly string[]): void {
    if (userIds.length === 0) return;
    const data: AccessChangeData = { userIds: [...new Set(userIds)] };
    this.pending.push({
      accountId,
      event: ACCESS_CHANGE,
      data: data as unknown as Record<string, unknown>,
      target: { rooms: [], audience: [] },
      stamp: null,
    });
  }

  get size(): number {
    return this.pending.length;
  }

  /** The accounts with events added. */
  accounts(): string[] {
    return [...new Set(this.pending.map((p) => p.accountId))];
  }

  /** The events added for an account, in order, as the JSON the event-writing statements read (`eventWritesSql`). */
  json(accountId: string): string {
    return JSON.stringify(
      this.pending
        .filter((p) => p.accountId === accountId)
        .map((p) => ({
          id: randomUUID(),
          event: p.event,
          schema_version: SCHEMA_VERSION,
          rooms: p.target.rooms,
          audience: p.target.audience,
          data: p.data,
          stamp: p.stamp,
        })),
    );
  }

  /** Records what a statement wrote (the last seq, whether webhook deliveries were made). */
  wrote(last: number, deliveries: boolean): void {
    this.written = Math.max(this.written, last);
    this.deliveries ||= deliveries;
  }

  /**
   * Writes what was added, one statement per account, in the order added; the webhook deliveries
   * owed are created with the events (due at once: they are their own queue).
   */
  async write(tx: Tx, repo: EventsRepo): Promise<void> {
    for (const accountId of this.accounts()) {
      const { last, deliveries } = await repo.append(tx, accountId, this.json(accountId));
      this.wrote(last, deliveries);
    }
  }
}

export function toEnvelope(row: EventRow): Envelope {
  return {
    id: row.id,
    event: row.event as EventName,
    schemaVersion: row.schema_version as typeof SCHEMA_VERSION,
    seq: row.seq,
    occurredAt: row.occurred_at.toISOString(),
    accountId: row.account_id,
    data: row.data as Envelope['data'],
  };
}

/** The gateway's tail in this process, as the writer sees it (src/events/tail.ts). */
export interface LocalSender {
  /** Resolves once the events up to this seq are sent, or when this node does not send them. */
  sent(seq: number): Promise<void>;
}

/** Events deleted per statement by the retention clean-up, so no statement runs long. */
const PURGE_BATCH = 10_000;

/** How many log rows one `GET /api/events` looks at, at most, to fill its page. */
const SCAN_WINDOW = 5_000;

/** The event log: recording changes' events in their transaction, and resync. */
export class EventsService {
  private sender: LocalSender | null = null;
  /** How far the log can be read without skipping an event; shared with this process's tail. */
  readonly horizon: EventHorizon;

  constructor(
    private readonly db: Db,
    private readonly repo: EventsRepo,
    /** The teams a user belongs to, for their share of the log. */
    private readonly teams: { teamsOf(userId: string): Promise<string[]> },
    private readonly retention: { days: number; activityDays: number },
    /** Wakes the gateway's tail and the webhook workers, here and on other nodes, after commit. */
    private readonly doorbell: Doorbell,
  ) {
    this.horizon = new EventHorizon(repo);
  }

  /**
   * The gateway running in this process: a writer here waits (briefly) until it has sent the events
   * just committed, so they reach its clients before the caller's answer, as a client acting on the
   * answer expects. Any other writer only notifies; sending never depends on this.
   */
  attachSender(sender: LocalSender | null): void {
    this.sender = sender;
  }

  /**
   * `inTransaction` with an event buffer: a fresh buffer per attempt (a retried transaction starts
   * over), its events written last, so the transaction is registered as an event writer (which holds
   * back readers' horizon, src/events/horizon.ts) only from its last statement to its commit. Once
   * committed, the gateway's tail and the webhook workers are woken (the doorbell), and a writer in a
   * gateway's process waits briefly until its tail has sent them.
   */
  async transaction<T>(fn: (tx: Tx, events: EventBuffer) => Promise<T>): Promise<T> {
    let buffer = new EventBuffer();
    const result = await inTransaction(this.db, async (tx) => {
      buffer = new EventBuffer();
      const out = await fn(tx, buffer);
      await buffer.write(tx, this.repo);
      return out;
    });
    await this.committed(buffer);
    return result;
  }

  /**
   * After the commit of a change that wrote `buffer`'s events (by `transaction`, or in a statement of
   * its own with `eventWritesSql`): wakes the gateway's tail and the webhook workers (the doorbell), and
   * in a gateway's process waits briefly until its tail has sent them.
   */
  async committed(buffer: EventBuffer): Promise<void> {
    if (buffer.written === 0) return;
    this.doorbell.ring(EVENTS_CHANNEL);
    if (buffer.deliveries) this.doorbell.ring(WEBHOOKS_CHANNEL);
    if (this.sender) await this.sender.sent(buffer.written);
  }

  /**
   * Deletes events past the retention period, in batches; conversations' activity events (their
   * timeline's lines) past their own, longer one. How many went.
   */
  async purgeExpired(now = new Date()): Promise<number> {
    const daysAgo = (days: number) => new Date(now.getTime() - days * 24 * 3600 * 1000);
    let total = 0;
    for (const [days, activity] of [
      [this.retention.days, false],
      [this.retention.activityDays, true],
    ] as const) {
      for (;;) {
        const n = await this.repo.deleteOlderThan(daysAgo(days), PURGE_BATCH, activity);
        total += n;
        if (n < PURGE_BATCH) break;
      }
    }
    return total;
  }

  /**
   * A seq to resume from (`session.ready`): every event committed before the call is at or below it,
   * so a client that has loaded its state and misses later events resyncs from here. One horizon
   * step, shared by the connections arriving together (src/events/horizon.ts).
   */
  async resumeSeq(): Promise<number> {
    return this.horizon.fresh();
  }

  /**
   * The user's share of the log after `after`: events of their own user room, of their account, of
   * their teams (every team with chats:read_all) and of the chats they could see when the event happened. `nextAfter`
   * is where to continue; `hasMore` says whether to call again right away.
   */
  async page(
    actor: UserActor,
    after: number,
    limit: number,
  ): Promise<{ events: Envelope[]; nextAfter: number; hasMore: boolean }> {
    const tags = [room.user(actor.userId), room.account(actor.accountId)];
    if (actor.permissions.has('chats:read_all')) tags.push(READ_ALL_TAG);
    else tags.push(...(await this.teams.teamsOf(actor.userId)).map(room.team));
    // Only up to a settled seq: past it, an event still being written could commit below the cursor.
    const upTo = await this.horizon.fresh();
    if (upTo <= after) return { events: [], nextAfter: after, hasMore: false };
    const { rows, scannedTo, complete } = await this.repo.page(
      actor.accountId,
      after,
      upTo,
      tags,
      limit,
      SCAN_WINDOW,
    );
    return { events: rows.map(toEnvelope), nextAfter: scannedTo, hasMore: !complete };
  }
}
