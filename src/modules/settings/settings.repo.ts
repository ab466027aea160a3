import type { Db } from '../../db/index.js';

/**
 * Installation-wide values kept in the `settings` table, one text per key, shared by every node: the
 * generated JWT secret, and where the HTTP API listens.
 */

const JWT_SECRET = 'jwt_secret';
/** The HTTP API's address, as the node that started last listens on it. */
const API_URL = 'api_url';

export class SettingsRepo {
  constructor(private readonly db: Db) {}

  /** The installation's JWT secret: `generated` is kept when no node has stored one yet, else the stored one. */
  async jwtSecret(generated: string): Promise<string> {
    await this.db
      .insertInto('settings')
      .values({ key: JWT_SECRET, value: generated })
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', JWT_SECRET)
      .executeTakeFirstOrThrow();
    return row.value;
  }

  /** Records where this node's HTTP API listens, for `atende demo`, which serves nothing itself. */
  async recordApiUrl(url: string): Promise<void> {
    await this.db
      .insertInto('settings')
      .values({ key: API_URL, value: url })
      .onConflict((oc) => oc.column('key').doUpdateSet({ value: url }))
      .execute();
  }

  /** Where the HTTP API of the last node to start listened; null before any node served it. */
  async lastApiUrl(): Promise<string | null> {
    const row = await this.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', API_URL)
      .executeTakeFirst();
    return row?.value ?? null;
  }
}
