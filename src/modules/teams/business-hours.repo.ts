import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { Interval } from './business-hours.js';

export interface BusinessHoursRow {
  team_id: string;
  time_zone: string;
  weekly: Interval[][] | null;
  holidays: string[];
  updated_at: Date;
}

const COLUMNS = ['team_id', 'time_zone', 'weekly', 'holidays', 'updated_at'] as const;

/** The table `team_business_hours` (migration 053). */
export class BusinessHoursRepo {
  constructor(private readonly db: Db) {}

  async find(
    accountId: string,
    teamId: string,
    db: Db | Tx = this.db,
  ): Promise<BusinessHoursRow | undefined> {
    return db
      .selectFrom('team_business_hours')
      .select(COLUMNS)
      .where('account_id', '=', accountId)
      .where('team_id', '=', teamId)
      .executeTakeFirst();
  }

  /** Replaces the team's hours (the team is the account's: the caller checked it). */
  async upsert(
    tx: Tx,
    row: {
      team_id: string;
      account_id: string;
      time_zone: string;
      weekly: Interval[][] | null;
      holidays: string[];
      updated_by: string;
    },
  ): Promise<BusinessHoursRow> {
    const values = { ...row, weekly: row.weekly === null ? null : JSON.stringify(row.weekly) };
    return tx
      .insertInto('team_business_hours')
      .values(values)
      .onConflict((oc) =>
        oc.column('team_id').doUpdateSet({
          time_zone: values.time_zone,
          weekly: values.weekly,
          holidays: values.holidays,
          updated_by: values.updated_by,
          updated_at: sql`now()`,
        }),
      )
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  }
}
