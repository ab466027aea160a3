import { sql } from 'kysely';
import type { Db } from '../../db/index.js';
import { Statement } from '../../db/prepared.js';
import { limitBucket, sqlInteger } from '../../db/sql-text.js';
import type { LastMessage } from '../../db/types.js';

/** Who the reader is, for what they may open: null reads every chat of the account (`chats:read_all`). */
export type Viewer = { userId: string; teamIds: readonly string[] } | null;

/** A conversation of a customer as the history reads it. */
export interface ConversationRow {
  id: string;
  channel_id: string;
  status: 'open' | 'closed';
  queue: string;
  team_id: string;
  user_id: string | null;
  contact_id: string;
  contact_name: string | null;
  contact_value: string;
  created_at: Date;
  closed_at: Date | null;
  closed_by: string | null;
  last_message: LastMessage | null;
  attendants: string[];
  transfers: number;
  total: string;
}

/**
 * The chats a viewer may open, as a condition on `chats c`: the same rule as opening one
 * (ChatsService.canSee) — its attendant, members of its team, or everyone with `chats:read_all`.
 */
export const visibleSql = (viewer: Viewer, alias = 'c') => {
  if (viewer === null) return sql<boolean>`true`;
  const c = sql.table(alias);
  return sql<boolean>`(${c}.user_id = ${viewer.userId} OR ${c}.team_id = ANY(${sql.val(viewer.teamIds)}::text[]))`;
};

/**
 * A customer's chats the reader may open, as the FROM and WHERE of a statement over `contacts ct`
 * and `chats c` ($1 the customer, $2 the account). The rule is `visibleSql`'s for a reader given by
 * id, their teams read in the statement (statements that are prepared take it this way); a null
 * reader reads every chat.
 */
function customerChatsFrom(readerId: string | null, values: unknown[]): string {
  const from = `contacts ct JOIN chats c ON c.contact_id = ct.id
  WHERE ct.customer_id = $1 AND ct.account_id = $2 AND c.account_id = $2`;
  if (readerId === null) return from;
  const reader = `$${values.push(readerId)}`;
  return `${from}
    AND (c.user_id = ${reader} OR c.team_id IN (SELECT team_id FROM team_members WHERE user_id = ${reader}))`;
}

/** A customer's conversations on every channel (their contacts lead to them), newest first. */
export class HistoryRepo {
  constructor(private readonly db: Db) {}

  async customerExists(accountId: string, customerId: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('customers')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', '=', customerId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /**
   * One page with its exact total, in one statement. The page is cut from the customer's chats first
   * (contacts_customer_idx, then chats_contact_idx), so who attended and the transfers are read for
   * the page's rows only. `readerId` is the agent whose chats and teams bound it (the teams read in
   * the statement, not passed as a list: a list parameter keeps PostgreSQL from settling on a plan),
   * or null for a reader of every chat. First pages run as prepared statements (src/db/prepared.ts):
   * one text per reader kind and page-size bound, the offset a literal as the chat lists' is.
   */
  async customerChats(
    accountId: string,
    customerId: string,
    readerId: string | null,
    limit: number,
    offset: number,
  ): Promise<ConversationRow[]> {
    const values: unknown[] = [customerId, accountId, limit];
    const text = `SELECT p.*, t.transfers,
  ARRAY(SELECT DISTINCT u FROM unnest(t.users || ARRAY[p.user_id, p.closed_by]) AS u
         WHERE u IS NOT NULL ORDER BY u) AS attendants
FROM (
  SELECT c.id, c.channel_id, c.status, c.queue, c.team_id, c.user_id, c.contact_id,
    ct.name AS contact_name, ct.value AS contact_value, c.created_at, c.closed_at, c.closed_by,
    CASE WHEN jsonb_typeof(c.last_message) = 'object' THEN c.last_message END AS last_message,
    count(*) OVER () AS total
  FROM ${customerChatsFrom(readerId, values)}
  ORDER BY c.created_at DESC, c.id DESC
  LIMIT ${sqlInteger(limitBucket(limit))} OFFSET ${sqlInteger(offset)}
) p
LEFT JOIN LATERAL (
  SELECT count(*)::int AS transfers, array_agg(tr.to_user_id) AS users
  FROM chat_transfers tr WHERE tr.chat_id = p.id
) t ON true
ORDER BY p.created_at DESC, p.id DESC
LIMIT $3`;
    return Statement.shaped<ConversationRow>(text, offset === 0).execute(this.db, values);
  }

  /** The total alone, for a page past the end (which has no row to carry it). */
  async countCustomerChats(accountId: string, customerId: string, readerId: string | null): Promise<number> {
    const values: unknown[] = [customerId, accountId];
    const text = `SELECT count(*)::int AS n FROM ${customerChatsFrom(readerId, values)}`;
    const [row] = await Statement.shaped<{ n: number }>(text, false).execute(this.db, values);
    return row?.n ?? 0;
  }
}
