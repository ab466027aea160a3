import { sql } from 'kysely';
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Server } from 'socket.io';
import type { Db } from '../db/index.js';
import type { Metrics } from './metrics.js';

/**
 * The gauges read when Prometheus scrapes: the database's queues (one cheap, indexed statement each,
 * the same answer on every node: aggregate them with max, not sum), this node's connection pool and
 * this node's gateway.
 */

/**
 * Messages waiting in the send queue, and how long the oldest has waited. The depth is summed over
 * the lanes with work (the due index `send_lanes_ready_idx` holds exactly those); the oldest job is
 * the first by id (acceptance order, the primary key), whether it is due or waiting for a retry.
 */
export async function sendQueueStats(db: Db): Promise<{ depth: number; oldestAgeSeconds: number }> {
  const { rows } = await sql<{ depth: number; oldest_age: number | null }>`
    SELECT
      (SELECT coalesce(sum(pending), 0)::int FROM send_lanes WHERE ready_at IS NOT NULL) AS depth,
      (SELECT extract(epoch FROM now() - created_at)::float8 FROM send_jobs ORDER BY id LIMIT 1) AS oldest_age
  `.execute(db);
  const row = rows[0];
  return { depth: row?.depth ?? 0, oldestAgeSeconds: Math.max(0, row?.oldest_age ?? 0) };
}

/**
 * Webhook deliveries not yet settled (an attempt due, waiting for its retry, or running). Counted per
 * endpoint, so that each count reads only the pending range of `webhook_deliveries_status_idx`
 * (webhook_id, status, …) rather than the whole delivery log. Kept alone so that the delivery table's
 * own queue columns can answer it when it gets them.
 */
export async function webhookBacklog(db: Db): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT coalesce(sum(p.n), 0)::int AS n
    FROM webhook_subscriptions s
    CROSS JOIN LATERAL (
      SELECT count(*) AS n FROM webhook_deliveries d WHERE d.webhook_id = s.id AND d.status = 'pending'
    ) p
  `.execute(db);
  return rows[0]?.n ?? 0;
}

/** The database gauges: send queue, webhook backlog, and the pool's connections. */
export function watchDatabase(metrics: Metrics, db: Db, pool: pg.Pool, logger: Logger): void {
  const warn = (what: string) => (err: unknown) =>
    logger.warn({ err: err instanceof Error ? err.message : String(err) }, `metrics: reading ${what} failed`);
  // One statement for both send-queue gauges, shared by the two collects of one scrape.
  let pending: Promise<{ depth: number; oldestAgeSeconds: number }> | null = null;
  const stats = () => {
    pending ??= sendQueueStats(db).finally(() => setImmediate(() => (pending = null)));
    return pending;
  };
  metrics.gauge(
    'atende_send_queue_depth',
    'Outbound messages queued and not yet sent or failed (whole database)',
    [],
    async () => [[{}, (await stats()).depth]],
    warn('the send queue'),
  );
  metrics.gauge(
    'atende_send_queue_oldest_age_seconds',
    'Age of the oldest queued outbound message; 0 when the queue is empty (whole database)',
    [],
    async () => [[{}, (await stats()).oldestAgeSeconds]],
    warn('the send queue'),
  );
  metrics.gauge(
    'atende_webhook_backlog',
    'Webhook deliveries pending: an attempt due, running, or waiting to be retried (whole database)',
    [],
    async () => [[{}, await webhookBacklog(db)]],
    warn('the webhook backlog'),
  );
  const poolGauge = (state: 'total' | 'idle' | 'waiting', help: string, read: () => number) =>
    metrics.gauge(`atende_db_pool_${state}`, help, ['pool'], () => [[{ pool: 'main' }, read()]]);
  poolGauge('total', 'Connections the PostgreSQL pool holds (this node)', () => pool.totalCount);
  poolGauge('idle', 'Idle connections of the PostgreSQL pool (this node)', () => pool.idleCount);
  poolGauge('waiting', 'Queries waiting for a pool connection (this node)', () => pool.waitingCount);
}

/** The gateway's gauges: this node's Socket.IO connections and rooms. */
export function watchGateway(metrics: Metrics, io: Server): void {
  metrics.gauge('atende_gateway_connected_sockets', 'Socket.IO clients connected to this node', [], () => [
    [{}, io.of('/').sockets.size],
  ]);
  // Socket.IO keeps one room per socket (named by its id) besides ours (src/events/rooms.ts): those
  // are left out, and ours are counted by kind, the part of the name before the colon.
  metrics.gauge(
    'atende_gateway_rooms',
    'Rooms with at least one client on this node, by kind (user, team, chat, attendance, uid)',
    ['kind'],
    () => {
      const nsp = io.of('/');
      const byKind = new Map<string, number>();
      for (const name of nsp.adapter.rooms.keys()) {
        const colon = name.indexOf(':');
        if (colon <= 0 || nsp.sockets.has(name)) continue;
        const kind = name.slice(0, colon);
        byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
      }
      return [...byKind].map(([kind, n]) => [{ kind }, n]);
    },
  );
}
