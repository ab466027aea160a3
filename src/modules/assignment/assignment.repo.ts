import { sql } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import { Statement } from '../../db/prepared.js';
import type { AssignmentMode, UserAvailability } from '../../db/types.js';
import { QUEUE_ATTENDING, QUEUE_WAITING } from '../chats/index.js';

export interface TeamAssignmentRow {
  team_id: string;
  account_id: string;
  mode: AssignmentMode;
  max_open: number | null;
  overrides: Record<string, number>;
  release_on_offline: boolean;
  updated_at: Date;
}

const COLUMNS = [
  'team_id',
  'account_id',
  'mode',
  'max_open',
  'overrides',
  'release_on_offline',
  'updated_at',
] as const;

/**
 * Where a waiting conversation is: open, in `Espera`, nobody attending, not snoozed
 * (chats_waiting_team_idx). The queue is written in the text, as the partial index's predicate is, so
 * that a prepared statement's generic plan may use the index.
 */
const WAITING_SQL = `c.status = 'open' AND c.queue = '${QUEUE_WAITING}' AND c.user_id IS NULL AND c.snoozed_at IS NULL`;
const WAITING = sql.raw(WAITING_SQL);

/** A team member who may get conversations: online, active, with a role that attends. */
const ASSIGNABLE_SQL = `u.availability = 'online' AND u.status = 'active'
  AND EXISTS (SELECT 1 FROM roles r WHERE r.id = u.role_id AND 'chats:attend' = ANY(r.permissions))`;
const ASSIGNABLE = sql.raw(ASSIGNABLE_SQL);

// What each wake-up of the assigner reads first (`accountsToAssign`), several times a second while
// conversations arrive: prepared.
const accountsWaiting = Statement.prepared<{ account_id: string }>(`SELECT DISTINCT a.account_id
FROM team_assignment a
WHERE a.mode <> 'off'
  AND EXISTS (SELECT 1 FROM chats c WHERE c.team_id = a.team_id AND ${WAITING_SQL})
  AND EXISTS (SELECT 1 FROM team_members m JOIN users u ON u.id = m.user_id
    WHERE m.team_id = a.team_id AND ${ASSIGNABLE_SQL})
LIMIT $1::int`);

/** Lock class of the account's assignment lock (pg_advisory_xact_lock(class, hashtext(account))). */
const ASSIGN_LOCK = sql`hashtext('team_assignment')`;

/** The tables of automatic assignment (migration 055) and what it reads of chats and members. */
export class AssignmentRepo {
  constructor(private readonly db: Db) {}

  async find(
    accountId: string,
    teamId: string,
    db: Db | Tx = this.db,
  ): Promise<TeamAssignmentRow | undefined> {
    return db
      .selectFrom('team_assignment')
      .select(COLUMNS)
      .where('account_id', '=', accountId)
      .where('team_id', '=', teamId)
      .executeTakeFirst();
  }

  /** Replaces the team's configuration (the team is the account's: the caller checked it). */
  async upsert(
    tx: Tx,
    row: {
      team_id: string;
      account_id: string;
      mode: AssignmentMode;
      max_open: number | null;
      overrides: Record<string, number>;
      release_on_offline: boolean;
      updated_by: string;
    },
  ): Promise<TeamAssignmentRow> {
    const values = { ...row, overrides: JSON.stringify(row.overrides) };
    return tx
      .insertInto('team_assignment')
      .values(values)
      .onConflict((oc) =>
        oc.column('team_id').doUpdateSet({
          mode: values.mode,
          max_open: values.max_open,
          overrides: values.overrides,
          release_on_offline: values.release_on_offline,
          updated_by: values.updated_by,
          updated_at: sql`now()`,
        }),
      )
      .returning(COLUMNS)
      .executeTakeFirstOrThrow();
  }

  /** Which of `userIds` are members of the team. */
  async members(teamId: string, userIds: readonly string[], db: Db | Tx = this.db): Promise<Set<string>> {
    if (userIds.length === 0) return new Set();
    const rows = await db
      .selectFrom('team_members')
      .select('user_id')
      .where('team_id', '=', teamId)
      .where('user_id', 'in', [...userIds])
      .execute();
    return new Set(rows.map((r) => r.user_id));
  }

  /**
   * The accounts with a team that assigns, has a waiting conversation and an online member: what a
   * wake-up looks at (a small table, each team's check on an index).
   */
  async accountsToAssign(limit: number): Promise<string[]> {
    const rows = await accountsWaiting.execute(this.db, [limit]);
    return rows.map((r) => r.account_id);
  }

  /**
   * The account's assignment lock, to the end of the transaction: one assigner per account at a time
   * on every node, so no chat is given twice and an agent's count is never read stale. Account-wide,
   * not per team, because an agent of several teams has one count.
   */
  async lockAccount(tx: Tx, accountId: string): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(${ASSIGN_LOCK}, hashtext(${accountId}))`.execute(tx);
  }

  /** The account's teams that assign and have a waiting conversation. */
  async teamsWaiting(tx: Tx, accountId: string): Promise<TeamAssignmentRow[]> {
    const { rows } = await sql<TeamAssignmentRow>`
      SELECT a.team_id, a.account_id, a.mode, a.max_open, a.overrides, a.release_on_offline, a.updated_at
      FROM team_assignment a
      WHERE a.account_id = ${accountId} AND a.mode <> 'off'
        AND EXISTS (SELECT 1 FROM chats c WHERE c.team_id = a.team_id AND ${WAITING})
      ORDER BY a.team_id`.execute(tx);
    return rows;
  }

  /** The team's members who may get conversations now, with their open conversations (every team). */
  async candidates(
    tx: Tx,
    accountId: string,
    teamId: string,
  ): Promise<{ user_id: string; open: number; last_assigned_at: Date | null }[]> {
    const { rows } = await sql<{ user_id: string; open: number; last_assigned_at: Date | null }>`
      SELECT m.user_id, m.last_assigned_at,
             (SELECT count(*)::int FROM chats c
              WHERE c.account_id = ${accountId} AND c.user_id = m.user_id AND c.status = 'open') AS open
      FROM team_members m JOIN users u ON u.id = m.user_id
      WHERE m.team_id = ${teamId} AND u.account_id = ${accountId} AND ${ASSIGNABLE}`.execute(tx);
    return rows;
  }

  /**
   * The team's waiting conversations, oldest first, row-locked; one another operation holds (a
   * transfer, a capture) is skipped: its change decides, and the next wake-up sees the result.
   */
  async waitingChats(tx: Tx, teamId: string, limit: number): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      SELECT c.id FROM chats c
      WHERE c.team_id = ${teamId} AND ${WAITING}
      ORDER BY c.created_at, c.id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED`.execute(tx);
    return rows.map((r) => r.id);
  }

  /** Gives each chat its agent, as a capture does (`Em Atendimento`); the ids changed. */
  async assign(tx: Tx, pairs: readonly { chatId: string; userId: string }[]): Promise<string[]> {
    if (pairs.length === 0) return [];
    const { rows } = await sql<{ id: string }>`
      UPDATE chats c SET queue = ${QUEUE_ATTENDING}, user_id = v.user_id, version = c.version + 1, updated_at = now()
      FROM unnest(${pairs.map((p) => p.chatId)}::text[], ${pairs.map((p) => p.userId)}::text[]) AS v(id, user_id)
      WHERE c.id = v.id AND ${WAITING}
      RETURNING c.id`.execute(tx);
    return rows.map((r) => r.id);
  }

  /** Records when each member last got a conversation of the team (their order is the picks'). */
  async assigned(tx: Tx, teamId: string, userIds: readonly string[]): Promise<void> {
    if (userIds.length === 0) return;
    await sql`
      UPDATE team_members m SET last_assigned_at = now() + v.n * interval '1 microsecond'
      FROM unnest(${[...userIds]}::text[]) WITH ORDINALITY AS v(user_id, n)
      WHERE m.team_id = ${teamId} AND m.user_id = v.user_id`.execute(tx);
  }

  /**
   * The user's open conversations in `Em Atendimento` of teams that give them back when their agent
   * goes offline (assignment on, `release_on_offline`) to which the user has sent no message,
   * row-locked (one held elsewhere is left with them).
   */
  async unanswered(tx: Tx, accountId: string, userId: string): Promise<string[]> {
    const { rows } = await sql<{ id: string }>`
      SELECT c.id FROM chats c
      JOIN team_assignment a ON a.team_id = c.team_id AND a.mode <> 'off' AND a.release_on_offline
      WHERE c.account_id = ${accountId} AND c.user_id = ${userId} AND c.status = 'open'
        AND c.queue = ${QUEUE_ATTENDING}
        AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.chat_id = c.id AND m.origin = 'user' AND m.user_id = ${userId})
      ORDER BY c.created_at, c.id
      FOR UPDATE OF c SKIP LOCKED`.execute(tx);
    return rows.map((r) => r.id);
  }

  /** Puts chats back in their team's `Espera` with no attendant. */
  async release(tx: Tx, chatIds: readonly string[]): Promise<void> {
    if (chatIds.length === 0) return;
    await sql`
      UPDATE chats SET queue = ${QUEUE_WAITING}, user_id = NULL, version = version + 1, updated_at = now()
      WHERE id = ANY(${[...chatIds]}::text[])`.execute(tx);
  }

  // --- Availability --------------------------------------------------------------------------------

  async availability(
    accountId: string,
    userId: string,
    db: Db | Tx = this.db,
  ): Promise<{ availability: UserAvailability; availability_at: Date } | undefined> {
    return db
      .selectFrom('users')
      .select(['availability', 'availability_at'])
      .where('account_id', '=', accountId)
      .where('id', '=', userId)
      .executeTakeFirst();
  }

  /** A choice of the user's own: it also ends a pending comeback. The row before and after, locked. */
  async setAvailability(
    tx: Tx,
    accountId: string,
    userId: string,
    availability: UserAvailability,
  ): Promise<{ before: UserAvailability; availability_at: Date } | undefined> {
    const { rows } = await sql<{ before: UserAvailability; availability_at: Date }>`
      UPDATE users u SET availability = ${availability}, availability_resume = NULL,
        availability_at = CASE WHEN u.availability = ${availability} THEN u.availability_at ELSE now() END
      FROM (SELECT id, availability FROM users WHERE id = ${userId} AND account_id = ${accountId} FOR UPDATE) old
      WHERE u.id = old.id
      RETURNING old.availability AS before, u.availability_at`.execute(tx);
    return rows[0];
  }

  /**
   * Users not offline whose connections have all been gone for `graceMs` (none live and seen since;
   * a dead node's rows stop being renewed), and whose availability is older than that: set offline,
   * remembering what they were. At most `limit`; rows another sweep holds are skipped.
   */
  async sweepOffline(
    tx: Tx,
    graceMs: number,
    limit: number,
  ): Promise<{ id: string; account_id: string; availability_at: Date }[]> {
    const { rows } = await sql<{ id: string; account_id: string; availability_at: Date }>`
      UPDATE users u SET availability = 'offline', availability_resume = u.availability, availability_at = now()
      WHERE u.id IN (
        SELECT s.id FROM users s
        WHERE s.availability <> 'offline' AND s.availability_at < now() - ${graceMs} * interval '1 millisecond'
          AND NOT EXISTS (SELECT 1 FROM user_connections k
                          WHERE k.user_id = s.id AND k.seen_at > now() - ${graceMs} * interval '1 millisecond')
        LIMIT ${limit}
        FOR UPDATE SKIP LOCKED)
      RETURNING u.id, u.account_id, u.availability_at`.execute(tx);
    return rows;
  }

  /** A user the sweep set offline connected again: back to what they were. The row after, if it changed. */
  async resume(
    tx: Tx,
    userId: string,
  ): Promise<{ account_id: string; availability: UserAvailability; availability_at: Date } | undefined> {
    const { rows } = await sql<{ account_id: string; availability: UserAvailability; availability_at: Date }>`
      UPDATE users SET availability = availability_resume, availability_resume = NULL, availability_at = now()
      WHERE id = ${userId} AND availability = 'offline' AND availability_resume IS NOT NULL
      RETURNING account_id, availability, availability_at`.execute(tx);
    return rows[0];
  }

  // --- Gateway connections ----------------------------------------------------------------------

  /** The node has a connection of each user, as of now (first connection, and the heartbeat). */
  async connectionsLive(nodeId: string, userIds: readonly string[]): Promise<void> {
    if (userIds.length === 0) return;
    await sql`
      INSERT INTO user_connections (user_id, node_id, live, seen_at)
      SELECT u, ${nodeId}, true, now() FROM unnest(${[...userIds]}::text[]) AS u
      JOIN users ON users.id = u
      ON CONFLICT (user_id, node_id) DO UPDATE SET live = true, seen_at = now()`.execute(this.db);
  }

  /** The user's last connection on the node went now. */
  async connectionsGone(nodeId: string, userIds: readonly string[]): Promise<void> {
    if (userIds.length === 0) return;
    await sql`
      UPDATE user_connections SET live = false, seen_at = now()
      WHERE node_id = ${nodeId} AND user_id = ANY(${[...userIds]}::text[])`.execute(this.db);
  }

  /** Rows no sweep needs any more: gone (or their node dead) for longer than `olderThanMs`. */
  async purgeConnections(olderThanMs: number): Promise<void> {
    await sql`DELETE FROM user_connections WHERE seen_at < now() - ${olderThanMs} * interval '1 millisecond'`.execute(
      this.db,
    );
  }
}
