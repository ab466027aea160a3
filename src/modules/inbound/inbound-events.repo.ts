import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { ProviderName } from '../../db/types.js';

export class InboundEventsRepo {
  constructor(private readonly db: Db) {}

  async insert(
    tx: Tx,
    row: { id: string; account_id: string; channel_id: string; provider: ProviderName; body: string },
  ): Promise<void> {
    await tx.insertInto('inbound_webhook_events').values(row).execute();
  }

  async find(id: string) {
    return this.db
      .selectFrom('inbound_webhook_events')
      .select(['id', 'channel_id', 'body', 'received_at', 'processed_at'])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  async markProcessed(id: string): Promise<void> {
    await this.db
      .updateTable('inbound_webhook_events')
      .set({ processed_at: sql`now()` })
      .where('id', '=', id)
      .where('processed_at', 'is', null)
      .execute();
  }
}
