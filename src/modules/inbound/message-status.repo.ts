import { sql } from 'kysely';
import type { Tx } from '../../db/index.js';
import type { ProviderErrorInfo, ProviderMessageStatus } from '../../db/types.js';
import type { DeliveryDetails } from '../../providers/types.js';

/**
 * The order statuses are told apart in when the provider gives them the same time (its timestamps
 * are seconds): the one further along counts as later.
 */
const STATUS_ORDER = sql`array_position(ARRAY['sent', 'delivered', 'read', 'failed'], s.status)`;

/** A repeated status's details over the first's: the parts it reports replace theirs. */
const merged = sql<string>`coalesce(message_status_events.details, '{}') || excluded.details`;

export class MessageStatusRepo {
  /**
   * Keeps the status in the history, once per (message id, status): a repeat changes nothing, except
   * that the details it reports (pricing, conversation, …) replace those parts of the first's.
   */
  async record(
    tx: Tx,
    row: {
      channel_id: string;
      provider_message_id: string;
      status: ProviderMessageStatus;
      error: ProviderErrorInfo | null;
      details: DeliveryDetails | null;
      occurred_at: Date;
    },
  ): Promise<void> {
    await tx
      .insertInto('message_status_events')
      .values({
        ...row,
        error: row.error ? JSON.stringify(row.error) : null,
        details: row.details ? JSON.stringify(row.details) : null,
      })
      .onConflict((oc) =>
        oc
          .columns(['channel_id', 'provider_message_id', 'status'])
          .doUpdateSet({ details: merged })
          .where(sql<boolean>`excluded.details IS NOT NULL`)
          .where(sql<boolean>`message_status_events.details IS DISTINCT FROM ${merged}`),
      )
      .execute();
  }

  /**
   * Sets the message's `delivery` from the statuses recorded for its provider id: each part (pricing,
   * conversation, callback data, errors) from the latest status that reported it — by the provider's
   * time, then the further status —, so a later status without a part never erases it and the order
   * they arrive in does not matter. False when it was so already.
   */
  async settleDelivery(
    tx: Tx,
    messageId: string,
    channelId: string,
    providerMessageId: string,
  ): Promise<boolean> {
    const { rows } = await sql<{ id: string }>`
      UPDATE messages m SET delivery = d.delivery, updated_at = now()
      FROM (
        SELECT jsonb_object_agg(part.key, part.value ORDER BY s.occurred_at, ${STATUS_ORDER}, s.received_at) AS delivery
        FROM message_status_events s CROSS JOIN LATERAL jsonb_each(s.details) AS part
        WHERE s.channel_id = ${channelId} AND s.provider_message_id = ${providerMessageId}
      ) d
      WHERE m.id = ${messageId} AND d.delivery IS NOT NULL AND m.delivery IS DISTINCT FROM d.delivery
      RETURNING m.id`.execute(tx);
    return rows.length > 0;
  }

  /** Of these provider message ids, the ones with statuses recorded (`channelId \u0000 id`). */
  async withRecorded(
    tx: Tx,
    items: readonly { channelId: string; providerMessageId: string }[],
  ): Promise<Set<string>> {
    if (items.length === 0) return new Set();
    const { rows } = await sql<{ channel_id: string; provider_message_id: string }>`
      SELECT DISTINCT channel_id, provider_message_id FROM message_status_events
      WHERE (channel_id, provider_message_id) IN (
        SELECT * FROM unnest(${items.map((i) => i.channelId)}::text[], ${items.map((i) => i.providerMessageId)}::text[]))`.execute(
      tx,
    );
    return new Set(rows.map((r) => `${r.channel_id}\u0000${r.provider_message_id}`));
  }

  /** The statuses recorded for a provider message id, in the order they happened. */
  async recorded(tx: Tx, channelId: string, providerMessageId: string) {
    return tx
      .selectFrom('message_status_events')
      .select(['status', 'error', 'details'])
      .where('channel_id', '=', channelId)
      .where('provider_message_id', '=', providerMessageId)
      .orderBy('occurred_at')
      .orderBy('received_at')
      .execute();
  }

  async setStatus(
    tx: Tx,
    id: string,
    status: ProviderMessageStatus,
    error: ProviderErrorInfo | null,
  ): Promise<void> {
    await tx
      .updateTable('messages')
      .set({ status, error: error ? JSON.stringify(error) : null, updated_at: sql`now()` })
      .where('id', '=', id)
      .execute();
  }
}
