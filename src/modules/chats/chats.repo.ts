import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import { Statement } from '../../db/prepared.js';
import { sqlInteger } from '../../db/sql-text.js';
import type { ChatStatus, LastMessage } from '../../db/types.js';
import { slaStartOf, type SlaStart, type SlaStartRow } from './chat-sla.js';
import type { LabelRefT } from './chats.schemas.js';

/**
 * The `chats` table's plain reads and writes. Lists and their totals are ChatListsRepo's
 * (chat-lists.repo.ts), transfers ChatTransfersRepo's (chat-transfers.repo.ts).
 */

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
  /** The customer behind the contact (the person, across channels). */
  customer_id: string;
  /** When the customer last wrote on the channel (the 24-hour window's start), if ever. */
  contact_last_inbound_at: Date | null;
  /** The chat's labels (`chatLabelsSql`), by name. */
  labels: LabelRefT[];
  /** Since when the chat is snoozed (null: it is not), until when (null: until the customer writes), by whom. */
  snoozed_at: Date | null;
  snoozed_until: Date | null;
  snoozed_by: string | null;
  /** The bot holding it (queue `Automação`), if one does. */
  bot_id: string | null;
  /** The SLA clocks (migration 058): see ChatSlaSchema. */
  sla_started_at: Date | null;
  first_response_due_at: Date | null;
  first_responded_at: Date | null;
  first_response_breached_at: Date | null;
  resolution_due_at: Date | null;
  resolution_breached_at: Date | null;
}

/**
 * The labels of the chat `chatId` names, as a JSON array of `{id, name, color}` by name: a correlated
 * subquery over `chat_labels`' primary key, so a page's labels come with the page in its one statement.
 */
export const chatLabelsSql = (chatId: string) =>
  `coalesce((SELECT json_agg(json_build_object('id', l.id, 'name', l.name, 'color', l.color)
    ORDER BY lower(l.name), l.id) FROM chat_labels cl JOIN labels l ON l.id = cl.label_id
    WHERE cl.chat_id = ${chatId}), '[]'::json)`;

export interface ChatRow extends ChatListRow {
  account_id: string;
  version: number;
}

/** A chat about to be opened for a contact (`openFor`). */
export interface NewChat {
  id: string;
  account_id: string;
  channel_id: string;
  contact_id: string;
  team_id: string;
  queue: string;
}

/** The queue kept out of every list unless asked for by name. */
export const HIDDEN_QUEUE = 'Observação';

/** The queue of conversations the Channel API opened by sending, until the customer answers. */
export const QUEUE_API = 'API';

/**
 * A chat's columns as `find` reads them (`ChatRow`; aliases `c` chats, `ct` contacts), for the
 * statements that read whole chats.
 */
export const CHAT_COLUMNS_SQL = `c.id, c.account_id, c.channel_id, c.team_id, c.user_id, c.status, c.queue,
 c.unread_messages, c.last_message, c.version, c.created_at, c.updated_at, c.contact_id,
 c.snoozed_at, c.snoozed_until, c.snoozed_by, c.bot_id, c.sla_started_at, c.first_response_due_at,
 c.first_responded_at, c.first_response_breached_at, c.resolution_due_at, c.resolution_breached_at,
 ct.name AS contact_name, ct.value AS contact_value, ct.customer_id, ct.last_inbound_at AS contact_last_inbound_at,
 ${chatLabelsSql('c.id')} AS labels`;

// A chat by id, and several: read by every message received or sent, so prepared (src/db/prepared.ts).
const chatById = Statement.prepared<ChatRow>(`SELECT ${CHAT_COLUMNS_SQL}
FROM chats c JOIN contacts ct ON ct.id = c.contact_id WHERE c.id = $2::text AND c.account_id = $1::text`);
const chatsByIds = Statement.prepared<ChatRow>(`SELECT ${CHAT_COLUMNS_SQL}
FROM chats c JOIN contacts ct ON ct.id = c.contact_id WHERE c.id = ANY($2::text[]) AND c.account_id = $1::text`);

// A customer's message in its chat (`recordInbound`), once per message received.
const inboundRecord = Statement.prepared<{ was_snoozed: boolean | null } & SlaStartRow>(`WITH before AS (
  SELECT snoozed_at IS NOT NULL AS snoozed, sla_started_at IS NULL AS starts, team_id
  FROM chats WHERE id = $1::text),
chat AS (
  UPDATE chats SET last_message = $2::jsonb,
    unread_messages = unread_messages + 1, version = version + 1, updated_at = now(),
    snoozed_at = NULL, snoozed_until = NULL, snoozed_by = NULL,
    sla_started_at = coalesce(sla_started_at, now())
  WHERE id = $1::text
  RETURNING contact_id),
contact AS (
  UPDATE contacts ct SET last_inbound_at = greatest(ct.last_inbound_at, now())
  FROM chat WHERE ct.id = chat.contact_id)
SELECT b.snoozed AS was_snoozed, now() AS started_at, s.team_id IS NOT NULL AS has_sla,
  s.first_response_minutes, s.resolution_minutes, h.time_zone, h.weekly, h.holidays
FROM before b
LEFT JOIN team_slas s ON b.starts AND s.team_id = b.team_id
  AND (s.first_response_minutes IS NOT NULL OR s.resolution_minutes IS NOT NULL)
LEFT JOIN team_business_hours h ON h.team_id = s.team_id`);

/**
 * The first-response instant a person's message sets: the first after the customer's first message
 * (which started the clock, `sla_started_at`); before that, or once set, it stays as it was.
 */
const FIRST_RESPONSE = sql<Date | null>`coalesce(first_responded_at, CASE WHEN sla_started_at IS NOT NULL THEN now() END)`;

export class ChatsRepo {
  constructor(private readonly db: Db) {}

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

  /**
   * What a message sent into an open chat by its id needs (`SendService.acceptForChat`): the chat's
   * channel and its provider, and the contact as stored (already normalized). Undefined for a chat of
   * another account or a closed one.
   */
  async findOpenSendTarget(accountId: string, id: string) {
    return this.db
      .selectFrom('chats as c')
      .innerJoin('contacts as ct', 'ct.id', 'c.contact_id')
      .innerJoin('channels as ch', 'ch.id', 'c.channel_id')
      .select([
        'c.channel_id',
        'ch.provider',
        'ct.type as contact_type',
        'ct.value as contact_value',
        'ct.name as contact_name',
      ])
      .where('c.account_id', '=', accountId)
      .where('c.id', '=', id)
      .where('c.status', '=', 'open')
      .executeTakeFirst();
  }

  async find(accountId: string, id: string, db: Db | Tx = this.db): Promise<ChatRow | undefined> {
    const [row] = await chatById.execute(db, [accountId, id]);
    return row;
  }

  /** Several chats of an account, as `find` reads them (absent ones are left out). */
  async findMany(accountId: string, ids: readonly string[], db: Db | Tx = this.db): Promise<ChatRow[]> {
    if (ids.length === 0) return [];
    // One chat, the common case, by its own statement: an array parameter keeps PostgreSQL from
    // adopting a generic plan, so the list's statement is planned at every execution.
    if (ids.length === 1) return chatById.execute(db, [accountId, ids[0]]);
    return chatsByIds.execute(db, [accountId, [...ids]]);
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
        snoozed_at: Date | null;
        bot_id: string | null;
      }
    | undefined
  > {
    let q = tx
      .selectFrom('chats')
      .select(['id', 'status', 'channel_id', 'team_id', 'user_id', 'queue', 'snoozed_at', 'bot_id'])
      .where('account_id', '=', accountId)
      .where('id', '=', id);
    if (opts.channelIds)
      q = q.where('channel_id', '=', sql<string>`ANY(${sql.val(opts.channelIds)}::text[])`);
    // A filter of the scan, so it runs on the chat's row before the row lock is asked for.
    if (opts.waitMs !== undefined && !opts.nowait)
      q = q.where(
        sql<boolean>`set_config('lock_timeout', ${`${sqlInteger(opts.waitMs)}ms`}, true) IS NOT NULL`,
      );
    const locked = opts.nowait ? q.forUpdate().noWait() : q.forUpdate();
    return locked.executeTakeFirst();
  }

  async setLockTimeout(tx: Tx, ms: number): Promise<void> {
    await sql`SELECT set_config('lock_timeout', ${`${ms}ms`}, true)`.execute(tx);
  }

  /**
   * Marks the chat changed (its version and `updatedAt`) when something it carries changed without a
   * column of its own, such as its labels: readers keep the newest copy of a chat by `updatedAt`.
   */
  async touch(tx: Tx, id: string): Promise<void> {
    await this.update(tx, id, {});
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
      closed_at: Date | null;
      closed_by: string | null;
      bot_id: null;
      bot_due_at: null;
    }>,
    opts: { byPerson?: boolean } = {},
  ): Promise<void> {
    const { last_message, ...rest } = patch;
    await tx
      .updateTable('chats')
      .set({
        ...rest,
        ...(last_message ? { last_message: JSON.stringify(last_message) } : {}),
        // A person's message stops the first-response clock, if the customer's started it.
        ...(opts.byPerson ? { first_responded_at: FIRST_RESPONSE } : {}),
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
   * A customer's message on the chat: it becomes the last message and counts as unread, the
   * customer's 24-hour window starts again (on the contact: the window is the customer's, whichever
   * chat the message is in), a snooze ends (docs/adr/0078-snooze.md), and the conversation's first
   * one starts its SLA clocks (docs/adr/0088-slas.md). One statement for both rows; answers whether
   * the chat was snoozed (read before the change, under the chat's lock) and, when this message
   * started the clocks of a team with a target, the team's targets and hours, read by their keys in
   * the same statement: a team without an SLA costs no further round trip.
   */
  async recordInbound(
    tx: Tx,
    id: string,
    last: LastMessage,
  ): Promise<{ wasSnoozed: boolean; slaStart: SlaStart | null }> {
    const rows = await inboundRecord.execute(tx, [id, JSON.stringify(last)]);
    const row = rows[0];
    return { wasSnoozed: row?.was_snoozed === true, slaStart: row ? slaStartOf(row) : null };
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

  /**
   * The last message of several chats, in one statement (each chat's version bumped, as `update`).
   * Each is a message the Channel API sent: a person's reply, which stops the first-response clock,
   * unless the message is automation's (`messages.automation`: a flow's or a bot's), read by its key.
   */
  async setLastMessages(tx: Tx, items: readonly { chatId: string; last: LastMessage }[]): Promise<void> {
    if (items.length === 0) return;
    await sql`
      UPDATE chats c SET last_message = v.last, version = c.version + 1, updated_at = now(),
        first_responded_at = CASE
          WHEN EXISTS (SELECT 1 FROM messages m WHERE m.id = v.last ->> 'id' AND m.automation IS NOT NULL)
          THEN c.first_responded_at ELSE ${FIRST_RESPONSE} END
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
