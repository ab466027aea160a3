import { sql, type Insertable } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { AccountApiKeysTable } from '../../db/types.js';
import { Statement } from '../../db/prepared.js';

export interface ApiKeyRow {
  id: string;
  account_id: string;
  name: string;
  scopes: string[];
  channel_ids: string[] | null;
  created_by: string | null;
  last_used_at: Date | null;
  revoked_at: Date | null;
  created_at: Date;
}

const columns = [
  'id',
  'account_id',
  'name',
  'scopes',
  'channel_ids',
  'created_by',
  'last_used_at',
  'revoked_at',
  'created_at',
] as const;

export interface ApiKeyAuthRow {
  id: string;
  account_id: string;
  token_hash: Buffer;
  scopes: string[];
  channel_ids: string[] | null;
  last_used_at: Date | null;
}

// Read on every Channel API request: prepared, so PostgreSQL neither parses nor plans it again.
const activeKeyById = Statement.prepared<ApiKeyAuthRow>(
  'SELECT id, account_id, token_hash, scopes, channel_ids, last_used_at FROM account_api_keys WHERE id = $1 AND revoked_at IS NULL',
);

export class ApiKeysRepo {
  constructor(private readonly db: Db) {}

  async list(accountId: string): Promise<ApiKeyRow[]> {
    return this.db
      .selectFrom('account_api_keys')
      .select(columns)
      .where('account_id', '=', accountId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
  }

  async find(accountId: string, id: string): Promise<ApiKeyRow | undefined> {
    return this.db
      .selectFrom('account_api_keys')
      .select(columns)
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** For authentication: only keys that are not revoked. */
  async findActiveWithHash(id: string): Promise<ApiKeyAuthRow | undefined> {
    return (await activeKeyById.execute(this.db, [id]))[0];
  }

  /** `tx`: within the transaction that creates what the key belongs to (a bot). */
  async insert(row: Insertable<AccountApiKeysTable>, tx: Db | Tx = this.db): Promise<void> {
    await tx.insertInto('account_api_keys').values(row).execute();
  }

  async revoke(accountId: string, id: string, tx: Db | Tx = this.db): Promise<boolean> {
    const res = await tx
      .updateTable('account_api_keys')
      .set({ revoked_at: sql`now()` })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  async touch(id: string): Promise<void> {
    await this.db
      .updateTable('account_api_keys')
      .set({ last_used_at: sql`now()` })
      .where('id', '=', id)
      .execute();
  }

  /** Which of these ids are channels of the account. */
  async channelsOf(accountId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('channels')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', 'in', ids)
      .execute();
    return new Set(rows.map((r) => r.id));
  }
}
