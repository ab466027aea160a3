import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { ProviderName } from '../../db/types.js';

/** What downloading a customer's file needs: the message and the channel it came through. */
export interface DownloadRow {
  id: string;
  account_id: string;
  type: string;
  content: Record<string, unknown>;
  channel_id: string;
  provider: ProviderName;
  provider_config: Record<string, unknown>;
}

/** What serving a message's file needs: the message and who may see its chat. */
export interface ServeRow {
  id: string;
  account_id: string;
  type: string;
  content: Record<string, unknown>;
  chat_team_id: string;
  chat_user_id: string | null;
}

/** The state of a message's file as `content.media` records it (docs: README, "Media"). */
export type MediaState =
  | { status: 'ready'; size: number; mimetype?: string }
  | { status: 'failed'; error: { code: string; message: string } };

export class MediaRepo {
  async findForDownload(db: Db | Tx, messageId: string): Promise<DownloadRow | undefined> {
    return db
      .selectFrom('messages as m')
      .innerJoin('channels as ch', 'ch.id', 'm.channel_id')
      .select([
        'm.id',
        'm.account_id',
        'm.type',
        'm.content',
        'ch.id as channel_id',
        'ch.provider',
        'ch.provider_config',
      ])
      .where('m.id', '=', messageId)
      .executeTakeFirst();
  }

  async findForServing(db: Db | Tx, accountId: string, messageId: string): Promise<ServeRow | undefined> {
    return db
      .selectFrom('messages as m')
      .innerJoin('chats as c', 'c.id', 'm.chat_id')
      .select([
        'm.id',
        'm.account_id',
        'm.type',
        'm.content',
        'c.team_id as chat_team_id',
        'c.user_id as chat_user_id',
      ])
      .where('m.id', '=', messageId)
      .where('m.account_id', '=', accountId)
      .executeTakeFirst();
  }

  /**
   * Records the outcome of a download in `content.media`, once: only a file still waiting changes, so
   * a repeated job changes nothing. Whether it changed.
   */
  async settle(tx: Tx, messageId: string, state: MediaState): Promise<boolean> {
    const result = await tx
      .updateTable('messages')
      .set({
        content: sql`jsonb_set(content, '{media}', (content->'media') || ${JSON.stringify(state)}::jsonb)`,
        updated_at: sql`now()`,
      })
      .where('id', '=', messageId)
      .where(sql<boolean>`jsonb_typeof(content->'media') = 'object'`)
      .where(sql<boolean>`coalesce(content->'media'->>'status', 'pending') = 'pending'`)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }
}
