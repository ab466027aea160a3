import type { Db } from './index.js';

/**
 * Installation-wide values kept in the `settings` table, one text per key, shared by every node (the
 * generated JWT secret is one: `server.ts`).
 */

/** The HTTP API's address, as the node that started last listens on it. */
const API_URL = 'api_url';

/** Records where this node's HTTP API listens, for `atende demo`, which serves nothing itself. */
export async function recordApiUrl(db: Db, url: string): Promise<void> {
  await db
    .insertInto('settings')
    .values({ key: API_URL, value: url })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: url }))
    .execute();
}

/** Where the HTTP API of the last node to start listened; null before any node served it. */
export async function lastApiUrl(db: Db): Promise<string | null> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', API_URL).executeTakeFirst();
  return row?.value ?? null;
}
