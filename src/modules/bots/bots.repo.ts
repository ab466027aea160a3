import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import { Statement } from '../../db/prepared.js';
import type { BotHours } from '../../db/types.js';

/** A bot as the API shows it: its row and its endpoint (a webhook subscription). */
export interface BotRow {
  id: string;
  account_id: string;
  name: string;
  api_key_id: string;
  reply_timeout_seconds: number;
  created_at: Date;
  updated_at: Date;
  webhook_id: string;
  url: string;
  secret: string;
  enabled: boolean;
  failing_since: Date | null;
  disabled_reason: 'failing' | 'manual' | null;
}

/** A conversation whose bot's answer is overdue, as the worker hands it over. */
export interface DueChat {
  id: string;
  account_id: string;
  bot_id: string;
  team_id: string;
  /** The channel's team, where the conversation goes. */
  default_team_id: string;
  /** Whether the bot's endpoint was failing or disabled: the notice says so. */
  failing: boolean;
}

/** A channel's routing, read when a conversation opens on it. */
export interface ChannelRoute {
  bot_id: string;
  bot_hours: BotHours | null;
  reply_timeout_seconds: number;
}

// A channel's bot, if it routes to one (`channelRoute`): read by every message received, so prepared.
const channelRouteOf =
  Statement.prepared<ChannelRoute>(`SELECT b.id AS bot_id, ch.bot_hours, b.reply_timeout_seconds
FROM channels ch JOIN bots b ON b.id = ch.bot_id JOIN webhook_subscriptions s ON s.bot_id = b.id
WHERE ch.id = $1::text AND b.deleted_at IS NULL AND s.enabled = true`);

/** Bots' rows, channels' routing to them, and their hold on conversations (`chats.bot_id`, `bot_due_at`). */
export class BotsRepo {
  constructor(private readonly db: Db) {}

  private select(db: Db | Tx) {
    return db
      .selectFrom('bots as b')
      .innerJoin('webhook_subscriptions as s', 's.bot_id', 'b.id')
      .select([
        'b.id',
        'b.account_id',
        'b.name',
        'b.api_key_id',
        'b.reply_timeout_seconds',
        'b.created_at',
        'b.updated_at',
        's.id as webhook_id',
        's.url',
        's.secret',
        's.enabled',
        's.failing_since',
        's.disabled_reason',
      ])
      .where('b.deleted_at', 'is', null);
  }

  async list(accountId: string): Promise<BotRow[]> {
    return this.select(this.db)
      .where('b.account_id', '=', accountId)
      .orderBy('b.created_at')
      .orderBy('b.id')
      .execute();
  }

  async find(accountId: string, id: string, db: Db | Tx = this.db): Promise<BotRow | undefined> {
    return this.select(db).where('b.account_id', '=', accountId).where('b.id', '=', id).executeTakeFirst();
  }

  async count(accountId: string): Promise<number> {
    const row = await this.db
      .selectFrom('bots')
      .select(sql<number>`count(*)::int8`.as('n'))
      .where('account_id', '=', accountId)
      .where('deleted_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async insert(
    tx: Tx,
    row: {
      id: string;
      account_id: string;
      name: string;
      api_key_id: string;
      reply_timeout_seconds: number;
      created_by: string;
    },
  ): Promise<void> {
    await tx.insertInto('bots').values(row).execute();
  }

  async update(
    tx: Tx,
    accountId: string,
    id: string,
    set: { name?: string; reply_timeout_seconds?: number },
  ): Promise<boolean> {
    const res = await tx
      .updateTable('bots')
      .set({ ...set, updated_at: sql`now()` })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  /** Marks it deleted and takes it off every channel; answers its key, or undefined when not found. */
  async softDelete(tx: Tx, accountId: string, id: string): Promise<{ api_key_id: string } | undefined> {
    const row = await tx
      .updateTable('bots')
      .set({ deleted_at: sql`now()`, updated_at: sql`now()` })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .returning('api_key_id')
      .executeTakeFirst();
    if (!row) return undefined;
    await tx
      .updateTable('channels')
      .set({ bot_id: null, bot_hours: null, updated_at: sql`now()` })
      .where('bot_id', '=', id)
      .execute();
    return row;
  }

  /** Whether `id` is a bot of the account, not deleted. */
  async exists(accountId: string, id: string, db: Db | Tx = this.db): Promise<boolean> {
    const row = await db
      .selectFrom('bots')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .where('deleted_at', 'is', null)
      .executeTakeFirst();
    return row !== undefined;
  }

  async setChannelRoute(
    accountId: string,
    channelId: string,
    botId: string | null,
    hours: BotHours | null,
    tx: Db | Tx = this.db,
  ): Promise<boolean> {
    const res = await tx
      .updateTable('channels')
      .set({
        bot_id: botId,
        bot_hours: hours === null ? null : JSON.stringify(hours),
        updated_at: sql`now()`,
      })
      .where('account_id', '=', accountId)
      .where('id', '=', channelId)
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  /** The channel's bot when it has one whose endpoint is on (a disabled endpoint could not hear the customer). */
  async channelRoute(tx: Tx, channelId: string): Promise<ChannelRoute | undefined> {
    const [row] = await channelRouteOf.execute(tx, [channelId]);
    return row;
  }

  /** A conversation just opened, held by the bot: queue `Automação`, its answer due in the bot's time. */
  async hold(tx: Tx, chatId: string, queue: string, botId: string, timeoutSeconds: number): Promise<void> {
    await tx
      .updateTable('chats')
      .set({
        queue,
        bot_id: botId,
        bot_due_at: sql`now() + make_interval(secs => ${timeoutSeconds})`,
        version: sql`version + 1`,
      })
      .where('id', '=', chatId)
      .execute();
  }

  /** The customer wrote in a bot's conversation: its answer is due, unless one already was. */
  async customerWrote(tx: Tx, chatId: string): Promise<Date | undefined> {
    const { rows } = await sql<{ due: Date }>`
      UPDATE chats c SET bot_due_at = now() + make_interval(secs => b.reply_timeout_seconds)
      FROM bots b
      WHERE c.id = ${chatId} AND b.id = c.bot_id AND c.bot_due_at IS NULL
      RETURNING c.bot_due_at AS due`.execute(tx);
    return rows[0]?.due;
  }

  /** The bot acting with `keyId`, if the key is a bot's. */
  async botOfKey(keyId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('bots')
      .select('id')
      .where('api_key_id', '=', keyId)
      .executeTakeFirst();
    return row?.id;
  }

  /** The bot answered in its conversation: nothing is due any more. */
  async botAnswered(chatId: string, botId: string): Promise<void> {
    await this.db
      .updateTable('chats')
      .set({ bot_due_at: null })
      .where('id', '=', chatId)
      .where('bot_id', '=', botId)
      .where('bot_due_at', 'is not', null)
      .execute();
  }

  /**
   * Conversations whose bot's answer is overdue, locked for the rest of the transaction; rows another
   * node is handing over are skipped, so each is handed over once.
   */
  async lockDue(tx: Tx, limit: number): Promise<DueChat[]> {
    const { rows } = await sql<DueChat>`
      SELECT c.id, c.account_id, c.bot_id, c.team_id, ch.default_team_id,
        coalesce(s.failing_since IS NOT NULL OR NOT s.enabled, true) AS failing
      FROM chats c
      JOIN channels ch ON ch.id = c.channel_id
      LEFT JOIN webhook_subscriptions s ON s.bot_id = c.bot_id
      WHERE c.bot_due_at <= now() AND c.bot_id IS NOT NULL
      ORDER BY c.bot_due_at
      LIMIT ${limit}
      FOR UPDATE OF c SKIP LOCKED`.execute(tx);
    return rows;
  }

  /** The open conversations a bot holds, locked (its deletion hands them over). */
  async lockHeld(tx: Tx, botId: string): Promise<DueChat[]> {
    const { rows } = await sql<DueChat>`
      SELECT c.id, c.account_id, c.bot_id, c.team_id, ch.default_team_id, false AS failing
      FROM chats c JOIN channels ch ON ch.id = c.channel_id
      WHERE c.bot_id = ${botId}
      ORDER BY c.id
      FOR UPDATE OF c`.execute(tx);
    return rows;
  }

  /** The next time an answer falls due, for the worker's timer. */
  async nextDue(): Promise<Date | undefined> {
    const row = await this.db
      .selectFrom('chats')
      .select(sql<Date>`min(bot_due_at)`.as('at'))
      .where('bot_due_at', 'is not', null)
      .executeTakeFirst();
    return row?.at ?? undefined;
  }

  /** Hands a held conversation to a team's `Espera`: no bot, no attendant. */
  async handOver(tx: Tx, chatId: string, teamId: string, queue: string): Promise<void> {
    await tx
      .updateTable('chats')
      .set({
        team_id: teamId,
        queue,
        user_id: null,
        bot_id: null,
        bot_due_at: null,
        version: sql`version + 1`,
        updated_at: sql`now()`,
      })
      .where('id', '=', chatId)
      .execute();
  }
}
