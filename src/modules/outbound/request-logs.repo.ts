import { sql, type Selectable } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type {
  ChannelHealth,
  ProviderErrorInfo,
  ProviderName,
  RequestContact,
  RequestLogsTable,
  RequestStatus,
} from '../../db/types.js';
import { Statement } from '../../db/prepared.js';
import { SendQueue, type QueuedSend } from '../../jobs/send-queue.js';
import type { DeliveryDetails } from '../../providers/types.js';
import type { RequestMessage } from '../message-content/index.js';

/** What a request log row keeps of the message: the prepared message (media without its bytes). */
export interface RequestPayload {
  message: RequestMessage;
  /** TextMessage.pushName, kept with the stored message. */
  pushName?: string;
  /** The bot whose key sent it into its chat (`sendChatMessage`): the message is stored as the bot's. */
  botId?: string;
  /**
   * The W3C `traceparent` of the request that accepted it, when traced: the worker's span continues
   * that trace, on whichever node it runs, and a status webhook links back to it (docs/adr/0098-traces.md).
   */
  traceparent?: string;
}

export interface NewRequest {
  request_id: string;
  account_id: string;
  channel_id: string;
  idempotency_key: string | null;
  flow_id: string | null;
  metadata: Record<string, string>;
  contact: RequestContact;
  message_type: 'text' | 'template' | 'media';
  template_name: string | null;
  close_conversation: boolean;
  payload: RequestPayload;
  media_blob_id: string | null;
}

/**
 * A stored request: what was accepted and how it went (the idempotency key stays in the table), its
 * payload read as the prepared message it was stored as.
 */
export type RequestRow = Omit<Selectable<RequestLogsTable>, 'idempotency_key' | 'payload'> & {
  payload: RequestPayload;
};

/**
 * A request as its log shows it: the row, and what the provider reported with its message's delivery
 * statuses (`messages.delivery`, read through the message rather than copied, so the two never
 * disagree and a status webhook writes one row).
 */
export type RequestLogEntry = RequestRow & { delivery: DeliveryDetails | null };

export interface RequestFilter {
  channelId: string;
  requestId?: string;
  status?: RequestStatus;
  flowId?: string;
}

const IDEMPOTENCY_WINDOW = sql`interval '24 hours'`;

const columns = [
  'request_id',
  'account_id',
  'channel_id',
  'status',
  'flow_id',
  'metadata',
  'contact',
  'message_type',
  'template_name',
  'close_conversation',
  'payload',
  'media_blob_id',
  'message_id',
  'provider_message_id',
  'error',
  'attempts',
  'chat_id',
  'created_at',
  'updated_at',
] as const;

const prefixed = columns.map((c) => `r.${c}` as const);

/** The channel request log (`request_logs`); a request's media waits in `media_blobs` (MediaBlobsRepo). */
export class RequestLogsRepo {
  constructor(private readonly db: Db) {}

  /**
   * Frees idempotency keys older than the window on these channels, so they may be used again: the
   * unique index then only ever holds keys still in their window.
   */
  async clearExpiredKeys(tx: Tx, keys: Array<{ channelId: string; key: string }>): Promise<void> {
    if (keys.length === 0) return;
    await sql`
      UPDATE request_logs SET idempotency_key = NULL
      WHERE (channel_id, idempotency_key) IN (
        SELECT * FROM unnest(${keys.map((k) => k.channelId)}::text[], ${keys.map((k) => k.key)}::text[]))
        AND created_at < now() - ${IDEMPOTENCY_WINDOW}`.execute(tx);
  }

  /** Inserts the rows whose idempotency key is free; returns the ids actually inserted. */
  async insertMany(tx: Tx, rows: NewRequest[]): Promise<Set<string>> {
    const inserted = await tx
      .insertInto('request_logs')
      .values(
        rows.map((r) => ({
          ...r,
          status: 'queued' as const,
          metadata: JSON.stringify(r.metadata),
          contact: JSON.stringify(r.contact),
          payload: JSON.stringify(r.payload),
        })),
      )
      .onConflict((oc) =>
        oc.columns(['channel_id', 'idempotency_key']).where('idempotency_key', 'is not', null).doNothing(),
      )
      .returning('request_id')
      .execute();
    return new Set(inserted.map((r) => r.request_id));
  }

  /** `channelId \u0000 key` → request id of the row holding that idempotency key. */
  async findByKeys(tx: Tx, keys: Array<{ channelId: string; key: string }>): Promise<Map<string, string>> {
    if (keys.length === 0) return new Map();
    const { rows } = await sql<{ channel_id: string; idempotency_key: string; request_id: string }>`
      SELECT channel_id, idempotency_key, request_id FROM request_logs
      WHERE (channel_id, idempotency_key) IN (
        SELECT * FROM unnest(${keys.map((k) => k.channelId)}::text[], ${keys.map((k) => k.key)}::text[]))`.execute(
      tx,
    );
    return new Map(rows.map((r) => [keyOf(r.channel_id, r.idempotency_key), r.request_id]));
  }

  /**
   * `insertMany` and `SendQueue.enqueue` as one prepared statement, for requests without an
   * idempotency key, which cannot conflict: one round trip and one commit, and PostgreSQL parses it
   * once per connection and soon keeps one generic plan. Rows and jobs travel as two JSON parameters.
   */
  async insertQueued(rows: NewRequest[], sends: readonly QueuedSend[]): Promise<void> {
    await insertQueuedStatement.execute(this.db, [JSON.stringify(rows), SendQueue.jobsJson(sends)]);
  }

  async find(channelId: string, requestId: string): Promise<RequestLogEntry | undefined> {
    const row = await this.db
      .selectFrom('request_logs as r')
      .leftJoin('messages as m', 'm.id', 'r.message_id')
      .select([...prefixed, 'm.delivery'])
      .where('r.channel_id', '=', channelId)
      .where('r.request_id', '=', requestId)
      .executeTakeFirst();
    return row && rowOf(row);
  }

  /** One page, newest first; each filter is served by an index in that order. */
  async list(
    f: RequestFilter,
    page: number,
    limit: number,
  ): Promise<{ total: number; rows: RequestLogEntry[] }> {
    let q = this.db.selectFrom('request_logs as r').where('r.channel_id', '=', f.channelId);
    if (f.requestId !== undefined) q = q.where('r.request_id', '=', f.requestId);
    if (f.status !== undefined) q = q.where('r.status', '=', f.status);
    if (f.flowId !== undefined) q = q.where('r.flow_id', '=', f.flowId);
    const pageOf = q
      .select(prefixed)
      .orderBy('r.created_at', 'desc')
      .orderBy('r.request_id', 'desc')
      .limit(limit)
      .offset((page - 1) * limit)
      .as('p');
    const [rows, count] = await Promise.all([
      // The page first, then its messages by primary key: at most `limit` lookups, whatever the page.
      this.db
        .selectFrom(pageOf)
        .leftJoin('messages as m', 'm.id', 'p.message_id')
        .select([...columns.map((c) => `p.${c}` as const), 'm.delivery'])
        .orderBy('p.created_at', 'desc')
        .orderBy('p.request_id', 'desc')
        .execute(),
      q.select(sql<number>`count(*)::int8`.as('n')).executeTakeFirstOrThrow(),
    ]);
    return { total: Number(count.n), rows: rows.map(rowOf) };
  }

  /**
   * Takes requests for one attempt — `processing`, one more attempt — each with what the send needs of
   * its channel, in one statement, in no particular order. A request already settled (`sent` or
   * `failed`: a job run again must not send again) or gone with its channel is not taken; one left in
   * `processing` by a killed worker is taken again.
   */
  async claimWithChannels(requestIds: readonly string[]): Promise<
    {
      req: RequestRow;
      channel: {
        id: string;
        account_id: string;
        provider: ProviderName;
        provider_config: Record<string, unknown>;
        default_team_id: string;
        health: ChannelHealth;
      };
    }[]
  > {
    if (requestIds.length === 0) return [];
    const rows = await this.db
      .updateTable('request_logs as r')
      .from('channels as c')
      .set({ status: 'processing', attempts: sql`r.attempts + 1`, updated_at: sql`now()` })
      .whereRef('c.id', '=', 'r.channel_id')
      .whereRef('c.account_id', '=', 'r.account_id')
      .where('r.request_id', 'in', requestIds)
      .where('r.status', 'in', ['queued', 'processing'])
      .returning([
        ...prefixed,
        'c.provider as channel_provider',
        'c.provider_config as channel_provider_config',
        'c.default_team_id as channel_default_team_id',
        'c.health as channel_health',
      ])
      .execute();
    return rows.map(
      ({ channel_provider, channel_provider_config, channel_default_team_id, channel_health, ...req }) => ({
        req: rowOf(req),
        channel: {
          id: req.channel_id,
          account_id: req.account_id,
          provider: channel_provider,
          provider_config: channel_provider_config,
          default_team_id: channel_default_team_id,
          health: channel_health,
        },
      }),
    );
  }

  async setChat(tx: Tx, requestId: string, chatId: string): Promise<void> {
    await this.setChats(tx, [{ requestId, chatId }]);
  }

  /** Remembers the provider's id of the uploaded media, so a retried send does not upload again. */
  async setUploadedMedia(requestId: string, mediaId: string): Promise<void> {
    await sql`
      UPDATE request_logs
      SET payload = jsonb_set(payload, '{message,media,mediaId}', to_jsonb(${mediaId}::text)), updated_at = now()
      WHERE request_id = ${requestId}`.execute(this.db);
  }

  /** The `traceparent` the request was accepted with (null: none, or gone): for spans linked to its send. */
  async traceparentOf(db: Db, requestId: string): Promise<string | null> {
    const row = await db
      .selectFrom('request_logs')
      .select(sql<string | null>`payload->>'traceparent'`.as('traceparent'))
      .where('request_id', '=', requestId)
      .executeTakeFirst();
    return row?.traceparent ?? null;
  }

  /** Whether the request is settled (`sent` or `failed`): an outcome recorded, or a request gone. */
  async isSettled(requestId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('request_logs')
      .select('status')
      .where('request_id', '=', requestId)
      .executeTakeFirst();
    return !row || row.status === 'sent' || row.status === 'failed';
  }

  /** A temporary failure: back to `queued` with the error, waiting for the job's next attempt. */
  async requeue(requestId: string, error: ProviderErrorInfo): Promise<void> {
    await this.db
      .updateTable('request_logs')
      .set({ status: 'queued', error: JSON.stringify(error), updated_at: sql`now()` })
      .where('request_id', '=', requestId)
      .where('status', '=', 'processing')
      .execute();
  }

  /** `setChat` for several requests in one statement. */
  async setChats(tx: Tx, items: readonly { requestId: string; chatId: string }[]): Promise<void> {
    if (items.length === 0) return;
    await sql`
      UPDATE request_logs r SET chat_id = v.chat_id, updated_at = now()
      FROM unnest(${items.map((i) => i.requestId)}::uuid[], ${items.map((i) => i.chatId)}::text[]) AS v(id, chat_id)
      WHERE r.request_id = v.id`.execute(tx);
  }

  /** `markSent` for several requests in one statement, with the chat each was sent in. */
  async markSentMany(
    tx: Tx,
    items: readonly { requestId: string; chatId: string; messageId: string; providerMessageId: string }[],
  ): Promise<void> {
    if (items.length === 0) return;
    await sql`
      UPDATE request_logs r
      SET status = 'sent', chat_id = v.chat_id, message_id = v.message_id,
          provider_message_id = v.provider_message_id, error = NULL, updated_at = now()
      FROM unnest(${items.map((i) => i.requestId)}::uuid[], ${items.map((i) => i.chatId)}::text[],
                  ${items.map((i) => i.messageId)}::text[], ${items.map((i) => i.providerMessageId)}::text[])
        AS v(id, chat_id, message_id, provider_message_id)
      WHERE r.request_id = v.id`.execute(tx);
  }

  /**
   * A sent request follows its message's delivery: `failed` with the provider's reason when the
   * provider reports the message failed after accepting it (e.g. 131047, the 24-hour window), and
   * `sent` again, without the error, when a later status proves it was delivered after all. Only a
   * settled request moves (one still `processing` has not stored its message yet).
   */
  async followMessage(
    tx: Tx,
    requestId: string,
    outcome: { status: 'sent'; error: null } | { status: 'failed'; error: ProviderErrorInfo },
  ): Promise<void> {
    await tx
      .updateTable('request_logs')
      .set({
        status: outcome.status,
        error: outcome.error ? JSON.stringify(outcome.error) : null,
        updated_at: sql`now()`,
      })
      .where('request_id', '=', requestId)
      .where('status', 'in', ['sent', 'failed'])
      .where('status', '<>', outcome.status)
      .execute();
  }

  async markFailed(
    tx: Tx,
    requestId: string,
    error: ProviderErrorInfo,
    messageId: string | null,
  ): Promise<void> {
    await tx
      .updateTable('request_logs')
      .set({ status: 'failed', error: JSON.stringify(error), message_id: messageId, updated_at: sql`now()` })
      .where('request_id', '=', requestId)
      .execute();
  }
}

/** The stored payload is JSON this service wrote itself (`RequestPayload`). */
function rowOf<R extends { payload: Record<string, unknown> }>(
  row: R,
): Omit<R, 'payload'> & { payload: RequestPayload } {
  return { ...row, payload: row.payload as unknown as RequestPayload };
}

export function keyOf(channelId: string, key: string): string {
  return `${channelId}\u0000${key}`;
}

const insertQueuedStatement = Statement.prepared<unknown>(`WITH requests AS (
  INSERT INTO request_logs (request_id, account_id, channel_id, status, idempotency_key, flow_id,
    metadata, contact, message_type, template_name, close_conversation, payload, media_blob_id)
  SELECT r.request_id, r.account_id, r.channel_id, 'queued', r.idempotency_key, r.flow_id,
    r.metadata, r.contact, r.message_type, r.template_name, r.close_conversation, r.payload, r.media_blob_id
  FROM jsonb_to_recordset($1::jsonb) AS r(request_id uuid, account_id text, channel_id text,
    idempotency_key text, flow_id text, metadata jsonb, contact jsonb, message_type text,
    template_name text, close_conversation boolean, payload jsonb, media_blob_id text)
), ${SendQueue.enqueueCtes('$2')}
${SendQueue.NOTIFY_SENDERS}`);
