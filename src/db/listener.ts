import pg from 'pg';
import type { Logger } from 'pino';
import { errorText } from '../lib/errors.js';
import { CONNECT_TIMEOUT_MS, KEEPALIVE_DELAY_MS } from './index.js';

export interface ListenerOptions {
  databaseUrl: string;
  /** The NOTIFY channel. */
  channel: string;
  /** How long a lost or refused connection waits before it is opened again; the caller's poll covers the gap. */
  retryDelayMs: number;
  /** A notification arrived, with its payload (empty when the NOTIFY gave none). */
  onNotify(payload: string): void;
  logger: Logger;
  /** What the log lines start with, e.g. `send queue`. */
  name: string;
  /** What waits for the notifications, for the log line of a failed LISTEN (`new jobs`). */
  waitsFor: string;
}

/**
 * LISTEN on a connection of its own, for a loop that also polls: a notification wakes it early.
 * Connects and keepalive are bounded like the pool's connections, so that an unreachable server means
 * a retry, not a hang; a lost connection is opened again after `retryDelayMs` until `stop`.
 */
export class Listener {
  private client: pg.Client | null = null;
  private started = false;

  constructor(private readonly opts: ListenerOptions) {}

  /** Opens the connection; once: a second call, or one while a lost connection waits to reopen, does nothing. */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.open();
  }

  async stop(): Promise<void> {
    this.started = false;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async open(): Promise<void> {
    if (!this.started) return;
    const { logger, name } = this.opts;
    const client = new pg.Client({
      connectionString: this.opts.databaseUrl,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
    });
    const retry = () => {
      if (this.client !== client || !this.started) return;
      this.client = null;
      client.end().catch(() => undefined);
      const t = setTimeout(() => void this.open(), this.opts.retryDelayMs);
      t.unref();
    };
    client.on('error', (err) => {
      logger.warn({ err: err.message }, `${name}: listener connection lost`);
      retry();
    });
    client.on('end', retry);
    client.on('notification', (n) => this.opts.onNotify(n.payload ?? ''));
    try {
      this.client = client;
      await client.connect();
      await client.query(`LISTEN ${this.opts.channel}`);
    } catch (err) {
      logger.warn({ err: errorText(err) }, `${name}: could not listen for ${this.opts.waitsFor}; polling`);
      retry();
    }
  }
}
