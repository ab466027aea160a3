import { sql } from 'kysely';
import type { Db } from '../../db/index.js';

export interface PreferencesRow {
  preferences: Record<string, unknown>;
  updated_at: Date;
}

/** `notification_preferences`: one row per user who changed theirs. */
export class PreferencesRepo {
  constructor(private readonly db: Db) {}

  async get(userId: string): Promise<PreferencesRow | undefined> {
    return this.db
      .selectFrom('notification_preferences')
      .select(['preferences', 'updated_at'])
      .where('user_id', '=', userId)
      .executeTakeFirst();
  }

  async put(
    accountId: string,
    userId: string,
    preferences: Record<string, unknown>,
  ): Promise<PreferencesRow> {
    const json = JSON.stringify(preferences);
    return this.db
      .insertInto('notification_preferences')
      .values({ user_id: userId, account_id: accountId, preferences: json })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ preferences: json, updated_at: sql`now()` }))
      .returning(['preferences', 'updated_at'])
      .executeTakeFirstOrThrow();
  }
}
