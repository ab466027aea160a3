import { Statement } from '../../db/prepared.js';
import type { Db, Tx } from '../../db/index.js';
import type { ProviderName } from '../../db/types.js';

// Once per delivery processed, so prepared (src/db/prepared.ts).
const markProcessed = Statement.prepared(
  'UPDATE inbound_webhook_events SET processed_at = now() WHERE id = $1::text AND processed_at IS NULL',
);

export class InboundEventsRepo {
  constructor(private readonly db: Db) {}

  async insertMany(
    tx: Tx,
    rows: { id: string; account_id: string; channel_id: string; provider: ProviderName; body: string }[],
  ): Promise<void> {
    if (rows.length > 0) await tx.insertInto('inbound_webhook_events').values(rows).execute();
  }

  async find(id: string) {
    return this.db
      .selectFrom('inbound_webhook_events')
      .select(['id', 'channel_id', 'body', 'received_at', 'processed_at'])
      .where('id', '=', id)
      .executeTakeFirst();
  }

  async markProcessed(id: string): Promise<void> {
    await markProcessed.execute(this.db, [id]);
  }
}
