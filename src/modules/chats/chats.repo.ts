import { sql, type Insertable } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import { Statement } from '../../db/prepared.js';
import { isoTime } from '../../db/sql-text.js';
import { DELIVERABLE_EVENTS, EVENT_WRITES_RESULT, eventWritesSql } from '../../events/events.repo.js';
import { keyActiveSql } from '../api-keys/index.js';
import type { ChatStatus, ChatTransfersTable, LastMessage } from '../../db/types.js';

/** A chat as the lists read it. */
export interface ChatListRow {
  id: string;
  channel_id: string;
  team_id: string;
  user_id: string | null;
  status: ChatStatus;
  queue: string;
  unread_messages: number;
  last_message: LastMessage | null;
  created_at: Date;
  updated_at: Date;
  contact_id: string;
  contact_name: string | null;
  contact_value: string;
  /** When the customer last wrote on the channel (the 24-hour window's start), if ever. */
  contact_last_inbound_at: Date | null;
}

export interface ChatRow extends ChatListRow {
  account_id: string;
  version: number;
}

/** Filters of the chat lists; every one is backed by an index in list order. */
/** A chat about to be opened for a contact (`openFor`). */
export interface NewChat {
  id: string;
  account_id: string;
  channel_id: string;
  contact_id: string;
  team_id: string;
  queue: string;
}

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
  /** The customer searched for (ChatSearch): a part of the number, or of the name or address. */
  search?: ChatSearch;
}

/**
 * A search by contact: `number` matches digits anywhere in the contact's value (E.164 digits);
 * `text` matches the name with accents and case ignored (`search_fold`, migration 014), or the value
 * (an e-mail address). Both are trigram-indexed `LIKE '%…%'` on contacts.
 */
export type ChatSearch = { kind: 'number'; digits: string } | { kind: 'text'; text: string };

/** `LIKE` treats `%`, `_` and the escape character as patterns; a search means them literally. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/** The queue kept out of every list unless asked for by name. */
export const HIDDEN_QUEUE = 'Observação';

/** The queue of conversations the Channel API opened by sending, until the customer answers. */
export const QUEUE_API = 'API';

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
  'ct.last_inbound_at as contact_last_inbound_at',
] as const;

const STATUSES: ReadonlySet<string> = new Set<ChatStatus>(['open', 'closed']);

/** A validated integer written into the text (LIMIT, OFFSET): see src/db/prepared.ts. */
function int(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a row count: ${n}`);
  return String(n);
}

/**
 * The WHERE clause of a chat filter, its values appended to `values`. `chats` and `chat_counts` name
 * the filter columns alike, so one clause filters the rows and their counters. The status (a closed
 * set) and the hidden queue are written into the text, so a prepared statement's generic plan is
 * costed with them; client values are always parameters.
 */
function filterSql(f: ChatFilter, values: unknown[]): string {
  const p = (v: unknown) => `$${values.push(v)}`;
  if (!STATUSES.has(f.status)) throw new Error(`unknown chat status ${f.status}`);
  let out = `account_id = ${p(f.accountId)} AND status = '${f.status}'`;
  out += f.queue !== undefined ? ` AND queue = ${p(f.queue)}` : ` AND queue <> '${HIDDEN_QUEUE}'`;
  if (f.channelId !== undefined) out += ` AND channel_id = ${p(f.channelId)}`;
  if (f.channelIds) out += ` AND channel_id = ANY(${p(f.channelIds)}::text[])`;
  if (f.teamId !== undefined) out += ` AND team_id = ${p(f.teamId)}`;
  if (f.userId !== undefined) out += ` AND user_id = ${p(f.userId)}`;
  if (f.visibleTo) {
    out += ` AND (team_id = ANY(${p(f.visibleTo.teamIds)}::text[]) OR user_id = ${p(f.visibleTo.userId)})`;
  }
  return out;
}

/**
 * The search's condition on `chats` (empty without one): the matching contacts of the account, found
 * through their trigram indexes, lead to their chats through `chats_contact_idx`. Counters cannot
 * answer it, so a searched list counts its chats.
 */
function searchSql(f: ChatFilter, values: unknown[]): string {
  if (!f.search) return '';
  const p = (v: unknown) => `$${values.push(v)}`;
  const match =
    f.search.kind === 'number'
      ? `value LIKE '%' || ${p(f.search.digits)} || '%'`
      : (() => {
          const term = `'%' || search_fold(${p(likeEscape(f.search.text))}) || '%'`;
          return `(search_fold(name) LIKE ${term} OR value LIKE ${term})`;
        })();
  return ` AND contact_id IN (SELECT id FROM contacts WHERE account_id = ${p(f.accountId)} AND ${match})`;
}

/**
 * The exact total of a filter: from the counters, or by counting the chats a search matches. A filter on
 * nothing but the status, the queue and at most one of channel (or the key's channels), team or
 * attendant reads `chat_totals`, a few rows per queue; any other combination sums `chat_counts`.
 */
function totalSql(f: ChatFilter, values: unknown[]): string {
  if (f.search) {
    const where = filterSql(f, values);
    return `SELECT count(*)::int8 FROM chats WHERE ${where}${searchSql(f, values)}`;
  }
  const rollup = totalsSql(f, values);
  if (rollup !== null) return rollup;
  return `SELECT coalesce(sum(n), 0)::int8 FROM chat_counts WHERE ${filterSql(f, values)}`;
}

/** `totalSql` from `chat_totals`, or null when the filter is a combination only `chat_counts` answers. */
function totalsSql(f: ChatFilter, values: unknown[]): string | null {
  const channel = f.channelId !== undefined || f.channelIds ? 1 : 0;
  const one = channel + (f.teamId !== undefined ? 1 : 0) + (f.userId !== undefined ? 1 : 0);
  if (one > 1 || f.visibleTo) return null;
  const p = (v: unknown) => `$${values.push(v)}`;
  if (!STATUSES.has(f.status)) throw new Error(`unknown chat status ${f.status}`);
  let out = `SELECT coalesce(sum(n), 0)::int8 FROM chat_totals WHERE account_id = ${p(f.accountId)} AND status = '${f.status}'`;
  if (f.channelId !== undefined) {
    // A channel outside the key's channels matches nothing, as in `filterSql`.
    if (f.channelIds && !f.channelIds.includes(f.channelId)) return 'SELECT 0::int8';
    out += ` AND dim = 'channel' AND value = ${p(f.channelId)}`;
  } else if (f.channelIds) out += ` AND dim = 'channel' AND value = ANY(${p(f.channelIds)}::text[])`;
  else if (f.teamId !== undefined) out += ` AND dim = 'team' AND value = ${p(f.teamId)}`;
  else if (f.userId !== undefined) out += ` AND dim = 'user' AND value = ${p(f.userId)}`;
  // No filter: the sum over the channels (a few rows per channel).
  else out += ` AND dim = 'channel'`;
  out += f.queue !== undefined ? ` AND queue = ${p(f.queue)}` : ` AND queue <> '${HIDDEN_QUEUE}'`;
  return out;
}

/** A page of a filter's chats cut from `chats` alone, newest first (stable: createdAt, then id). */
function pageSql(f: ChatFilter, values: unknown[], limit: number, offset: number): string {
  const where = filterSql(f, values) + searchSql(f, values);
  return `SELECT id, channel_id, team_id, user_id, status, queue, unread_messages, last_message, created_at,
   updated_at, contact_id
 FROM chats WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${int(limit)} OFFSET ${int(offset)}`;
}

/**
 * The stored last message as it is stored (JSONB's key order): every writer builds it as a
 * `LastMessage`, the schema's fields, so passing it through costs PostgreSQL half of what picking the
 * fields again would (measured in bench/README.md). Null unless an object is stored.
 */
const lastMessageJson = (column: string) => `CASE WHEN jsonb_typeof(${column}) = 'object' THEN ${column} END`;

/**
 * A chat as a transfer reads it first: whether the actor sees it, whether the target may receive it,
 * and whether the acting API key (if one acts) is not revoked.
 */
export interface TransferView extends ChatRow {
  key_active: boolean;
  visible: boolean;
  target_ok: boolean;
}

// Read by every transfer before it writes (ChatsRepo.transferView).
const transferView =
  Statement.prepared<TransferView>(`SELECT c.id, c.account_id, c.channel_id, c.team_id, c.user_id,
 c.status, c.queue, c.unread_messages, c.last_message, c.version, c.created_at, c.updated_at, c.contact_id,
 ct.name AS contact_name, ct.value AS contact_value, ct.last_inbound_at AS contact_last_inbound_at,
 ($8::text IS NULL OR ${keyActiveSql('$8::text')}) AS key_active,
 ($3::text IS NULL OR $4::boolean OR c.user_id = $3::text
   OR EXISTS (SELECT 1 FROM team_members tm WHERE tm.team_id = c.team_id AND tm.user_id = $3::text)) AS visible,
 CASE WHEN $5::text = 'team'
   THEN EXISTS (SELECT 1 FROM teams t WHERE t.id = $6::text AND t.account_id = c.account_id AND t.status = 'active')
   ELSE EXISTS (SELECT 1 FROM users u WHERE u.id = $6::text AND u.account_id = c.account_id AND u.status <> 'cancelled')
 END AS target_ok
FROM chats c JOIN contacts ct ON ct.id = c.contact_id
WHERE c.id = $1::text AND c.account_id = $2::text AND ($7::text[] IS NULL OR c.channel_id = ANY($7::text[]))`);

// Transfers' writes, one transaction (ChatsRepo.applyTransfer, applyTransfers): each chat locked only if
// it is still open at the version read, then moved, its transfer recorded, its notifications and events
// written (\`eventWritesSql\`). \`$3\` is the lock_timeout, set by a filter of the scan, so before any row
// lock is asked for. The lock clause: NOWAIT for a transfer to a user (409 at once when held); none for
// a team transfer (waits up to \`$3\`); SKIP LOCKED for transfers written together, where a held chat is
// left out for its caller to write alone. Chats are locked in id order.
const transferWritesSql = (lock: '' | ' NOWAIT' | ' SKIP LOCKED') => `WITH input AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(chat_id text, version int, team_id text, user_id text,
    queue text, transfer jsonb, notifications jsonb, events jsonb)
), lk AS (
  SELECT c.id FROM chats c JOIN input i ON i.chat_id = c.id
  WHERE c.version = i.version AND c.status = 'open'
    AND set_config('lock_timeout', $3::text, true) IS NOT NULL
  ORDER BY c.id
  FOR UPDATE OF c${lock}
), up AS (
  UPDATE chats c SET team_id = i.team_id, user_id = i.user_id, queue = i.queue, version = c.version + 1,
    updated_at = now()
  FROM lk JOIN input i ON i.chat_id = lk.id WHERE c.id = lk.id
  RETURNING c.id, c.account_id, c.updated_at
), tr AS (
  INSERT INTO chat_transfers (id, account_id, chat_id, from_team_id, to_team_id, from_user_id, to_user_id,
    reason_code, reason, actor_type, actor_id)
  SELECT r.id, up.account_id, up.id, r.from_team_id, r.to_team_id, r.from_user_id, r.to_user_id,
    r.reason_code, r.reason, r.actor_type, r.actor_id
  FROM up JOIN input i ON i.chat_id = up.id, jsonb_populate_record(NULL::chat_transfers, i.transfer) AS r
  RETURNING 1
), nt AS (
  INSERT INTO notifications (id, account_id, user_id, kind, data)
  SELECT n.id, up.account_id, n.user_id, n.kind, n.data
  FROM up JOIN input i ON i.chat_id = up.id,
    jsonb_to_recordset(i.notifications) AS n(id text, user_id text, kind text, data jsonb)
  RETURNING 1
), ${eventWritesSql({ account: 'up.account_id', events: 'i.events', names: '$2::text[]', gate: 'up JOIN input i ON i.chat_id = up.id' })}
SELECT up.id, up.updated_at, ${EVENT_WRITES_RESULT} FROM up`;
const transferWrites = {
  nowait: Statement.prepared<TransferApplied & { id: string }>(transferWritesSql(' NOWAIT')),
  wait: Statement.prepared<TransferApplied & { id: string }>(transferWritesSql('')),
  skipHeld: Statement.prepared<TransferApplied & { id: string }>(transferWritesSql(' SKIP LOCKED')),
};

/** How long transfers written together wait for a lock other than a chat's (`applyTransfers`). */
const BATCH_LOCK_TIMEOUT = '2s';

/** One transfer's write: the chat as read (its version), where it goes, and what it records. */
export interface TransferChange {
  chatId: string;
  version: number;
  nowait: boolean;
  waitMs: number;
  to: { team_id: string; user_id: string | null; queue: string };
  transfer: Omit<Insertable<ChatTransfersTable>, 'account_id' | 'chat_id'>;
  notifications: readonly { id: string; user_id: string; kind: string; data: Record<string, unknown> }[];
  eventsJson: string;
}

/** What a transfer's write answers: the chat's new updated_at, and the events it wrote. */
export interface TransferApplied {
  updated_at: Date;
  last_seq: number | null;
  deliveries: boolean;
}

/** The counter tables and the columns that name one total (a row is one of its slots). */
const COUNTER_TABLES = [
  ['chat_counts', ['account_id', 'status', 'channel_id', 'team_id', 'queue', 'user_id']],
  ['chat_totals', ['account_id', 'status', 'dim', 'value', 'queue']],
] as const;

/** `ChatsRepo.foldCounts` for one counter table. */
function foldSql(table: string, key: readonly string[]): string {
  const k = key.join(', ');
  const on = (x: string, y: string) => key.map((c) => `${x}.${c} = ${y}.${c}`).join(' AND ');
  return `WITH picked AS (
  SELECT ${key.map((c) => `c.${c}`).join(', ')}, c.slot, c.n FROM ${table} c
  WHERE (${key.map((c) => `c.${c}`).join(', ')}) IN (
    SELECT ${k} FROM ${table} GROUP BY ${k} HAVING count(*) > 1 OR sum(n) = 0)
  FOR UPDATE OF c SKIP LOCKED
), kept AS (
  SELECT ${k}, min(slot) AS slot, sum(n) AS n, count(*) AS rows FROM picked GROUP BY ${k}
), gone AS (
  DELETE FROM ${table} c USING picked p, kept k
  WHERE ${on('c', 'p')} AND c.slot = p.slot AND ${on('p', 'k')} AND (k.n = 0 OR p.slot <> k.slot)
  RETURNING 1
), summed AS (
  UPDATE ${table} c SET n = k.n FROM kept k
  WHERE ${on('c', 'k')} AND c.slot = k.slot AND k.n <> 0 AND k.rows > 1
  RETURNING 1
)
SELECT (SELECT count(*) FROM gone)::int AS folded, (SELECT count(*) FROM summed) AS kept`;
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
   * contacts are looked up for the page's rows only, however deep the page. Written as SQL text per
   * filter shape so that first pages run as prepared statements (src/db/prepared.ts).
   */
  async listPage(
    f: ChatFilter,
    page: number,
    limit: number,
  ): Promise<{ rows: ChatListRow[]; total: number }> {
    const offset = (page - 1) * limit;
    // Past 2^53 no page can hold a row; the literal would not even print as an integer.
    if (!Number.isSafeInteger(offset)) return { rows: [], total: await this.count(f) };
    const values: unknown[] = [];
    const total = totalSql(f, values);
    const text = `SELECT c.id, c.channel_id, c.team_id, c.user_id, c.status, c.queue, c.unread_messages,
 c.last_message, c.created_at, c.updated_at, c.contact_id, ct.name AS contact_name, ct.value AS contact_value,
 ct.last_inbound_at AS contact_last_inbound_at,
 (${total}) AS total
FROM (${pageSql(f, values, limit, offset)}) AS c
JOIN contacts ct ON ct.id = c.contact_id
ORDER BY c.created_at DESC, c.id DESC`;
    // First pages are what clients poll; deeper pages stay unnamed, so offsets cannot fill the bound.
    const rows = await Statement.shaped<ChatListRow & { total: number }>(text, offset === 0).execute(
      this.db,
      values,
    );
    // A page past the end has no row to carry the total.
    if (rows.length === 0) return { rows: [], total: await this.count(f) };
    return { rows, total: rows[0]!.total };
  }

  /**
   * The Channel API's page as JSON text built by PostgreSQL, with its exact total: the contract's Chat
   * objects (`ChatSchema`, no window) in list order. The server passes the text through instead of
   * parsing twenty rows and serializing them again, which was most of a list request's CPU (see
   * bench/README.md). Always one row, so an empty page needs no second statement for its total.
   */
  async listApiPageJson(
    f: ChatFilter,
    page: number,
    limit: number,
    keyId: string,
  ): Promise<{ total: number; chatsJson: string; keyActive: boolean | null }> {
    const offset = (page - 1) * limit;
    if (!Number.isSafeInteger(offset))
      return { total: await this.count(f), chatsJson: '[]', keyActive: null };
    const values: unknown[] = [];
    const total = totalSql(f, values);
    const page0 = pageSql(f, values, limit, offset);
    const key = keyActiveSql(`$${values.push(keyId)}`);
    // row_to_json writes compact JSON with the aliases as keys, in this order (ChatSchema's).
    const text = `SELECT (${total}) AS total, ${key} AS key_active,
 coalesce('[' || string_agg(row_to_json(j)::text, ',' ORDER BY c.created_at DESC, c.id DESC) || ']', '[]') AS chats
FROM (${page0}) AS c
JOIN contacts ct ON ct.id = c.contact_id,
LATERAL (SELECT c.id, c.status, c.queue, c.channel_id AS "channelId", c.team_id AS "teamId", c.user_id AS "userId",
   json_build_object('id', ct.id, 'name', coalesce(ct.name, ct.value), 'value', ct.value) AS contact,
   c.unread_messages AS "unreadMessages", ${lastMessageJson('c.last_message')} AS "lastMessage",
   ${isoTime('c.created_at')} AS "createdAt", ${isoTime('c.updated_at')} AS "updatedAt") AS j`;
    const [row] = await Statement.shaped<{ total: number; chats: string; key_active: boolean }>(
      text,
      offset === 0,
    ).execute(this.db, values);
    return { total: row?.total ?? 0, chatsJson: row?.chats ?? '[]', keyActive: row?.key_active ?? null };
  }

  /**
   * Exact total: from the counters table (a few rows per filter combination, never the chats), or,
   * for a search, the chats its contacts lead to.
   */
  async count(f: ChatFilter): Promise<number> {
    const values: unknown[] = [];
    const text = `SELECT (${totalSql(f, values)}) AS total`;
    const rows = await Statement.shaped<{ total: number }>(text, true).execute(this.db, values);
    return rows[0]?.total ?? 0;
  }

  /**
   * Folds the counters' slots (migrations 020, 021) back into one row per total, and drops the totals
   * that count nothing (every chat moved out), which a sum would otherwise keep reading: of the rows no
   * transaction holds now, a total's are summed into its lowest slot (or all deleted when they sum to
   * zero), one statement per table, so every snapshot sees the same totals before and after. Held rows
   * are skipped, never waited on. Answers how many rows went.
   */
  async foldCounts(): Promise<number> {
    let folded = 0;
    for (const [table, key] of COUNTER_TABLES) {
      const { rows } = await sql<{ folded: number }>`${sql.raw(foldSql(table, key))}`.execute(this.db);
      folded += rows[0]?.folded ?? 0;
    }
    return folded;
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

  /** Several chats of an account, as `find` reads them (absent ones are left out). */
  async findMany(accountId: string, ids: readonly string[], db: Db | Tx = this.db): Promise<ChatRow[]> {
    if (ids.length === 0) return [];
    return this.select(db)
      .where('c.account_id', '=', accountId)
      .where('c.id', 'in', ids)
      .execute() as Promise<ChatRow[]>;
  }

  /**
   * Takes the chat's row lock for the rest of the transaction: the "being processed" hold shared by
   * every operation that changes a chat. `nowait` fails at once with 55P03 when another holds it;
   * otherwise the wait is bounded by the transaction's lock_timeout, which `waitMs` sets in the same
   * statement (one round trip less than `setLockTimeout` first).
   */
  async lock(
    tx: Tx,
    accountId: string,
    id: string,
    opts: { nowait: boolean; channelIds?: readonly string[] | null; waitMs?: number },
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
    // A filter of the scan, so it runs on the chat's row before the row lock is asked for.
    if (opts.waitMs !== undefined && !opts.nowait)
      q = q.where(sql<boolean>`set_config('lock_timeout', ${`${int(opts.waitMs)}ms`}, true) IS NOT NULL`);
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

  /**
   * The rule for a customer's reply to a conversation the Channel API opened: while it is in queue
   * `API` with no attendant nobody works on it, so the reply routes it as a new inbound conversation
   * on its channel is routed — to the channel's inbound queue (`Espera` unless the channel names
   * another) of the channel's default team. A chat someone attends stays with them, in its queue.
   * Runs under the chat's row lock (taken by `openFor`); answers the team and queue it left, or null
   * when the chat stays where it is.
   */
  async routeApiReply(
    tx: Tx,
    id: string,
    to: { queue: string; teamId: string },
  ): Promise<{ fromTeamId: string; fromQueue: string } | null> {
    // A channel whose inbound conversations go to `API` keeps its replies there too.
    if (to.queue === QUEUE_API) return null;
    const { rows } = await sql<{ from_team_id: string; from_queue: string }>`
      WITH before AS (SELECT team_id, queue FROM chats WHERE id = ${id})
      UPDATE chats SET queue = ${to.queue}, team_id = ${to.teamId}, version = version + 1, updated_at = now()
      WHERE id = ${id} AND status = 'open' AND queue = ${QUEUE_API} AND user_id IS NULL
      RETURNING (SELECT team_id FROM before) AS from_team_id, (SELECT queue FROM before) AS from_queue`.execute(
      tx,
    );
    const row = rows[0];
    return row ? { fromTeamId: row.from_team_id, fromQueue: row.from_queue } : null;
  }

  /**
   * A customer's message on the chat: it becomes the last message and counts as unread, and the
   * customer's 24-hour window starts again (on the contact: the window is the customer's, whichever
   * chat the message is in). One statement for both rows.
   */
  async recordInbound(tx: Tx, id: string, last: LastMessage): Promise<void> {
    await sql`
      WITH chat AS (
        UPDATE chats SET last_message = ${JSON.stringify(last)}::jsonb,
          unread_messages = unread_messages + 1, version = version + 1, updated_at = now()
        WHERE id = ${id}
        RETURNING contact_id)
      UPDATE contacts ct SET last_inbound_at = greatest(ct.last_inbound_at, now())
      FROM chat WHERE ct.id = chat.contact_id`.execute(tx);
  }

  /**
   * The chat a transfer is about to change (with its contact, as `find` reads it), whether `viewer`
   * may see it (null: an API key, which sees every chat of its channels) and whether the target team
   * (active) or user (not cancelled) is the account's. Undefined when the chat is not the account's or
   * outside `channelIds`. Nothing is locked: the write checks the chat's version.
   */
  async transferView(
    accountId: string,
    chatId: string,
    opts: {
      channelIds: readonly string[] | null;
      viewer: { userId: string; readAll: boolean } | null;
      target: { kind: 'team' | 'user'; id: string };
      /** The acting API key, checked in the same read (`key_active`). */
      keyId: string | null;
    },
  ): Promise<TransferView | undefined> {
    const [row] = await transferView.execute(this.db, [
      chatId,
      accountId,
      opts.viewer?.userId ?? null,
      opts.viewer?.readAll ?? false,
      opts.target.kind,
      opts.target.id,
      opts.channelIds,
      opts.keyId,
    ]);
    return row;
  }

  /**
   * A transfer in one statement, its own transaction: the chat locked (at once or failing with 55P03
   * when `nowait`; else within `waitMs`) if it is still open at `version`, moved, the transfer
   * recorded, the notifications and events written (`eventWritesSql`). Undefined when the chat is no
   * longer at that version (changed or closed since it was read): nothing was written.
   */
  async applyTransfer(change: TransferChange): Promise<TransferApplied | undefined> {
    const statement = change.nowait ? transferWrites.nowait : transferWrites.wait;
    const [applied] = await this.writeTransfers(statement, [change], `${int(change.waitMs)}ms`);
    return applied;
  }

  /**
   * Several transfers' writes in one transaction, one answer per change in order: undefined for a
   * chat that was held or had changed (its caller writes it alone). A chat at most once per call.
   */
  async applyTransfers(changes: readonly TransferChange[]): Promise<(TransferApplied | undefined)[]> {
    return this.writeTransfers(transferWrites.skipHeld, changes, BATCH_LOCK_TIMEOUT);
  }

  private async writeTransfers(
    statement: (typeof transferWrites)[keyof typeof transferWrites],
    changes: readonly TransferChange[],
    lockTimeout: string,
  ): Promise<(TransferApplied | undefined)[]> {
    const input = changes.map((c) => ({
      chat_id: c.chatId,
      version: c.version,
      team_id: c.to.team_id,
      user_id: c.to.user_id,
      queue: c.to.queue,
      transfer: c.transfer,
      notifications: c.notifications,
      events: JSON.parse(c.eventsJson) as unknown,
    }));
    const rows = await statement.execute(this.db, [JSON.stringify(input), DELIVERABLE_EVENTS, lockTimeout]);
    const byChat = new Map(rows.map((r) => [r.id, r]));
    return changes.map((c) => byChat.get(c.chatId));
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

  /**
   * `openFor` for several contacts (each at most once) in two statements: the chats inserted, then the
   * open ones that already existed, locked. Answers by contact id.
   */
  async openForMany(
    tx: Tx,
    rows: readonly NewChat[],
  ): Promise<Map<string, { id: string; created: boolean }>> {
    const out = new Map<string, { id: string; created: boolean }>();
    if (rows.length === 0) return out;
    const inserted = await tx
      .insertInto('chats')
      .values([...rows])
      .onConflict((oc) => oc.columns(['channel_id', 'contact_id']).where('status', '=', 'open').doNothing())
      .returning(['id', 'contact_id'])
      .execute();
    for (const r of inserted) out.set(r.contact_id, { id: r.id, created: true });
    const rest = rows.filter((r) => !out.has(r.contact_id));
    if (rest.length > 0) {
      const existing = await tx
        .selectFrom('chats')
        .select(['id', 'contact_id'])
        .where(
          'contact_id',
          'in',
          rest.map((r) => r.contact_id),
        )
        .where('channel_id', 'in', [...new Set(rest.map((r) => r.channel_id))])
        .where('status', '=', 'open')
        .orderBy('id')
        .forUpdate()
        .execute();
      for (const r of existing) out.set(r.contact_id, { id: r.id, created: false });
    }
    return out;
  }

  /** The last message of several chats, in one statement (each chat's version bumped, as `update`). */
  async setLastMessages(tx: Tx, items: readonly { chatId: string; last: LastMessage }[]): Promise<void> {
    if (items.length === 0) return;
    await sql`
      UPDATE chats c SET last_message = v.last, version = c.version + 1, updated_at = now()
      FROM unnest(${items.map((i) => i.chatId)}::text[], ${items.map((i) => JSON.stringify(i.last))}::jsonb[])
        AS v(id, last)
      WHERE c.id = v.id`.execute(tx);
  }

  /** Opens a chat unless the contact already has an open one; returns the open chat's id and whether it is new. */
  async openFor(tx: Tx, row: NewChat): Promise<{ id: string; created: boolean }> {
    const chat = (await this.openForMany(tx, [row])).get(row.contact_id);
    if (!chat) throw new Error(`no open chat for contact ${row.contact_id}`);
    return chat;
  }
}
