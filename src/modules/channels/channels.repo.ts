import { sql, type Selectable } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import { Statement } from '../../db/prepared.js';
import type { ChannelsTable, ProviderErrorInfo, ProviderName } from '../../db/types.js';

/** A channel as the API shows it: every column but the key's hash, of which only its presence. */
export type ChannelRow = Omit<Selectable<ChannelsTable>, 'api_key_hash'> & { has_api_key: boolean };

/** What checking a channel key reads. */
export type ChannelKeyRow = Pick<
  Selectable<ChannelsTable>,
  'id' | 'account_id' | 'api_enabled' | 'api_key_hash' | 'provider'
>;

// Read for every batch of send requests: prepared, so PostgreSQL neither parses nor plans it again.
const channelKeysByIds = Statement.prepared<ChannelKeyRow>(
  'SELECT id, account_id, api_enabled, api_key_hash, provider FROM channels WHERE id = ANY($1::text[])',
);

// A channel as the platform reads it (`ChannelRow`). Every received message reads its channel by id
// (a provider's webhook names only the channel), so these reads are prepared statements.
const COLUMNS = `id, account_id, name, provider, provider_config, api_enabled,
 api_key_hash IS NOT NULL AS has_api_key, default_team_id, queue, health, health_reason, unhealthy_since,
 send_read_receipts, bot_id, bot_hours, created_at, updated_at`;
const channelsOfAccount = Statement.prepared<ChannelRow>(
  `SELECT ${COLUMNS} FROM channels WHERE account_id = $1::text ORDER BY created_at, id`,
);
const channelOfAccount = Statement.prepared<ChannelRow>(
  `SELECT ${COLUMNS} FROM channels WHERE id = $2::text AND account_id = $1::text`,
);
const channelById = Statement.prepared<ChannelRow>(`SELECT ${COLUMNS} FROM channels WHERE id = $1::text`);

export class ChannelsRepo {
  constructor(private readonly db: Db) {}

  async list(accountId: string): Promise<ChannelRow[]> {
    return channelsOfAccount.execute(this.db, [accountId]);
  }

  /**
   * Whether a user without `chats:read_all` may see chats of the channel: a member of its default team
   * (where its new conversations go), or the attendant or a team member of one of its open chats.
   */
  async visibleToMember(accountId: string, channelId: string, userId: string): Promise<boolean> {
    const { rows } = await sql<{ visible: boolean }>`
      SELECT EXISTS (
          SELECT 1 FROM channels ch JOIN team_members tm ON tm.team_id = ch.default_team_id
          WHERE ch.id = ${channelId} AND ch.account_id = ${accountId} AND tm.user_id = ${userId})
        OR EXISTS (
          SELECT 1 FROM chats c
          WHERE c.account_id = ${accountId} AND c.user_id = ${userId} AND c.status = 'open'
            AND c.channel_id = ${channelId})
        OR EXISTS (
          SELECT 1 FROM team_members tm JOIN chats c
            ON c.account_id = ${accountId} AND c.team_id = tm.team_id AND c.status = 'open'
              AND c.channel_id = ${channelId}
          WHERE tm.user_id = ${userId}) AS visible`.execute(this.db);
    return rows[0]?.visible === true;
  }

  async find(accountId: string, id: string, db: Db | Tx = this.db): Promise<ChannelRow | undefined> {
    const [row] = await channelOfAccount.execute(db, [accountId, id]);
    return row;
  }

  /** By id alone, for provider webhooks: the URL a provider calls names only the channel. */
  async findById(id: string, db: Db | Tx = this.db): Promise<ChannelRow | undefined> {
    const [row] = await channelById.execute(db, [id]);
    return row;
  }

  /** The provider of a chat's channel, for checking a reply against that provider's limits. */
  async providerOfChat(accountId: string, chatId: string): Promise<ProviderName | undefined> {
    const row = await this.db
      .selectFrom('chats as c')
      .innerJoin('channels as ch', 'ch.id', 'c.channel_id')
      .select('ch.provider')
      .where('c.account_id', '=', accountId)
      .where('c.id', '=', chatId)
      .executeTakeFirst();
    return row?.provider;
  }

  /**
   * For channel-key authentication: the stored hashes, looked up by the ids embedded in the keys, for
   * many channels in one query (concurrent send requests share it).
   */
  async findKeys(ids: readonly string[]): Promise<ChannelKeyRow[]> {
    if (ids.length === 0) return [];
    return channelKeysByIds.execute(this.db, [ids]);
  }

  async insert(
    db: Db | Tx,
    row: Pick<ChannelsTable, 'id' | 'account_id' | 'name' | 'provider' | 'default_team_id'> &
      Partial<{
        queue: string;
        api_enabled: boolean;
        provider_config: Record<string, unknown>;
        send_read_receipts: boolean;
      }>,
  ): Promise<void> {
    await db
      .insertInto('channels')
      .values({ ...row, provider_config: JSON.stringify(row.provider_config ?? {}) })
      .execute();
  }

  async update(
    db: Db | Tx,
    accountId: string,
    id: string,
    patch: Partial<{
      name: string;
      provider: ProviderName;
      default_team_id: string;
      queue: string;
      api_enabled: boolean;
      provider_config: Record<string, unknown>;
      api_key_hash: Buffer;
      send_read_receipts: boolean;
      /** New credentials: the channel is given another chance (`ok`, no reason). */
      healthy: true;
    }>,
  ): Promise<boolean> {
    const { provider_config, healthy, ...rest } = patch;
    const res = await db
      .updateTable('channels')
      .set({
        ...rest,
        ...(provider_config ? { provider_config: JSON.stringify(provider_config) } : {}),
        ...(healthy ? { health: 'ok' as const, health_reason: null, unhealthy_since: null } : {}),
        updated_at: sql`now()`,
      })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  /**
   * Marks the channel unhealthy, unless it already is or its access token is no longer the one that
   * was refused (an admin stored a new one meanwhile). The account and name when it changed.
   */
  async markUnhealthy(
    tx: Tx,
    channelId: string,
    refusedToken: string,
    reason: ProviderErrorInfo,
  ): Promise<{ account_id: string; name: string } | undefined> {
    return tx
      .updateTable('channels')
      .set({
        health: 'unhealthy',
        health_reason: JSON.stringify(reason),
        unhealthy_since: sql`now()`,
        updated_at: sql`now()`,
      })
      .where('id', '=', channelId)
      .where('health', '=', 'ok')
      .where(sql<boolean>`provider_config->>'accessToken' = ${refusedToken}`)
      .returning(['account_id', 'name'])
      .executeTakeFirst();
  }
}
