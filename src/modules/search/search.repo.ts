import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/index.js';
import type { LastMessage } from '../../db/types.js';
import type { ChatSearch } from '../chats/index.js';
import { visibleSql, type Viewer } from '../history/index.js';

/** What every search is narrowed by: the account, what the reader may open, and the filters. */
export interface SearchFilter {
  accountId: string;
  viewer: Viewer;
  channelId?: string;
  teamId?: string;
  userId?: string;
  labelId?: string;
  from?: Date;
  to?: Date;
}

/** The conversation of a result, as the searches read it (`c` chats, `ct` contacts). */
export interface SearchChatRow {
  chat_id: string;
  chat_status: 'open' | 'closed';
  chat_queue: string;
  chat_channel_id: string;
  chat_team_id: string;
  chat_user_id: string | null;
  chat_created_at: Date;
  chat_closed_at: Date | null;
  chat_last_message: LastMessage | null;
  customer_id: string;
  contact_id: string;
  contact_name: string | null;
  contact_value: string;
}

export interface MessageHitRow extends SearchChatRow {
  id: string;
  origin: string;
  type: string;
  user_id: string | null;
  created_at: Date;
  text: string;
}

export interface ContactHitRow extends SearchChatRow {
  id: string;
  channel_id: string;
  name: string | null;
  value: string;
}

const chatColumns = sql`c.id AS chat_id, c.status AS chat_status, c.queue AS chat_queue,
  c.channel_id AS chat_channel_id, c.team_id AS chat_team_id, c.user_id AS chat_user_id,
  c.created_at AS chat_created_at, c.closed_at AS chat_closed_at,
  CASE WHEN jsonb_typeof(c.last_message) = 'object' THEN c.last_message END AS chat_last_message,
  ct.customer_id, ct.id AS contact_id, ct.name AS contact_name, ct.value AS contact_value`;

/**
 * The conditions on `chats` (alias `c` unless named) every search shares: account, visibility,
 * channel, team, agent, label.
 */
function chatConditions(f: SearchFilter, alias = 'c'): RawBuilder<boolean> {
  const c = sql.table(alias);
  const parts: RawBuilder<unknown>[] = [sql`${c}.account_id = ${f.accountId}`, visibleSql(f.viewer, alias)];
  if (f.channelId !== undefined) parts.push(sql`${c}.channel_id = ${f.channelId}`);
  if (f.teamId !== undefined) parts.push(sql`${c}.team_id = ${f.teamId}`);
  if (f.userId !== undefined) parts.push(sql`${c}.user_id = ${f.userId}`);
  if (f.labelId !== undefined) {
    parts.push(
      sql`EXISTS (SELECT 1 FROM chat_labels cl WHERE cl.chat_id = ${c}.id AND cl.label_id = ${f.labelId})`,
    );
  }
  return sql<boolean>`${sql.join(parts, sql` AND `)}`;
}

/** A time range on a column. */
function rangeOf(column: RawBuilder<unknown>, f: SearchFilter): RawBuilder<boolean> {
  const parts: RawBuilder<unknown>[] = [sql`true`];
  if (f.from) parts.push(sql`${column} >= ${f.from}`);
  if (f.to) parts.push(sql`${column} < ${f.to}`);
  return sql<boolean>`${sql.join(parts, sql` AND `)}`;
}

/**
 * The share of the messages (of every account: the planner's statistics are the table's) a search must
 * match to be read by walking the newest messages. Walking reads about 20 / (share × the reader's
 * share of the chats) messages for a page, a period about share × its messages, each read from a
 * period costing ≈ 10 walked ones: at 0.5 % the walk reads ≈ 10,000, a period of 800,000 messages
 * ≈ 4,000 matches (docs/adr/0101-message-search-by-period.md).
 */
const COMMON_SHARE = 0.005;

/** What `matchingWords` joins words with: a control character, in no word of letters and digits. */
const SEPARATOR = '\u0001';

/** `LIKE` treats `%`, `_` and the escape character as patterns; a search means them literally. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/**
 * Contacts matching a customer search: the trigram indexes of migrations 014 and 052 (as
 * `GET /api/chats?q=`), the name compared folded as stored (`search_name`).
 */
function contactMatch(search: ChatSearch): RawBuilder<boolean> {
  if (search.kind === 'number') return sql<boolean>`ct.value LIKE '%' || ${search.digits} || '%'`;
  const term = sql`'%' || search_fold(${likeEscape(search.text)}) || '%'`;
  return sql<boolean>`(ct.search_name LIKE ${term} OR ct.value LIKE ${term})`;
}

/**
 * The searches' statements. Each page is read one row past its end to say whether another follows
 * (no count of every match: a common word in millions of messages would cost that much).
 */
export class SearchRepo {
  constructor(private readonly db: Db) {}

  /** A search's rows: one statement, planned in one process as every statement is (`SERIAL_PLANS`). */
  private async rowsOf<R>(query: RawBuilder<R>): Promise<R[]> {
    return (await query.execute(this.db)).rows;
  }

  /**
   * Messages whose words match, newest first, compared on their stored vector (migration 050)
   * (docs/adr/0101-message-search-by-period.md). A common word's page is met walking the newest
   * messages (`messages_account_time_idx`), so it is read in one statement over every message. Any
   * other search reads by 30-day periods: the newest message's period, the one before, then
   * everything older, each an ordered page of what is still wanted, until the rows up to the page's
   * end are found; in a period the GIN index `messages_search_period_idx` intersects the period's
   * messages with the words', so only that period's matches are read from the table. The conditions
   * keep the reader's. Planned without parallel workers (`SERIAL_PLANS`).
   */
  async messages(f: SearchFilter, q: string, limit: number, offset: number): Promise<MessageHitRow[]> {
    const { newest, messages } = await this.newestPeriod(f);
    if (newest === null) return [];
    if ((await this.estimatedMatches(q)) >= messages * COMMON_SHARE) {
      return this.rowsOf(this.messagesIn(f, q, sql`true`, limit, offset));
    }
    const steps = [
      sql`search_period(m.created_at) = ${newest}`,
      sql`search_period(m.created_at) = ${newest - 1}`,
      // A range on the instant, not on the period: the index would gather every older period's messages.
      sql`m.created_at < search_period_start(${newest - 1})`,
    ];
    const wanted = offset + limit;
    const rows: MessageHitRow[] = [];
    for (const step of steps) {
      rows.push(...(await this.rowsOf(this.messagesIn(f, q, step, wanted - rows.length))));
      if (rows.length >= wanted) break;
    }
    return rows.slice(offset);
  }

  /**
   * The period of the newest message the filter's time range holds (the account's index, one entry),
   * and how many messages the planner's statistics count in all.
   */
  private async newestPeriod(f: SearchFilter): Promise<{ newest: number | null; messages: number }> {
    const { rows } = await sql<{ k: number | null; n: number }>`
      SELECT search_period(max(m.created_at)) AS k,
        (SELECT reltuples FROM pg_class WHERE oid = 'messages'::regclass) AS n
      FROM messages m
      WHERE m.account_id = ${f.accountId} AND ${rangeOf(sql`m.created_at`, f)}`.execute(this.db);
    return { newest: rows[0]?.k ?? null, messages: rows[0]?.n ?? 0 };
  }

  /**
   * How many messages the search matches, as the planner estimates from its statistics of the words
   * (`EXPLAIN`: planned, not run; ≈ 0.3 ms). The planner cannot choose between the walk and the
   * periods itself: asked for a period, it takes that period's messages for spread evenly along the
   * walk, when the newest period is where the walk begins.
   */
  private async estimatedMatches(q: string): Promise<number> {
    const { rows } = await sql<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>`
      EXPLAIN (FORMAT JSON) SELECT 1 FROM messages m
      WHERE m.search_vector @@ websearch_to_tsquery('pg_catalog.portuguese', search_words(${q}))`.execute(
      this.db,
    );
    return rows[0]?.['QUERY PLAN'][0].Plan['Plan Rows'] ?? 0;
  }

  /** Matches newest first, of the messages a step's condition holds: `limit` of them after `offset`. */
  private messagesIn(f: SearchFilter, q: string, step: RawBuilder<unknown>, limit: number, offset = 0) {
    return sql<MessageHitRow>`
      SELECT m.id, m.origin, m.type, m.user_id, m.created_at, message_search_text(m.content) AS text, ${chatColumns}
      FROM messages m JOIN chats c ON c.id = m.chat_id JOIN contacts ct ON ct.id = c.contact_id
      WHERE m.account_id = ${f.accountId} AND ${step}
        AND m.search_vector @@ websearch_to_tsquery('pg_catalog.portuguese', search_words(${q}))
        AND ${rangeOf(sql`m.created_at`, f)} AND ${chatConditions(f)}
      ORDER BY m.created_at DESC, m.id DESC
      LIMIT ${limit} OFFSET ${offset}`;
  }

  /**
   * Of these words, those a search for `q` matches (stemmed, accents and case ignored). The words are
   * folded by one `search_words` call over them joined by a character no word holds and no step of the
   * folding makes (U+0001), then split again: the folding works letter by letter and its endings stop
   * at a word's end, so each word folds as it would alone, without a function call per word (each
   * costs the function's own `search_path` setting, ≈ 10 µs).
   */
  async matchingWords(words: readonly string[], q: string): Promise<Set<string>> {
    if (words.length === 0) return new Set();
    const { rows } = await sql<{ w: string }>`
      SELECT t.w FROM (SELECT ${sql.val(words.filter((w) => !w.includes(SEPARATOR)))}::text[] AS a) p,
        unnest(p.a, string_to_array(search_words(array_to_string(p.a, E'\\x01')), E'\\x01')) AS t(w, f)
      WHERE tsvector_to_array(to_tsvector('pg_catalog.portuguese', t.f))
         && tsvector_to_array(to_tsvector('pg_catalog.portuguese', search_words(${q})))`.execute(this.db);
    return new Set(rows.map((r) => r.w));
  }

  /**
   * Contacts matching the search, each with the newest conversation of theirs the reader may open,
   * newest first (docs/adr/0083-contact-search-walk.md). Written as the reader's conversations whose
   * contact matches and that no newer one of that contact's (the reader may open) follows, so the
   * planner may walk the account's newest conversations (`chats_account_time_idx`) until a page is
   * found — what a common name or number part needs — or, for a rare one, gather the few matching
   * contacts from the trigram indexes and sort their conversations; it picks by the match's estimated
   * frequency. Planned without parallel workers (`SERIAL_PLANS`).
   */
  async contacts(
    f: SearchFilter,
    search: ChatSearch,
    limit: number,
    offset: number,
  ): Promise<ContactHitRow[]> {
    return this.rowsOf(sql<ContactHitRow>`
      SELECT ct.channel_id, ct.name, ct.value, ${chatColumns}, ct.id
      FROM chats c JOIN contacts ct ON ct.id = c.contact_id
      WHERE ct.account_id = ${f.accountId} AND ${contactMatch(search)}
        AND ${chatConditions(f)} AND ${rangeOf(sql`c.created_at`, f)}
        AND NOT EXISTS (
          SELECT 1 FROM chats n
          WHERE n.contact_id = c.contact_id AND ${chatConditions(f, 'n')} AND ${rangeOf(sql`n.created_at`, f)}
            AND (n.created_at, n.id) > (c.created_at, c.id))
      ORDER BY c.created_at DESC, c.id DESC
      LIMIT ${limit} OFFSET ${offset}`);
  }

  /** Conversations, open and closed, whose customer matches the search, newest first. */
  async chats(f: SearchFilter, search: ChatSearch, limit: number, offset: number): Promise<SearchChatRow[]> {
    return this.rowsOf(sql<SearchChatRow>`
      SELECT ${chatColumns}
      FROM chats c JOIN contacts ct ON ct.id = c.contact_id
      WHERE c.contact_id IN (SELECT ct.id FROM contacts ct WHERE ct.account_id = ${f.accountId} AND ${contactMatch(search)})
        AND ${chatConditions(f)} AND ${rangeOf(sql`c.created_at`, f)}
      ORDER BY c.created_at DESC, c.id DESC
      LIMIT ${limit} OFFSET ${offset}`);
  }
}
