import { sql, type Selectable } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import { Statement } from '../../db/prepared.js';
import type { ChannelFlowsTable, ChatCsatTable, ChatFlowsTable, ProviderName } from '../../db/types.js';
import { newId } from '../../lib/ids.js';
import { QUEUE_AUTOMATION } from '../chats/index.js';

export type ChannelFlowRow = Selectable<ChannelFlowsTable>;
export type ChatFlowRow = Selectable<ChatFlowsTable>;
export type ChatCsatRow = Selectable<ChatCsatTable>;

/** A chat as the flow reads it under its lock: where it is, whom it is with, and the customer's window. */
export interface FlowChat {
  id: string;
  account_id: string;
  channel_id: string;
  contact_id: string;
  team_id: string;
  user_id: string | null;
  queue: string;
  status: 'open' | 'closed';
  contact_value: string;
  contact_last_inbound_at: Date | null;
}

// A new conversation's menu wait (`startMenu`), once per conversation a flow opens: prepared.
const menuStart = Statement.prepared<FlowChat>(`WITH c AS (
  SELECT c.id, c.account_id, c.channel_id, c.contact_id, c.team_id, c.user_id, c.queue, c.status,
    ct.value AS contact_value, ct.last_inbound_at AS contact_last_inbound_at
  FROM chats c JOIN contacts ct ON ct.id = c.contact_id
  WHERE c.id = $1::text AND c.status = 'open' AND c.queue = $2::text AND c.user_id IS NULL
), w AS (
  INSERT INTO chat_flows (chat_id, account_id, channel_id, contact_id, stage, attempts, due_at)
  SELECT id, account_id, channel_id, contact_id, 'menu', 0, $3::timestamptz FROM c
  ON CONFLICT (chat_id) DO UPDATE SET stage = 'menu', attempts = 0, due_at = EXCLUDED.due_at
)
SELECT * FROM c`);

/** What `activeOf` reads: the channel, and its flow when it has one. */
export interface ChannelFlowOf {
  provider: ProviderName;
  default_team_id: string;
  enabled: boolean | null;
  settings: Selectable<ChannelFlowsTable>['settings'] | null;
}

// Every received message reads its channel's flow (`activeOf`): prepared.
const channelFlowOf =
  Statement.prepared<ChannelFlowOf>(`SELECT ch.provider, ch.default_team_id, f.enabled, f.settings
FROM channels ch LEFT JOIN channel_flows f ON f.channel_id = ch.id WHERE ch.id = $1::text`);

/** The tables of migration 056: channels' flows, what a flow waits for per chat, and ratings. */
export class FlowsRepo {
  constructor(private readonly db: Db) {}

  /** A channel's provider, default team and flow settings, as each message received on it reads them. */
  async activeOf(tx: Tx, channelId: string): Promise<ChannelFlowOf | undefined> {
    const [row] = await channelFlowOf.execute(tx, [channelId]);
    return row;
  }

  async find(channelId: string, db: Db | Tx = this.db): Promise<ChannelFlowRow | undefined> {
    return db.selectFrom('channel_flows').selectAll().where('channel_id', '=', channelId).executeTakeFirst();
  }

  async upsert(
    tx: Tx,
    row: { channel_id: string; account_id: string; enabled: boolean; settings: object; updated_by: string },
  ): Promise<ChannelFlowRow> {
    const values = { ...row, settings: JSON.stringify(row.settings) };
    return tx
      .insertInto('channel_flows')
      .values(values)
      .onConflict((oc) =>
        oc.column('channel_id').doUpdateSet({
          enabled: values.enabled,
          settings: values.settings,
          updated_by: values.updated_by,
          updated_at: sql`now()`,
        }),
      )
      .returningAll()
      .executeTakeFirstOrThrow();
  }

  /** Which of these ids are active teams of the account. */
  async activeTeams(tx: Db | Tx, accountId: string, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await tx
      .selectFrom('teams')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', 'in', [...new Set(ids)])
      .where('status', '=', 'active')
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  /** The chat with its contact, as the flow acts on it (the caller holds its lock). */
  async chat(tx: Tx, chatId: string): Promise<FlowChat | undefined> {
    return tx
      .selectFrom('chats as c')
      .innerJoin('contacts as ct', 'ct.id', 'c.contact_id')
      .select([
        'c.id',
        'c.account_id',
        'c.channel_id',
        'c.contact_id',
        'c.team_id',
        'c.user_id',
        'c.queue',
        'c.status',
        'ct.value as contact_value',
        'ct.last_inbound_at as contact_last_inbound_at',
      ])
      .where('c.id', '=', chatId)
      .executeTakeFirst();
  }

  /** The team the chat's channel sends new conversations to (the chat's own when the channel is gone). */
  async defaultTeam(tx: Tx, chat: FlowChat): Promise<string> {
    const row = await tx
      .selectFrom('channels')
      .select('default_team_id')
      .where('id', '=', chat.channel_id)
      .executeTakeFirst();
    return row?.default_team_id ?? chat.team_id;
  }

  /**
   * A new conversation the flow holds (open, in `Automação`, no attendant): its menu wait started,
   * due at `dueAt`, and the chat as the flow acts on it, in one statement; undefined when the chat is
   * not the flow's.
   */
  async startMenu(tx: Tx, chatId: string, dueAt: Date): Promise<FlowChat | undefined> {
    const rows = await menuStart.execute(tx, [chatId, QUEUE_AUTOMATION, dueAt]);
    return rows[0];
  }

  /** Starts (or restarts) a wait of the flow in the chat. */
  async wait(
    tx: Tx,
    w: { chat: FlowChat; stage: ChatFlowsTable['stage']; dueAt: Date; attempts?: number },
  ): Promise<void> {
    const values = {
      chat_id: w.chat.id,
      account_id: w.chat.account_id,
      channel_id: w.chat.channel_id,
      contact_id: w.chat.contact_id,
      stage: w.stage,
      attempts: w.attempts ?? 0,
      due_at: w.dueAt,
    };
    await tx
      .insertInto('chat_flows')
      .values(values)
      .onConflict((oc) =>
        oc.column('chat_id').doUpdateSet({ stage: w.stage, attempts: values.attempts, due_at: w.dueAt }),
      )
      .execute();
  }

  async waitOf(tx: Tx, chatId: string): Promise<ChatFlowRow | undefined> {
    return tx.selectFrom('chat_flows').selectAll().where('chat_id', '=', chatId).executeTakeFirst();
  }

  async setAttempts(tx: Tx, chatId: string, attempts: number): Promise<void> {
    await tx.updateTable('chat_flows').set({ attempts }).where('chat_id', '=', chatId).execute();
  }

  async endWait(tx: Tx, chatId: string): Promise<void> {
    await tx.deleteFrom('chat_flows').where('chat_id', '=', chatId).execute();
  }

  /**
   * The rating the customer's contact may still give on the channel (its conversation closed), locked;
   * the newest when several. `chat_flows_csat_idx`.
   */
  async pendingRating(
    tx: Tx,
    channelId: string,
    contactId: string,
    at: Date,
  ): Promise<ChatFlowRow | undefined> {
    return tx
      .selectFrom('chat_flows')
      .selectAll()
      .where('channel_id', '=', channelId)
      .where('contact_id', '=', contactId)
      .where('stage', '=', 'csat')
      .where('due_at', '>', at)
      .orderBy('created_at', 'desc')
      .limit(1)
      .forUpdate()
      .executeTakeFirst();
  }

  /**
   * Up to `limit` waits due at `at`, taken out of the table in the caller's transaction with their
   * chats locked. A wait or chat another transaction holds is skipped (left for the next round), so
   * two nodes never act on one wait, and a crash rolls the claim back: the wait is still due.
   */
  async claimDue(tx: Tx, at: Date, limit: number): Promise<ChatFlowRow[]> {
    const { rows } = await sql<ChatFlowRow>`
      WITH due AS (
        SELECT f.chat_id FROM chat_flows f JOIN chats c ON c.id = f.chat_id
        WHERE f.due_at <= ${at} ORDER BY f.due_at LIMIT ${limit}
        FOR UPDATE OF f, c SKIP LOCKED)
      DELETE FROM chat_flows f USING due WHERE f.chat_id = due.chat_id
      RETURNING f.*`.execute(tx);
    return rows;
  }

  /** The earliest wait still to end; null when none. */
  async nextDue(): Promise<Date | null> {
    const row = await this.db
      .selectFrom('chat_flows')
      .select((eb) => eb.fn.min('due_at').as('next'))
      .executeTakeFirst();
    return (row?.next as Date | null | undefined) ?? null;
  }

  /**
   * Up to `limit` open conversations, on channels whose enabled flow closes them, in which the
   * customer's last message is older than the flow's hours and an agent (or the Channel API) had the
   * last word — a conversation whose last message is the customer's or the flow's own (greeting, away
   * message) waits for us, not for the customer; locked (a chat another transaction holds is skipped).
   * Snoozed chats are left alone: an agent chose to wait.
   */
  async claimIdle(tx: Tx, at: Date, limit: number): Promise<{ id: string; channel_id: string }[]> {
    const { rows } = await sql<{ id: string; channel_id: string }>`
      SELECT c.id, c.channel_id FROM channel_flows f
      JOIN chats c ON c.channel_id = f.channel_id AND c.status = 'open'
      JOIN contacts ct ON ct.id = c.contact_id
      WHERE f.enabled AND jsonb_typeof(f.settings->'autoClose') = 'object'
        AND ct.last_inbound_at < ${at}::timestamptz - make_interval(hours => (f.settings->'autoClose'->>'hours')::int)
        AND c.last_message->>'origin' IN ('user', 'api') AND c.snoozed_at IS NULL
      LIMIT ${limit}
      FOR UPDATE OF c SKIP LOCKED`.execute(tx);
    return rows;
  }

  /** Whether an active agent of the team says they are online. */
  async anyoneOnline(tx: Tx, teamId: string): Promise<boolean> {
    const { rows } = await sql<{ online: boolean }>`
      SELECT EXISTS (SELECT 1 FROM team_members tm JOIN users u ON u.id = tm.user_id
        WHERE tm.team_id = ${teamId} AND u.status = 'active' AND u.availability = 'online') AS online`.execute(
      tx,
    );
    return rows[0]?.online === true;
  }

  /**
   * The flow's routing, as a transfer to a team: the chat goes to the team's `Espera` with no
   * attendant, and the transfer is recorded as the channel's flow's.
   */
  async route(
    tx: Tx,
    chat: FlowChat,
    to: { teamId: string; queue: string; reasonCode: string; reason: string | null },
  ): Promise<void> {
    await tx
      .updateTable('chats')
      .set({
        team_id: to.teamId,
        user_id: null,
        queue: to.queue,
        version: sql`version + 1`,
        updated_at: sql`now()`,
      })
      .where('id', '=', chat.id)
      .execute();
    await tx
      .insertInto('chat_transfers')
      .values({
        id: newId(),
        account_id: chat.account_id,
        chat_id: chat.id,
        from_team_id: chat.team_id,
        to_team_id: to.teamId,
        from_user_id: chat.user_id,
        to_user_id: null,
        reason_code: to.reasonCode,
        reason: to.reason,
        actor_type: 'flow',
        actor_id: chat.channel_id,
      })
      .execute();
  }

  /** Records the rating once (a second answer changes nothing); whether it was recorded. */
  async rate(tx: Tx, row: Omit<ChatCsatTable, 'created_at'>): Promise<ChatCsatRow | undefined> {
    return tx
      .insertInto('chat_csat')
      .values(row)
      .onConflict((oc) => oc.column('chat_id').doNothing())
      .returningAll()
      .executeTakeFirst();
  }

  async rating(accountId: string, chatId: string): Promise<ChatCsatRow | undefined> {
    return this.db
      .selectFrom('chat_csat')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('chat_id', '=', chatId)
      .executeTakeFirst();
  }
}
