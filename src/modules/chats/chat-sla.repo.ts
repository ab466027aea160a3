import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { SlaKind } from './chats.schemas.js';

/** Where each kind's breach is claimed: the due column, the breach column, and the rest of its partial index's predicate. */
const KINDS: Record<SlaKind, { due: string; breached: string; pending: string }> = {
  first_response: {
    due: 'first_response_due_at',
    breached: 'first_response_breached_at',
    pending: 'first_responded_at IS NULL',
  },
  resolution: { due: 'resolution_due_at', breached: 'resolution_breached_at', pending: 'true' },
};

/** The predicate of the kind's partial index (migration 058), written as the index states it. */
const stillDue = (k: SlaKind, c = '') => {
  const { due, breached, pending } = KINDS[k];
  const p = pending === 'true' ? '' : ` AND ${c}${pending}`;
  return `${c}status = 'open'${p} AND ${c}${breached} IS NULL AND ${c}${due} IS NOT NULL`;
};

export interface BreachRow {
  id: string;
  account_id: string;
  kind: SlaKind;
  due_at: Date;
}

/** The SLA columns of `chats` (migration 058): the due instants set, the breaches claimed. */
export class ChatSlaRepo {
  constructor(private readonly db: Db) {}

  /** The conversation's due instants, as its clock started (under its row lock, in the inbound transaction). */
  async setDue(
    tx: Tx,
    chatId: string,
    due: { firstResponseDueAt: Date | null; resolutionDueAt: Date | null },
  ) {
    await tx
      .updateTable('chats')
      .set({ first_response_due_at: due.firstResponseDueAt, resolution_due_at: due.resolutionDueAt })
      .where('id', '=', chatId)
      .execute();
  }

  /**
   * Marks breached up to `limit` conversations of one kind whose due instant has passed, in due
   * order, in one statement of the caller's transaction: rows another transaction holds (a claim on
   * another node, a reply being written) are skipped and left for the next round, and the update
   * checks the row again under its lock. Once this transaction commits the conversation has left the
   * kind's index; if it rolls back it is still due: each breach is raised once, with its event.
   */
  async claim(tx: Tx, kind: SlaKind, limit: number): Promise<BreachRow[]> {
    const { due, breached } = KINDS[kind];
    const { rows } = await sql<BreachRow>`
      WITH d AS (
        SELECT id FROM chats WHERE ${sql.raw(stillDue(kind))} AND ${sql.ref(due)} <= now()
        ORDER BY ${sql.ref(due)} LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      UPDATE chats c SET ${sql.ref(breached)} = now(), version = c.version + 1, updated_at = now()
      FROM d WHERE c.id = d.id AND ${sql.raw(stillDue(kind, 'c.'))} AND c.${sql.ref(due)} <= now()
      RETURNING c.id, c.account_id, ${kind}::text AS kind, c.${sql.ref(due)} AS due_at`.execute(tx);
    return rows;
  }

  /** The earliest due instant of a conversation still able to breach; null when none. */
  async nextDue(): Promise<Date | null> {
    const { rows } = await sql<{ next: Date | null }>`
      SELECT least(
        (SELECT min(first_response_due_at) FROM chats WHERE ${sql.raw(stillDue('first_response'))}),
        (SELECT min(resolution_due_at) FROM chats WHERE ${sql.raw(stillDue('resolution'))})) AS next`.execute(
      this.db,
    );
    return rows[0]?.next ?? null;
  }

  /**
   * The supervisors of these teams, by team: active members whose role supervises conversations
   * (`chats:supervise_team`, or `chats:supervise` for an admin who is a member).
   */
  async supervisors(tx: Tx, teamIds: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (teamIds.length === 0) return out;
    const { rows } = await sql<{ team_id: string; user_id: string }>`
      SELECT tm.team_id, tm.user_id FROM team_members tm
      JOIN users u ON u.id = tm.user_id JOIN roles r ON r.id = u.role_id
      WHERE tm.team_id = ANY(${[...new Set(teamIds)]}::text[]) AND u.status = 'active'
        AND r.permissions && ARRAY['chats:supervise_team', 'chats:supervise']::text[]
      ORDER BY tm.user_id`.execute(tx);
    for (const r of rows) out.set(r.team_id, [...(out.get(r.team_id) ?? []), r.user_id]);
    return out;
  }
}
