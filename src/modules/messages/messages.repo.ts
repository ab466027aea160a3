import { sql, type Insertable, type Selectable } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import { Statement } from '../../db/prepared.js';
import type { RequestMedia } from '../message-content/index.js';
import type {
  ChannelHealth,
  MessageOrigin,
  MessagesTable,
  MessageStatus,
  ProviderErrorInfo,
  ProviderName,
} from '../../db/types.js';

/** A stored message, every column. */
export type MessageRow = Selectable<MessagesTable>;

/**
 * The columns a message is read with: every column of `MessagesTable`, but not the search vector the
 * database keeps beside them (migration 050), which only the search reads (`SELECT *` would carry it).
 */
const COLUMNS = [
  'id',
  'account_id',
  'chat_id',
  'channel_id',
  'origin',
  'type',
  'content',
  'status',
  'provider_message_id',
  'error',
  'request_id',
  'user_id',
  'sender_address',
  'sender_name',
  'delivery',
  'by_supervisor',
  'automation',
  'bot_id',
  'created_at',
  'updated_at',
] as const satisfies ReadonlyArray<keyof MessagesTable>;
const M_COLUMNS = COLUMNS.map((c) => `m.${c}` as const);

/** What sending an agent's reply needs: the message, where it goes and through which channel. */
export interface OutboundMessageRow {
  id: string;
  account_id: string;
  status: MessageStatus;
  type: string;
  content: Record<string, unknown>;
  contact_id: string;
  contact_value: string;
  provider_address: string | null;
  channel_id: string;
  provider: ProviderName;
  provider_config: Record<string, unknown>;
  channel_health: ChannelHealth;
}

// A customer's message already stored (`existsByProviderId`): asked once per message received.
const deliveredBefore = Statement.prepared<{ found: number }>(
  'SELECT 1 AS found FROM messages WHERE channel_id = $1::text AND provider_message_id = $2::text LIMIT 1',
);

// What the send worker reads of each message it sends (`findOutbound`), so prepared (src/db/prepared.ts).
const outboundById = Statement.prepared<OutboundMessageRow>(`SELECT m.id, m.account_id, m.status, m.type,
 m.content, c.contact_id, ct.value AS contact_value, ct.provider_address, ch.id AS channel_id, ch.provider,
 ch.provider_config, ch.health AS channel_health
FROM messages m JOIN chats c ON c.id = m.chat_id JOIN contacts ct ON ct.id = c.contact_id
 JOIN channels ch ON ch.id = m.channel_id
WHERE m.id = $1::text`);

/** A message to store: its row, with content and error as objects (written as JSON text). */
export type NewMessage = Omit<
  Insertable<MessagesTable>,
  'content' | 'error' | 'created_at' | 'updated_at'
> & {
  content: Record<string, unknown>;
  /** Why the provider refused it, for a message stored as `failed`. */
  error?: ProviderErrorInfo | null;
};

/** A message as its row is written: content and error as JSON text. */
function toRow(m: NewMessage) {
  return { ...m, content: JSON.stringify(m.content), error: m.error ? JSON.stringify(m.error) : null };
}

/**
 * Every query of the `messages` table: inbound storage and lookups by provider id, history pages,
 * replies and their delivery.
 */
export class MessagesRepo {
  async existsByProviderId(tx: Tx, channelId: string, providerMessageId: string): Promise<boolean> {
    const rows = await deliveredBefore.execute(tx, [channelId, providerMessageId]);
    return rows.length > 0;
  }

  /** The messages of a channel with these provider ids (a customer's reply, reaction or edit names one). */
  async findByProviderIds(
    tx: Tx,
    channelId: string,
    providerMessageIds: readonly string[],
  ): Promise<{ id: string; provider_message_id: string }[]> {
    if (providerMessageIds.length === 0) return [];
    const rows = await tx
      .selectFrom('messages')
      .select(['id', 'provider_message_id'])
      .where('channel_id', '=', channelId)
      .where('provider_message_id', 'in', providerMessageIds)
      .execute();
    return rows.flatMap((r) =>
      r.provider_message_id ? [{ id: r.id, provider_message_id: r.provider_message_id }] : [],
    );
  }

  /**
   * A message of the channel by provider id, locked until commit so concurrent changes to it queue:
   * a customer's edit or reaction (InboundActions, which reads its content), a delivery status
   * (MessageStatusService, which reads only where it stands: `lockStateByProviderId`).
   */
  async lockByProviderId(
    tx: Tx,
    channelId: string,
    providerMessageId: string,
  ): Promise<{ id: string; origin: MessageOrigin; content: Record<string, unknown> } | undefined> {
    return this.byProviderId(tx, channelId, providerMessageId)
      .select(['id', 'origin', 'content'])
      .forUpdate()
      .executeTakeFirst();
  }

  /** `lockByProviderId` for a delivery status, the busiest inbound traffic: no content read. */
  async lockStateByProviderId(
    tx: Tx,
    channelId: string,
    providerMessageId: string,
  ): Promise<{ id: string; status: MessageStatus; request_id: string | null } | undefined> {
    return this.byProviderId(tx, channelId, providerMessageId)
      .select(['id', 'status', 'request_id'])
      .forUpdate()
      .executeTakeFirst();
  }

  private byProviderId(tx: Tx, channelId: string, providerMessageId: string) {
    return tx
      .selectFrom('messages')
      .where('channel_id', '=', channelId)
      .where('provider_message_id', '=', providerMessageId);
  }

  async setContent(tx: Tx, id: string, content: Record<string, unknown>): Promise<void> {
    await tx
      .updateTable('messages')
      .set({ content: JSON.stringify(content), updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
  }

  /** Inserts unless the channel already has a message with this provider id (then undefined). */
  async insertUnlessDuplicate(tx: Tx, m: NewMessage): Promise<{ id: string; created_at: Date } | undefined> {
    return tx
      .insertInto('messages')
      .values(toRow(m))
      .onConflict((oc) =>
        oc
          .columns(['channel_id', 'provider_message_id'])
          .where('provider_message_id', 'is not', null)
          .doNothing(),
      )
      .returning(['id', 'created_at'])
      .executeTakeFirst();
  }

  async insert(tx: Tx, m: NewMessage): Promise<{ id: string; created_at: Date }> {
    const [stored] = await this.insertMany(tx, [m]);
    if (!stored) throw new Error('the message was not stored');
    return stored;
  }

  async insertMany(tx: Tx, rows: readonly NewMessage[]): Promise<{ id: string; created_at: Date }[]> {
    if (rows.length === 0) return [];
    return tx.insertInto('messages').values(rows.map(toRow)).returning(['id', 'created_at']).execute();
  }

  /** `setStatus` for several messages. */
  async setStatuses(db: Db | Tx, ids: readonly string[], status: MessageStatus): Promise<void> {
    if (ids.length === 0) return;
    await db
      .updateTable('messages')
      .set({ status, updated_at: sql`now()` })
      .where('id', 'in', ids)
      .execute();
  }

  async setStatus(db: Db | Tx, id: string, status: MessageStatus): Promise<void> {
    await this.setStatuses(db, [id], status);
  }

  /**
   * One page of a chat's messages, newest first. The cursor's position is read in SQL (not sent
   * back from JS, whose dates lose PostgreSQL's microseconds), and the row comparison walks
   * `messages_chat_idx` from there. One more row than asked tells whether an older page exists.
   */
  async page(db: Db | Tx, chatId: string, before: string | undefined, limit: number): Promise<MessageRow[]> {
    let q = db.selectFrom('messages as m').select(M_COLUMNS).where('m.chat_id', '=', chatId);
    if (before !== undefined) {
      q = q.where(
        sql<boolean>`(m.created_at, m.id) < (SELECT c.created_at, c.id FROM messages c WHERE c.id = ${before} AND c.chat_id = ${chatId})`,
      );
    }
    return q.orderBy('m.created_at', 'desc').orderBy('m.id', 'desc').limit(limit).execute();
  }

  /**
   * Messages on one side of a message of the chat, nearest first: `older` (it included when
   * `inclusive`) newest first, `newer` oldest first.
   */
  async pageFrom(
    db: Db | Tx,
    chatId: string,
    from: { id: string; side: 'older' | 'newer'; inclusive: boolean },
    limit: number,
  ): Promise<MessageRow[]> {
    const anchor = sql`(SELECT a.created_at, a.id FROM messages a WHERE a.id = ${from.id} AND a.chat_id = ${chatId})`;
    const cmp = from.side === 'older' ? (from.inclusive ? sql`<=` : sql`<`) : sql`>`;
    const dir = from.side === 'older' ? 'desc' : 'asc';
    return db
      .selectFrom('messages as m')
      .select(M_COLUMNS)
      .where('m.chat_id', '=', chatId)
      .where(sql<boolean>`(m.created_at, m.id) ${cmp} ${anchor}`)
      .orderBy('m.created_at', dir)
      .orderBy('m.id', dir)
      .limit(limit)
      .execute();
  }

  async existsInChat(db: Db | Tx, chatId: string, id: string): Promise<boolean> {
    const row = await db
      .selectFrom('messages')
      .select('id')
      .where('chat_id', '=', chatId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row !== undefined;
  }

  async find(db: Db | Tx, id: string): Promise<MessageRow | undefined> {
    return db.selectFrom('messages').select(COLUMNS).where('id', '=', id).executeTakeFirst();
  }

  async findMany(db: Db | Tx, ids: readonly string[]): Promise<MessageRow[]> {
    if (ids.length === 0) return [];
    return db.selectFrom('messages').select(COLUMNS).where('id', 'in', ids).execute();
  }

  async findOutbound(db: Db | Tx, id: string): Promise<OutboundMessageRow | undefined> {
    const [row] = await outboundById.execute(db, [id]);
    return row;
  }

  /** Remembers the provider's id of an uploaded media, so a retried send does not upload again. */
  async setProviderMediaId(db: Db | Tx, id: string, mediaId: string): Promise<void> {
    await db
      .updateTable('messages')
      .set({
        content: sql`jsonb_set(content, '{media,mediaId}', to_jsonb(${mediaId}::text))`,
        updated_at: sql`now()`,
      })
      .where('id', '=', id)
      .execute();
  }

  /** The outcome of a send; only a still-queued message changes, so a repeated job changes nothing. */
  async settle(
    db: Db | Tx,
    id: string,
    outcome:
      | { status: 'sent'; providerMessageId: string }
      | { status: 'failed'; error: { code: string; message: string; details?: string } },
  ): Promise<boolean> {
    const result = await db
      .updateTable('messages')
      .set(
        outcome.status === 'failed'
          ? { status: 'failed', error: JSON.stringify(outcome.error), updated_at: sql`now()` }
          : {
              status: 'sent',
              provider_message_id: outcome.providerMessageId,
              error: null,
              updated_at: sql`now()`,
            },
      )
      .where('id', '=', id)
      .where('status', '=', 'queued')
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}

/**
 * The media of an agent's reply as stored in `messages.content.media`; `mediaId` once uploaded.
 * `status` `ready` and `size`: the file is in the media store.
 */
export interface StoredMedia {
  kind: RequestMedia['kind'];
  mimetype: string;
  filename?: string;
  caption?: string;
  mediaId?: string;
  status?: 'ready';
  size?: number;
}
