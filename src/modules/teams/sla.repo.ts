import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';

export interface TeamSlaRow {
  team_id: string;
  first_response_minutes: number | null;
  resolution_minutes: number | null;
  updated_at: Date;
}

const COLUMNS = ['team_id', 'first_response_minutes', 'resolution_minutes', 'updated_at'] as const;

/** The table `team_slas` (migration 058). */
export class TeamSlaRepo {
  constructor(private readonly db: Db) {}

  async find(accountId: string, teamId: string, db: Db | Tx = this.db): Promise<TeamSlaRow | undefined> {
    return db
      .selectFrom('team_slas')
      .select(COLUMNS)
      .where('account_id', '=', accountId)
      .where('team_id', '=', teamId)
      .executeTakeFirst();
  }

  /** Replaces the team's targets (the team is the account's: the caller checked it). */
  async upsert(
    tx: Tx,
    row: {
      team_id: string;
      account_id: string;
      first_response_minutes: number | null;
      resolution_minutes: number | null;
      updated_by: string;
    },
  ): Promise<TeamSlaRow> {
    return tx
      .insertInto('team_slas')
      .values(row)
      .onConflict((oc) =>
        oc.column('team_id').doUpdateSet({
          first_response_minutes: row.first_response_minutes,
          resolution_minutes: row.resolution_minutes,
          updated_by: row.updated_by,
          updated_at: sql`now()`,
        }),
      )
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  }
}
