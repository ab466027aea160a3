import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { ChannelHealth, ProviderErrorInfo, ProviderName } from '../../db/types.js';

/** What sending one typing indicator needs: the customer's message it goes with, and its channel. */
export interface TypingToSend {
  chat_id: string;
  account_id: string;
  message_id: string;
  channel_id: string;
  provider_message_id: string;
  provider: ProviderName;
  provider_config: Record<string, unknown>;
  health: ChannelHealth;
  sent_at: Date | null;
  /** Whether it was claimed recently enough to be worth sending still. */
  fresh: boolean;
}

/** `typing_indicators`: the last typing indicator claimed per chat. */
export class TypingIndicatorsRepo {
  constructor(private readonly db: Db) {}

  /**
   * Claims the chat's typing indicator unless one was claimed less than `intervalSeconds` ago: the
   * chat must be open, in the actor's account, its channel sending read receipts and healthy, and its
   * customer must have written in the last 24 hours (the indicator goes with their latest message).
   * One statement, so concurrent claims on every node give one winner.
   */
  async claim(tx: Tx, accountId: string, chatId: string, intervalSeconds: number): Promise<boolean> {
    const { rows } = await sql<{ chat_id: string }>`
      WITH latest AS (
        SELECT m.id, m.account_id
          FROM messages m
          JOIN chats c ON c.id = m.chat_id
          JOIN channels ch ON ch.id = m.channel_id
         WHERE m.chat_id = ${chatId} AND c.account_id = ${accountId} AND c.status = 'open'
           AND m.origin = 'contact' AND m.provider_message_id IS NOT NULL
           AND ch.send_read_receipts AND ch.health = 'ok'
           AND m.created_at > now() - interval '24 hours'
         ORDER BY m.created_at DESC, m.id DESC
         LIMIT 1
      )
      INSERT INTO typing_indicators (chat_id, account_id, message_id)
      SELECT ${chatId}, latest.account_id, latest.id FROM latest
      ON CONFLICT (chat_id) DO UPDATE
         SET message_id = excluded.message_id, claimed_at = now(), sent_at = NULL, error = NULL
       WHERE typing_indicators.claimed_at <= now() - make_interval(secs => ${intervalSeconds})
      RETURNING chat_id`.execute(tx);
    return rows.length > 0;
  }

  async toSend(chatId: string, freshSeconds: number): Promise<TypingToSend | undefined> {
    const row = await this.db
      .selectFrom('typing_indicators as t')
      .innerJoin('messages as m', 'm.id', 't.message_id')
      .innerJoin('channels as ch', 'ch.id', 'm.channel_id')
      .select([
        't.chat_id',
        't.account_id',
        't.message_id',
        'm.channel_id',
        'm.provider_message_id',
        'ch.provider',
        'ch.provider_config',
        'ch.health',
        't.sent_at',
        sql<boolean>`t.claimed_at > now() - make_interval(secs => ${freshSeconds})`.as('fresh'),
      ])
      .where('t.chat_id', '=', chatId)
      .executeTakeFirst();
    if (!row || row.provider_message_id === null) return undefined;
    return { ...row, provider_message_id: row.provider_message_id };
  }

  /**
   * Sent: the customer's message was marked read with it, so its read receipt counts as sent too (a
   * later read of the chat queues none for it).
   */
  async markSent(t: TypingToSend): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx
        .updateTable('typing_indicators')
        .set({ sent_at: sql`now()`, error: null })
        .where('chat_id', '=', t.chat_id)
        .where('message_id', '=', t.message_id)
        .execute();
      await tx
        .insertInto('read_receipts')
        .values({
          message_id: t.message_id,
          account_id: t.account_id,
          channel_id: t.channel_id,
          sent_at: sql`now()`,
        })
        .onConflict((oc) =>
          oc.column('message_id').doUpdateSet({ sent_at: sql`coalesce(read_receipts.sent_at, now())` }),
        )
        .execute();
    });
  }

  async recordError(chatId: string, error: ProviderErrorInfo): Promise<void> {
    await this.db
      .updateTable('typing_indicators')
      .set({ error: JSON.stringify(error) })
      .where('chat_id', '=', chatId)
      .execute();
  }
}
