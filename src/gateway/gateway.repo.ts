import { sql } from 'kysely';
import type { Db } from '../db/index.js';

/** The reads behind room authorization: one query per subscription, whatever the number of ids. */
export class GatewayRepo {
  constructor(private readonly db: Db) {}

  /** Team, attendant and status of those of `ids` that are chats of the account. */
  async chats(
    accountId: string,
    ids: readonly string[],
  ): Promise<{ id: string; team_id: string; user_id: string | null }[]> {
    if (ids.length === 0) return [];
    return this.db
      .selectFrom('chats')
      .select(['id', 'team_id', 'user_id'])
      .where('account_id', '=', accountId)
      .where('id', '=', sql<string>`ANY(${sql.val(ids)}::text[])`)
      .execute();
  }

  /** Those of `ids` that are teams of the account. */
  async teams(accountId: string, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await this.db
      .selectFrom('teams')
      .select('id')
      .where('account_id', '=', accountId)
      .where('id', '=', sql<string>`ANY(${sql.val(ids)}::text[])`)
      .execute();
    return rows.map((r) => r.id);
  }

  /** Those of `userIds` who may see the chat now: its attendant, its team's members, read_all users. */
  async usersWhoSee(
    accountId: string,
    chat: { teamId: string; userId: string | null },
    userIds: readonly string[],
  ): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const rows = await this.db
      .selectFrom('users as u')
      .innerJoin('roles as r', 'r.id', 'u.role_id')
      .select('u.id')
      .where('u.account_id', '=', accountId)
      .where('u.id', '=', sql<string>`ANY(${sql.val(userIds)}::text[])`)
      .where('u.status', '<>', 'cancelled')
      .where((eb) =>
        eb.or([
          eb('u.id', '=', chat.userId ?? ''),
          sql<boolean>`'chats:read_all' = ANY(r.permissions)`,
          eb.exists(
            eb
              .selectFrom('team_members as m')
              .select('m.user_id')
              .where('m.team_id', '=', chat.teamId)
              .whereRef('m.user_id', '=', 'u.id'),
          ),
        ]),
      )
      .execute();
    return new Set(rows.map((r) => r.id));
  }
}
