import { sql } from 'kysely';
import type { Tx } from '../../db/index.js';
import type { ProviderErrorInfo, ProviderMessageStatus } from '../../db/types.js';

export class MessageStatusRepo {
  /** Keeps the status in the history; false when this (message id, status) was already there. */
  async record(
    tx: Tx,
    row: {
      channel_id: string;
      provider_message_id: string;
      status: ProviderMessageStatus;
      error: ProviderErrorInfo | null;
      occurred_at: Date;
    },
  ): Promise<boolean> {
    const inserted = await tx
      .insertInto('message_status_events')
      .values({ ...row, error: row.error ? JSON.stringify(row.error) : null })
      .onConflict((oc) => oc.columns(['channel_id', 'provider_message_id', 'status']).doNothing())
      .returning('status')
      .executeTakeFirst();
    return inserted !== undefined;
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
      .select(['status', 'error'])
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
