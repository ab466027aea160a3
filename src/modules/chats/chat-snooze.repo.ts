import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';

/** The snooze columns of `chats` (migration 047): set, cleared, and the due ones claimed. */
export class ChatSnoozeRepo {
  constructor(private readonly db: Db) {}

  /** Snoozes the chat (under its row lock): until `until`, or until the customer writes (null). */
  async set(tx: Tx, chatId: string, until: Date | null, by: string): Promise<void> {
    await tx
      .updateTable('chats')
      .set({
        snoozed_at: sql<Date>`now()`,
        snoozed_until: until,
        snoozed_by: by,
        version: sql`version + 1`,
        updated_at: sql`now()`,
      })
      .where('id', '=', chatId)
      .execute();
  }

  /** Ends the chat's snooze (under its row lock). */
  async clear(tx: Tx, chatId: string): Promise<void> {
    await tx
      .updateTable('chats')
      .set({
        snoozed_at: null,
        snoozed_until: null,
        snoozed_by: null,
        version: sql`version + 1`,
        updated_at: sql`now()`,
      })
      .where('id', '=', chatId)
      .execute();
  }

  /**
   * Ends up to `limit` snoozes whose time has come, in time order, in one statement of the caller's
   * transaction: the rows are locked as they are claimed, and a chat another transaction holds (a
   * wake-up on another node, any change of the chat) is skipped, left for the next round. Once this
   * transaction commits the chat is no longer due, and if it rolls back it still is: each snooze ends
   * once, with its event, however many nodes look (`chats_snooze_due_idx`).
   */
  async claimDue(tx: Tx, limit: number): Promise<{ id: string; account_id: string }[]> {
    const { rows } = await sql<{ id: string; account_id: string }>`
      WITH due AS (
        SELECT id FROM chats WHERE snoozed_until <= now()
        ORDER BY snoozed_until LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      UPDATE chats c SET snoozed_at = NULL, snoozed_until = NULL, snoozed_by = NULL,
        version = c.version + 1, updated_at = now()
      FROM due WHERE c.id = due.id AND c.snoozed_until <= now()
      RETURNING c.id, c.account_id`.execute(tx);
    return rows;
  }

  /** The earliest snooze time still to come (or past and not yet woken); null when none. */
  async nextDue(): Promise<Date | null> {
    const row = await this.db
      .selectFrom('chats')
      .select((eb) => eb.fn.min('snoozed_until').as('next'))
      .where('snoozed_until', 'is not', null)
      .executeTakeFirst();
    return (row?.next as Date | null | undefined) ?? null;
  }

  /** The active members of these teams, by team: whom a chat without an attendant comes back to. */
  async activeMembers(tx: Tx, teamIds: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (teamIds.length === 0) return out;
    const rows = await tx
      .selectFrom('team_members as tm')
      .innerJoin('users as u', 'u.id', 'tm.user_id')
      .select(['tm.team_id', 'tm.user_id'])
      .where('tm.team_id', 'in', [...new Set(teamIds)])
      .where('u.status', '=', 'active')
      .orderBy('tm.user_id')
      .execute();
    for (const r of rows) out.set(r.team_id, [...(out.get(r.team_id) ?? []), r.user_id]);
    return out;
  }
}
