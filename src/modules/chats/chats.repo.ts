import { sql, type SelectQueryBuilder } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { ChatStatus, Database, LastMessage } from '../../db/types.js';

export interface ChatRow {
  id: string;
  account_id: string;
  channel_id: string;
  team_id: string;
  user_id: string | null;
  status: ChatStatus;
  queue: string;
  unread_messages: number;
  last_message: LastMessage | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  contact_id: string;
  contact_name: string | null;
  contact_value: string;
}

/** Filters of the chat lists; every one is backed by an index in list order. */
export interface ChatFilter {
  accountId: string;
  status: ChatStatus;
  channelIds?: readonly string[] | null; // allowed channels; null = all
  channelId?: string;
  queue?: string;
  teamId?: string;
  userId?: string;
  /** Visibility of an agent without chats:read_all: chats of these teams or attended by this user. */
  visibleTo?: { teamIds: readonly string[]; userId: string };
}

/** The queue kept out of every list unless asked for by name. */
export const HIDDEN_QUEUE = 'Observação';

const chatColumns = [
  'c.id',
  'c.account_id',
  'c.channel_id',
  'c.team_id',
  'c.user_id',
  'c.status',
  'c.queue',
  'c.unread_messages',
  'c.last_message',
  'c.version',
  'c.created_at',
  'c.updated_at',
  'c.contact_id',
  'ct.name as contact_name',
  'ct.value as contact_value',
] as const;

type Filterable<T extends 'chats' | 'chat_counts', O> = SelectQueryBuilder<Database, T, O>;

function applyFilter<T extends 'chats' | 'chat_counts', O>(
  q: Filterable<T, O>,
  f: ChatFilter,
): Filterable<T, O> {
  // Both tables name the filter columns alike, so one function filters the rows and their counters.
  const col = (name: 'account_id' | 'status' | 'channel_id' | 'queue' | 'team_id' | 'user_id') =>
    sql.ref(name);
  let out = q.where(col('account_id'), '=', f.accountId).where(col('status'), '=', f.status);
  if (f.queue !== undefined) out = out.where(col('queue'), '=', f.queue);
  else out = out.where(col('queue'), '<>', HIDDEN_QUEUE);
  if (f.channelId !== undefined) out = out.where(col('channel_id'), '=', f.channelId);
  if (f.channelIds)
    out = out.where(col('channel_id'), '=', sql<string>`ANY(${sql.val(f.channelIds)}::text[])`);
  if (f.teamId !== undefined) out = out.where(col('team_id'), '=', f.teamId);
  if (f.userId !== undefined) out = out.where(col('user_id'), '=', f.userId);
  if (f.visibleTo) {
    const v = f.visibleTo;
    out = out.where((eb) =>
      eb.or([
        eb(col('team_id'), '=', sql<string>`ANY(${sql.val(v.teamIds)}::text[])`),
        eb(col('user_id'), '=', v.userId),
      ]),
    );
  }
  return out;
}

export class ChatsRepo {
  constructor(private readonly db: Db) {}

  private select(db: Db | Tx = this.db) {
    return db
      .selectFrom('chats as c')
      .innerJoin('contacts as ct', 'ct.id', 'c.contact_id')
      .select(chatColumns);
  }

  /**
   * One page, newest first (createdAt, then id, both descending, so paging is stable), and the exact
   * total from the counters table, in one statement: one round trip, one plan, and the page and its
   * total read from the same snapshot. The page is cut from `chats` alone before the join, so the
   * contacts are looked up for the page's rows only, however deep the page.
   */
  async listPage(f: ChatFilter, page: number, limit: number): Promise<{ rows: ChatRow[]; total: number }> {
    const pageRows = this.db
      .selectFrom('chats')
      .select([
        'id',
        'account_id',
        'channel_id',
        'team_id',
        'user_id',
        'status',
        'queue',
        'unread_messages',
        'last_message',
        'version',
        'created_at',
        'updated_at',
        'contact_id',
      ])
      .$call((qb) => applyFilter(qb, f))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .offset((page - 1) * limit);
    const total = this.db
      .selectFrom('chat_counts')
      .select(sql<number>`coalesce(sum(n), 0)::int8`.as('total'))
      .$call((qb) => applyFilter(qb, f));
    const rows = await this.db
      .selectFrom(pageRows.as('c'))
      .innerJoin('contacts as ct', 'ct.id', 'c.contact_id')
      .select([...chatColumns, total.as('total')])
      .orderBy('c.created_at', 'desc')
      .orderBy('c.id', 'desc')
      .execute();
    // A page past the end has no row to carry the total.
    if (rows.length === 0) return { rows: [], total: await this.count(f) };
    return { rows: rows as ChatRow[], total: Number(rows[0]!.total) };
  }

  /** Exact total from the counters table (a few rows per filter combination, never the chats). */
  async count(f: ChatFilter): Promise<number> {
    const row = await this.db
      .selectFrom('chat_counts')
      .select(sql<number>`coalesce(sum(n), 0)::int8`.as('total'))
      .$call((qb) => applyFilter(qb, f))
      .executeTakeFirstOrThrow();
    return Number(row.total);
  }

  async channelExists(accountId: string, channelId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('channels')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', '=', channelId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Only what decides whether a chat can be addressed; no join. */
  async findReach(accountId: string, id: string) {
    return this.db
      .selectFrom('chats')
      .select(['channel_id', 'status'])
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  async find(accountId: string, id: string, db: Db | Tx = this.db): Promise<ChatRow | undefined> {
    return this.select(db)
      .where('c.account_id', '=', accountId)
      .where('c.id', '=', id)
      .executeTakeFirst() as Promise<ChatRow | undefined>;
  }

  /**
   * Takes the chat's row lock for the rest of the transaction: the "being processed" hold shared by
   * every operation that changes a chat. `nowait` fails at once with 55P03 when another holds it;
   * otherwise the wait is bounded by the transaction's lock_timeout.
   */
  async lock(
    tx: Tx,
    accountId: string,
    id: string,
    opts: { nowait: boolean; channelIds?: readonly string[] | null },
  ): Promise<
    | {
        id: string;
        status: ChatStatus;
        channel_id: string;
        team_id: string;
        user_id: string | null;
        queue: string;
      }
    | undefined
  > {
    let q = tx
      .selectFrom('chats')
      .select(['id', 'status', 'channel_id', 'team_id', 'user_id', 'queue'])
      .where('account_id', '=', accountId)
      .where('id', '=', id);
    if (opts.channelIds)
      q = q.where('channel_id', '=', sql<string>`ANY(${sql.val(opts.channelIds)}::text[])`);
    const locked = opts.nowait ? q.forUpdate().noWait() : q.forUpdate();
    return locked.executeTakeFirst();
  }

  async setLockTimeout(tx: Tx, ms: number): Promise<void> {
    await sql`SELECT set_config('lock_timeout', ${`${ms}ms`}, true)`.execute(tx);
  }

  async update(
    tx: Tx,
    id: string,
    patch: Partial<{
      team_id: string;
      user_id: string | null;
      queue: string;
      status: ChatStatus;
      unread_messages: number;
      last_message: LastMessage;
      closed_at: Date;
    }>,
  ): Promise<void> {
    const { last_message, ...rest } = patch;
    await tx
      .updateTable('chats')
      .set({
        ...rest,
        ...(last_message ? { last_message: JSON.stringify(last_message) } : {}),
        version: sql`version + 1`,
        updated_at: sql`now()`,
      })
      .where('id', '=', id)
      .execute();
  }

  /** A customer's message on the chat: it becomes the last message and counts as unread. */
  async recordInbound(tx: Tx, id: string, last: LastMessage): Promise<void> {
    await tx
      .updateTable('chats')
      .set({
        last_message: JSON.stringify(last),
        unread_messages: sql`unread_messages + 1`,
        version: sql`version + 1`,
        updated_at: sql`now()`,
      })
      .where('id', '=', id)
      .execute();
  }

  async insertTransfer(
    tx: Tx,
    row: {
      id: string;
      account_id: string;
      chat_id: string;
      from_team_id: string | null;
      to_team_id: string;
      from_user_id: string | null;
      to_user_id: string | null;
      reason_code: string | null;
      reason: string | null;
      actor_type: 'api_key' | 'user';
      actor_id: string;
    },
  ): Promise<void> {
    await tx.insertInto('chat_transfers').values(row).execute();
  }

  async transfers(chatId: string) {
    return this.db
      .selectFrom('chat_transfers')
      .selectAll()
      .where('chat_id', '=', chatId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** Opens a chat unless the contact already has an open one; returns the open chat's id and whether it is new. */
  async openFor(
    tx: Tx,
    row: {
      id: string;
      account_id: string;
      channel_id: string;
      contact_id: string;
      team_id: string;
      queue: string;
    },
  ): Promise<{ id: string; created: boolean }> {
    const inserted = await tx
      .insertInto('chats')
      .values(row)
      .onConflict((oc) => oc.columns(['channel_id', 'contact_id']).where('status', '=', 'open').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (inserted) return { id: inserted.id, created: true };
    const existing = await tx
      .selectFrom('chats')
      .select('id')
      .where('channel_id', '=', row.channel_id)
      .where('contact_id', '=', row.contact_id)
      .where('status', '=', 'open')
      .forUpdate()
      .executeTakeFirstOrThrow();
    return { id: existing.id, created: false };
  }
}
