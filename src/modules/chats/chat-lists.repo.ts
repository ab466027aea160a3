import { sql } from 'kysely';
import type { Db } from '../../db/index.js';
import { Statement } from '../../db/prepared.js';
import { isoTime, limitBucket, sqlInteger } from '../../db/sql-text.js';
import type { ChatStatus } from '../../db/types.js';
import { keyActiveSql } from '../api-keys/index.js';
import { chatLabelsSql, HIDDEN_QUEUE, type ChatListRow } from './chats.repo.js';
import { slaFilterSql, type SlaFilter } from './chat-sla-state.js';

/** Filters of the chat lists; every one is backed by an index in list order. */
export interface ChatFilter {
  accountId: string;
  status: ChatStatus;
  channelIds?: readonly string[] | null; // allowed channels; null = all
  channelId?: string;
  queue?: string;
  teamId?: string;
  userId?: string;
  /** Only chats nobody attends (`user_id IS NULL`; `''` in the counters). */
  unassigned?: boolean;
  /** Only chats carrying this label. */
  labelId?: string;
  /** Only chats with a target at risk, or breached (chat-sla-state.ts); the counters do not know it. */
  sla?: SlaFilter;
  /** Visibility of an agent without chats:read_all: chats of these teams or attended by this user. */
  visibleTo?: { teamIds: readonly string[]; userId: string };
  /** The customer searched for (ChatSearch): a part of the number, or of the name or address. */
  search?: ChatSearch;
  /**
   * Snoozed open chats (docs/adr/0078-snooze.md), which the counters count under the status
   * `snoozed`: left out of an open list (`exclude`, the default), the only ones listed (`only`),
   * listed like any open chat (`include`: the Channel API), or, for the pending view, listed beside
   * the open chats nobody attends (`pending`). Only meaningful with status `open`.
   */
  snoozed?: SnoozedInList;
}

/** How an open list treats snoozed chats (`ChatFilter.snoozed`). */
export type SnoozedInList = 'exclude' | 'only' | 'include' | 'pending';

/** Each way's condition on `chats`, and on the counters (whose status is the list status). */
const SNOOZED: Record<SnoozedInList, { rows: string; counters: string }> = {
  exclude: { rows: `status = 'open' AND snoozed_at IS NULL`, counters: `status = 'open'` },
  only: { rows: `status = 'open' AND snoozed_at IS NOT NULL`, counters: `status = 'snoozed'` },
  include: { rows: `status = 'open'`, counters: `status IN ('open', 'snoozed')` },
  pending: {
    rows: `status = 'open' AND (user_id IS NULL OR snoozed_at IS NOT NULL)`,
    counters: `(status = 'snoozed' OR (status = 'open' AND user_id = ''))`,
  },
};

/** The filter's status, checked against the closed set before it is written into a statement's text. */
function checkedStatus(f: ChatFilter): ChatStatus {
  if (!STATUSES.has(f.status)) throw new Error(`unknown chat status ${f.status}`);
  return f.status;
}

/** The status condition of a filter on `chats` or on the counters. */
function statusSql(f: ChatFilter, counters: boolean): string {
  if (checkedStatus(f) !== 'open') return `status = '${f.status}'`;
  const way = SNOOZED[f.snoozed ?? 'exclude'];
  return counters ? way.counters : way.rows;
}

/**
 * A search by contact: `number` matches digits anywhere in the contact's value (E.164 digits);
 * `text` matches the name with accents and case ignored (`search_fold`, migration 014, stored as
 * `search_name`, migration 052), or the value
 * (an e-mail address). Both are trigram-indexed `LIKE '%…%'` on contacts.
 */
export type ChatSearch = { kind: 'number'; digits: string } | { kind: 'text'; text: string };

/** The orders of a list: newest first, longest waiting first, latest customer message first. */
export type ChatSort = 'newest' | 'longest_waiting' | 'last_customer_message';

/** Each sort's ORDER BY on `chats` (`c` is the alias; every one ends on the id, so paging is stable). */
const ORDER: Record<ChatSort, (c: string) => string> = {
  newest: (c) => `${c}created_at DESC, ${c}id DESC`,
  longest_waiting: (c) => `${c}waiting_since ASC NULLS LAST, ${c}id ASC`,
  last_customer_message: (c) => `${c}last_customer_at DESC NULLS LAST, ${c}id DESC`,
};

/** `LIKE` treats `%`, `_` and the escape character as patterns; a search means them literally. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, '\\$&');

const STATUSES: ReadonlySet<string> = new Set<ChatStatus>(['open', 'closed']);

/**
 * The WHERE clause of a chat filter, its values appended to `values`. `chats` and `chat_counts` name
 * the filter columns alike, so one clause filters the rows and their counters. The status (a closed
 * set) and the hidden queue are written into the text, so a prepared statement's generic plan is
 * costed with them; client values are always parameters.
 */
function filterSql(f: ChatFilter, values: unknown[], counters = false): string {
  const p = (v: unknown) => `$${values.push(v)}`;
  let out = `account_id = ${p(f.accountId)} AND ${statusSql(f, counters)}`;
  out += f.queue !== undefined ? ` AND queue = ${p(f.queue)}` : ` AND queue <> '${HIDDEN_QUEUE}'`;
  if (f.channelId !== undefined) out += ` AND channel_id = ${p(f.channelId)}`;
  if (f.channelIds) out += ` AND channel_id = ANY(${p(f.channelIds)}::text[])`;
  if (f.teamId !== undefined) out += ` AND team_id = ${p(f.teamId)}`;
  if (f.userId !== undefined) out += ` AND user_id = ${p(f.userId)}`;
  if (f.unassigned) out += counters ? ` AND user_id = ''` : ` AND user_id IS NULL`;
  if (f.visibleTo) {
    out += ` AND (team_id = ANY(${p(f.visibleTo.teamIds)}::text[]) OR user_id = ${p(f.visibleTo.userId)})`;
  }
  return out;
}

/**
 * The label's links under the list's status, from `chat_labels_list_idx` (account, label, status,
 * newest first): the FROM and WHERE that both the label's `IN` condition and its walk (`byLabelOrder`)
 * select from. The status (a closed set) is written into the text, as in `filterSql`.
 */
function labelLinksSql(f: ChatFilter, labelId: string, values: unknown[]): string {
  const p = (v: unknown) => `$${values.push(v)}`;
  return `chat_labels WHERE account_id = ${p(f.accountId)} AND label_id = ${p(labelId)} AND chat_status = '${checkedStatus(f)}'`;
}

/**
 * The search's condition on `chats` (empty without one): the matching contacts of the account, found
 * through their trigram indexes, lead to their chats through `chats_contact_idx`. Counters cannot
 * answer it, so a searched list counts its chats.
 */
function searchSql(f: ChatFilter, values: unknown[]): string {
  const p = (v: unknown) => `$${values.push(v)}`;
  const label =
    (f.sla === undefined ? '' : ` AND ${slaFilterSql(f.sla, '')}`) +
    (f.labelId === undefined
      ? ''
      : ` AND id IN (SELECT chat_id FROM ${labelLinksSql(f, f.labelId, values)})`);
  if (!f.search) return label;
  const match =
    f.search.kind === 'number'
      ? `value LIKE '%' || ${p(f.search.digits)} || '%'`
      : (() => {
          const term = `'%' || search_fold(${p(likeEscape(f.search.text))}) || '%'`;
          return `(search_name LIKE ${term} OR value LIKE ${term})`;
        })();
  return `${label} AND contact_id IN (SELECT id FROM contacts WHERE account_id = ${p(f.accountId)} AND ${match})`;
}

/**
 * The exact total of a filter: from the counters, or by counting the chats a search matches. A filter on
 * nothing but the status, the queue and at most one of channel (or the key's channels), team,
 * attendant or label reads `chat_totals`, a few rows per queue; a search, or a label beside another
 * filter, counts the chats; any other combination sums `chat_counts`.
 */
function totalSql(f: ChatFilter, values: unknown[]): string {
  const rollup = totalsSql(f, values);
  if (rollup !== null) return rollup;
  if (f.search || f.labelId !== undefined || f.sla) {
    const where = filterSql(f, values);
    return `SELECT count(*)::int8 FROM chats WHERE ${where}${searchSql(f, values)}`;
  }
  return `SELECT coalesce(sum(n), 0)::int8 FROM chat_counts WHERE ${filterSql(f, values, true)}`;
}

/**
 * `totalSql` from `chat_totals`, or null when the filter is a combination only `chat_counts` (or
 * counting the chats) answers. A label counts as one dimension (migration 051): alone, its total is
 * a few rows; beside a channel, team or attendant, the label's chats are counted.
 */
function totalsSql(f: ChatFilter, values: unknown[]): string | null {
  const channel = f.channelId !== undefined || f.channelIds ? 1 : 0;
  const label = f.labelId !== undefined ? 1 : 0;
  const one = channel + label + (f.teamId !== undefined ? 1 : 0) + (f.userId !== undefined ? 1 : 0);
  if (one > 1 || f.search || f.sla || f.visibleTo || f.unassigned || f.snoozed === 'pending') return null;
  const p = (v: unknown) => `$${values.push(v)}`;
  let out = `SELECT coalesce(sum(n), 0)::int8 FROM chat_totals WHERE account_id = ${p(f.accountId)} AND ${statusSql(f, true)}`;
  if (f.channelId !== undefined) {
    // A channel outside the key's channels matches nothing, as in `filterSql`.
    if (f.channelIds && !f.channelIds.includes(f.channelId)) return 'SELECT 0::int8';
    out += ` AND dim = 'channel' AND value = ${p(f.channelId)}`;
  } else if (f.channelIds) out += ` AND dim = 'channel' AND value = ANY(${p(f.channelIds)}::text[])`;
  else if (f.teamId !== undefined) out += ` AND dim = 'team' AND value = ${p(f.teamId)}`;
  else if (f.userId !== undefined) out += ` AND dim = 'user' AND value = ${p(f.userId)}`;
  else if (f.labelId !== undefined) out += ` AND dim = 'label' AND value = ${p(f.labelId)}`;
  // No filter: the sum over the channels (a few rows per channel).
  else out += ` AND dim = 'channel'`;
  out += f.queue !== undefined ? ` AND queue = ${p(f.queue)}` : ` AND queue <> '${HIDDEN_QUEUE}'`;
  return out;
}

/** A chat's `sla` (ChatSlaSchema, the presenter's `chatSla`) as PostgreSQL builds it: null without a due instant. */
const chatSlaJson = (
  c: string,
) => `CASE WHEN ${c}first_response_due_at IS NULL AND ${c}resolution_due_at IS NULL THEN NULL
   ELSE json_build_object('startedAt', ${isoTime(`${c}sla_started_at`)},
     'firstResponseDueAt', ${isoTime(`${c}first_response_due_at`)},
     'firstRespondedAt', ${isoTime(`${c}first_responded_at`)},
     'firstResponseBreached', ${c}first_response_breached_at IS NOT NULL,
     'resolutionDueAt', ${isoTime(`${c}resolution_due_at`)},
     'resolutionBreached', ${c}resolution_breached_at IS NOT NULL) END`;

/**
 * A page of a filter's chats cut from `chats` alone (or, for a label, from its links: `byLabelOrder`),
 * in the sort's order (newest first by default).
 * The page size is a parameter under a literal bound (its power of two): the bound lets the planner
 * cost a generic plan as a page of a few rows, so a prepared statement settles on it, while one text
 * serves every page size up to the bound — a literal size gave each of the hundred sizes a text of
 * its own, parsed and planned again wherever the prepared statements' bound had run out (≈ 0.5 ms of
 * PostgreSQL's CPU, more than running it: bench/README.md, 2026-11-28). The scan stops at the page:
 * the outer LIMIT pulls only `limit` rows through the inner one.
 */
function pageSql(
  f: ChatFilter,
  values: unknown[],
  limit: number,
  offset: number,
  sort: ChatSort = 'newest',
): string {
  const bound = `LIMIT ${sqlInteger(limitBucket(limit))} OFFSET ${sqlInteger(offset)}`;
  let inner: string;
  if (byLabelOrder(f, sort)) {
    // The label's links in list order (`chat_labels_list_idx`), each joined to its chat, which the
    // rest of the filter checks: the page is the first links that pass, whatever the label's share.
    const where = filterSql(f, values) + searchSql({ ...f, labelId: undefined }, values);
    inner = `SELECT c.* FROM (SELECT chat_id, chat_created_at FROM ${labelLinksSql(f, f.labelId, values)}) AS l
 CROSS JOIN LATERAL (SELECT ${PAGE_COLUMNS} FROM chats WHERE id = l.chat_id AND ${where}) AS c
 ORDER BY l.chat_created_at DESC, l.chat_id DESC ${bound}`;
  } else {
    const where = filterSql(f, values) + searchSql(f, values);
    inner = `SELECT ${PAGE_COLUMNS}
 FROM chats WHERE ${where} ORDER BY ${ORDER[sort]('')}
 ${bound}`;
  }
  const size = `$${values.push(limit)}`;
  return `SELECT * FROM (${inner}) AS p
 ORDER BY ${ORDER[sort]('')} LIMIT ${size}`;
}

/** The columns of a page's chats, as `pageSql` cuts them from `chats`. */
const PAGE_COLUMNS = `id, channel_id, team_id, user_id, status, queue, unread_messages, last_message,
   created_at, updated_at, contact_id, waiting_since, last_customer_at, snoozed_at, snoozed_until, snoozed_by, bot_id,
   sla_started_at, first_response_due_at, first_responded_at, first_response_breached_at, resolution_due_at, resolution_breached_at`;

/**
 * Whether a page is cut walking the label's links rather than the chats: a label list newest first,
 * unless the filter also names a channel, team, attendant, the unattended or a customer search, whose
 * own list indexes lead to fewer chats than a label's share (`chat_labels` is checked for each then).
 */
function byLabelOrder(f: ChatFilter, sort: ChatSort): f is ChatFilter & { labelId: string } {
  return (
    f.labelId !== undefined &&
    sort === 'newest' &&
    f.channelId === undefined &&
    f.teamId === undefined &&
    f.userId === undefined &&
    !f.unassigned &&
    !f.search
  );
}

/**
 * The stored last message as it is stored (JSONB's key order): every writer builds it as a
 * `LastMessage`, the schema's fields, so passing it through costs PostgreSQL half of what picking the
 * fields again would (measured in bench/README.md). Null unless an object is stored.
 */
const lastMessageJson = (column: string) => `CASE WHEN jsonb_typeof(${column}) = 'object' THEN ${column} END`;

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

/** The chat lists: a page of a filter's chats with its exact total, and the totals' upkeep. */
export class ChatListsRepo {
  constructor(private readonly db: Db) {}

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
    sort: ChatSort = 'newest',
  ): Promise<{ rows: ChatListRow[]; total: number }> {
    const offset = (page - 1) * limit;
    // Past 2^53 no page can hold a row; the literal would not even print as an integer.
    if (!Number.isSafeInteger(offset)) return { rows: [], total: await this.count(f) };
    const values: unknown[] = [];
    const total = totalSql(f, values);
    const text = `SELECT c.id, c.channel_id, c.team_id, c.user_id, c.status, c.queue, c.unread_messages,
 c.last_message, c.created_at, c.updated_at, c.contact_id, c.snoozed_at, c.snoozed_until, c.snoozed_by, c.bot_id,
 c.sla_started_at, c.first_response_due_at, c.first_responded_at, c.first_response_breached_at, c.resolution_due_at, c.resolution_breached_at,
 ct.name AS contact_name, ct.value AS contact_value,
 ct.last_inbound_at AS contact_last_inbound_at, ct.customer_id, ${chatLabelsSql('c.id')} AS labels,
 (${total}) AS total
FROM (${pageSql(f, values, limit, offset, sort)}) AS c
JOIN contacts ct ON ct.id = c.contact_id
ORDER BY ${ORDER[sort]('c.')}`;
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
   ${isoTime('c.created_at')} AS "createdAt", ${isoTime('c.updated_at')} AS "updatedAt",
   ${chatLabelsSql('c.id')} AS labels, ${chatSlaJson('c.')} AS sla) AS j`;
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
}
