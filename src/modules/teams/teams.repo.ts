import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { TeamStatus } from '../../db/types.js';

export interface TeamRow {
  id: string;
  name: string;
  description: string | null;
  status: TeamStatus;
  members: string[];
}

export class TeamsRepo {
  constructor(private readonly db: Db) {}

  /** Teams with their member ids, in one query. */
  private select(db: Db | Tx = this.db) {
    return db.selectFrom('teams as t').select([
      't.id',
      't.name',
      't.description',
      't.status',
      sql<string[]>`coalesce((SELECT array_agg(m.user_id ORDER BY m.added_at, m.user_id)
          FROM team_members m WHERE m.team_id = t.id), '{}')`.as('members'),
    ]);
  }

  async list(accountId: string): Promise<TeamRow[]> {
    return this.select()
      .where('t.account_id', '=', accountId)
      .orderBy('t.created_at')
      .orderBy('t.id')
      .execute();
  }

  async find(accountId: string, id: string, db: Db | Tx = this.db): Promise<TeamRow | undefined> {
    return this.select(db).where('t.account_id', '=', accountId).where('t.id', '=', id).executeTakeFirst();
  }

  async findActive(accountId: string, id: string, db: Db | Tx = this.db) {
    return db
      .selectFrom('teams')
      .select(['id', 'name'])
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .where('status', '=', 'active')
      .executeTakeFirst();
  }

  async insert(
    db: Db | Tx,
    row: { id: string; account_id: string; name: string; description: string | null },
  ) {
    await db.insertInto('teams').values(row).execute();
  }

  async update(
    db: Db | Tx,
    accountId: string,
    id: string,
    patch: Partial<{ name: string; description: string | null; status: TeamStatus }>,
  ): Promise<boolean> {
    const res = await db
      .updateTable('teams')
      .set({ ...patch, updated_at: sql`now()` })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .executeTakeFirst();
    return res.numUpdatedRows > 0n;
  }

  /** Makes `userIds` the team's members; answers the users removed. */
  async setMembers(db: Db | Tx, teamId: string, userIds: string[]): Promise<string[]> {
    const removed = await db
      .deleteFrom('team_members')
      .where('team_id', '=', teamId)
      .where('user_id', 'not in', userIds.length ? userIds : [''])
      .returning('user_id')
      .execute();
    if (userIds.length > 0) {
      await db
        .insertInto('team_members')
        .values(userIds.map((user_id) => ({ team_id: teamId, user_id })))
        .onConflict((oc) => oc.columns(['team_id', 'user_id']).doNothing())
        .execute();
    }
    return removed.map((r) => r.user_id);
  }

  /** Team ids a user belongs to. */
  async teamsOf(userId: string, db: Db | Tx = this.db): Promise<string[]> {
    const rows = await db
      .selectFrom('team_members')
      .select('team_id')
      .where('user_id', '=', userId)
      .execute();
    return rows.map((r) => r.team_id);
  }

  async isMember(teamId: string, userId: string, db: Db | Tx = this.db): Promise<boolean> {
    const row = await db
      .selectFrom('team_members')
      .select('team_id')
      .where('team_id', '=', teamId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row !== undefined;
  }
}
