import { sql, type Expression, type SqlBool } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import { Statement } from '../../db/prepared.js';
import { sqlInteger } from '../../db/sql-text.js';
import type { CannedScope } from '../../db/types.js';

/** Who is looking: what decides which responses they see. */
export interface CannedViewer {
  accountId: string;
  userId: string;
  /** Every team's responses (admins), not only those of the viewer's teams. */
  allTeams: boolean;
}

/** A response with its file's description. */
export interface CannedRow {
  id: string;
  account_id: string;
  scope: CannedScope;
  team_id: string | null;
  user_id: string | null;
  shortcut: string;
  content: string;
  attachment_id: string | null;
  attachment_mimetype: string | null;
  attachment_filename: string | null;
  attachment_size: string | null;
  usage_count: number;
  last_used_at: Date | null;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface CannedFilters {
  /** Folded by the database as the rows are (`search_fold`); LIKE's own characters taken literally. */
  search?: string;
  scope?: CannedScope;
  teamId?: string;
}

/** A search the trigram index can look up: it holds a run of three letters or digits (pg_trgm's words). */
const TRIGRAM = /[\p{L}\p{N}]{3}/u;

/** `LIKE` treats `%`, `_` and the escape character as patterns; a search means them literally. */
const likeEscape = (s: string) => s.replace(/[\\%_]/g, '\\$&');

/** What a conversation gives the variables: its team and attendant (who may see it) and its customer. */
export interface ChatForRender {
  team_id: string;
  user_id: string | null;
  customer_id: string;
  name: string | null;
}

export class CannedRepo {
  constructor(private readonly db: Db) {}

  private select(db: Db | Tx) {
    return db
      .selectFrom('canned_responses as r')
      .leftJoin('media_blobs as b', 'b.id', 'r.attachment_id')
      .select([
        'r.id',
        'r.account_id',
        'r.scope',
        'r.team_id',
        'r.user_id',
        'r.shortcut',
        'r.content',
        'r.attachment_id',
        'b.mimetype as attachment_mimetype',
        'b.filename as attachment_filename',
        sql<string | null>`coalesce(b.size, octet_length(b.bytes))`.as('attachment_size'),
        'r.usage_count',
        'r.last_used_at',
        'r.created_by',
        'r.created_at',
        'r.updated_at',
      ]);
  }

  /** The responses `viewer` sees: the account's, their teams' (every team's for admins), their own. */
  private visible(viewer: CannedViewer): Expression<SqlBool> {
    const teams = viewer.allTeams
      ? sql<boolean>`true`
      : sql<boolean>`r.team_id IN (SELECT m.team_id FROM team_members m WHERE m.user_id = ${viewer.userId})`;
    return sql<boolean>`(r.account_id = ${viewer.accountId} AND (
      r.scope = 'account'
      OR (r.scope = 'personal' AND r.user_id = ${viewer.userId})
      OR (r.scope = 'team' AND ${teams})))`;
  }

  private filtered(viewer: CannedViewer, f: CannedFilters) {
    let q = this.select(this.db).where(this.visible(viewer));
    if (f.scope) q = q.where('r.scope', '=', f.scope);
    if (f.teamId) q = q.where('r.team_id', '=', f.teamId);
    if (f.search) {
      const term = likeEscape(f.search);
      q = q.where(sql<boolean>`r.search_text LIKE '%' || search_fold(${term}) || '%'`);
    }
    return q;
  }

  /**
   * A page of what `viewer` sees, with the total. With a search, shortcuts that start with it first,
   * then the most used; otherwise by shortcut.
   *
   * The composer's picker asks this on every key (bench/README.md `canned-picker`), so it is
   * one prepared statement that reads the page and the count together (`count(*) OVER ()`), in one of
   * two forms whose one generic plan suits every search of its kind: a search with a run of three
   * letters or digits matches through the trigram index (`LIKE`); a shorter one has no trigram to look
   * up and matches every response the viewer sees in one pass (`strpos`, the same test without
   * `LIKE`'s escapes). The search is folded once per statement (a sub-select), not once per row.
   */
  async list(
    viewer: CannedViewer,
    f: CannedFilters,
    limit: number,
    offset: number,
  ): Promise<{ rows: CannedRow[]; total: number }> {
    const values: unknown[] = [
      viewer.accountId,
      viewer.userId,
      viewer.allTeams,
      f.scope ?? null,
      f.teamId ?? null,
    ];
    let match = '';
    let order = 'lower(r.shortcut), r.id';
    if (f.search) {
      if (TRIGRAM.test(f.search)) {
        values.push(likeEscape(f.search));
        match = `AND r.search_text LIKE (SELECT '%' || search_fold($6) || '%')`;
        order = `r.search_shortcut LIKE (SELECT search_fold($6) || '%') DESC, r.usage_count DESC, ${order}`;
      } else {
        values.push(f.search);
        match = 'AND strpos(r.search_text, (SELECT search_fold($6))) > 0';
        order = `starts_with(r.search_shortcut, (SELECT search_fold($6))) DESC, r.usage_count DESC, ${order}`;
      }
    }
    const text = `SELECT r.id, r.account_id, r.scope, r.team_id, r.user_id, r.shortcut, r.content, r.attachment_id,
 b.mimetype AS attachment_mimetype, b.filename AS attachment_filename,
 coalesce(b.size, octet_length(b.bytes)) AS attachment_size,
 r.usage_count, r.last_used_at, r.created_by, r.created_at, r.updated_at,
 (count(*) OVER ())::int AS total_matches
FROM canned_responses r
LEFT JOIN media_blobs b ON b.id = r.attachment_id
WHERE r.account_id = $1
 AND (r.scope = 'account' OR (r.scope = 'personal' AND r.user_id = $2)
  OR (r.scope = 'team' AND ($3::boolean OR r.team_id IN (SELECT m.team_id FROM team_members m WHERE m.user_id = $2))))
 AND ($4::text IS NULL OR r.scope = $4) AND ($5::text IS NULL OR r.team_id = $5)
 ${match}
ORDER BY ${order}
LIMIT ${sqlInteger(limit)} OFFSET ${sqlInteger(offset)}`;
    // First pages are what the picker asks; deeper pages stay unnamed (src/db/prepared.ts).
    const rows = await Statement.shaped<CannedRow & { total_matches: number }>(text, offset === 0).execute(
      this.db,
      values,
    );
    // The presenter reads the row's own fields; the count beside them goes no further.
    if (rows.length > 0) return { rows, total: rows[0]!.total_matches };
    // Nothing on this page: none match, or the page is past the last one (the count alone, then).
    if (offset === 0) return { rows: [], total: 0 };
    const count = await this.filtered(viewer, f)
      .clearSelect()
      .select(sql<number>`count(*)::int`.as('n'))
      .executeTakeFirstOrThrow();
    return { rows: [], total: count.n };
  }

  async find(viewer: CannedViewer, id: string, db: Db | Tx = this.db): Promise<CannedRow | undefined> {
    return (await this.select(db).where('r.id', '=', id).where(this.visible(viewer)).executeTakeFirst()) as
      CannedRow | undefined;
  }

  /**
   * How many responses an owner holds, counted under a lock on that owner for the rest of the
   * transaction: two creations at once cannot both take the last place.
   */
  async countOwnerLocked(tx: Tx, accountId: string, ownerKey: string): Promise<number> {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`canned:${accountId}:${ownerKey}`}, 0))`.execute(
      tx,
    );
    const row = await tx
      .selectFrom('canned_responses')
      .select(sql<number>`count(*)::int`.as('n'))
      .where('account_id', '=', accountId)
      .where('owner_key', '=', ownerKey)
      .executeTakeFirstOrThrow();
    return row.n;
  }

  async insert(
    tx: Tx,
    row: {
      id: string;
      account_id: string;
      scope: CannedScope;
      team_id: string | null;
      user_id: string | null;
      owner_key: string;
      shortcut: string;
      content: string;
      created_by: string;
    },
  ): Promise<void> {
    await tx.insertInto('canned_responses').values(row).execute();
  }

  async update(
    tx: Tx,
    accountId: string,
    id: string,
    patch: { shortcut?: string; content?: string },
  ): Promise<void> {
    await tx
      .updateTable('canned_responses')
      .set({ ...patch, updated_at: sql`now()` })
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .execute();
  }

  /** Deletes a response; its file's id, for the caller to delete in the same transaction. */
  async delete(tx: Tx, accountId: string, id: string): Promise<string | null> {
    const row = await tx
      .deleteFrom('canned_responses')
      .where('account_id', '=', accountId)
      .where('id', '=', id)
      .returning('attachment_id')
      .executeTakeFirst();
    return row?.attachment_id ?? null;
  }

  /** Points the response at another file (or none); the previous file's id, to delete. */
  async setAttachment(
    tx: Tx,
    accountId: string,
    id: string,
    attachmentId: string | null,
  ): Promise<string | null> {
    const row = await sql<{ previous: string | null }>`
      UPDATE canned_responses r SET attachment_id = ${attachmentId}, updated_at = now()
        FROM canned_responses old
       WHERE r.id = old.id AND r.account_id = ${accountId} AND r.id = ${id}
      RETURNING old.attachment_id AS previous`
      .execute(tx)
      .then((r) => r.rows[0]);
    return row?.previous ?? null;
  }

  /**
   * One more use, counted in the statement itself (`usage_count + 1`): uses at the same moment are all
   * counted. Only a response `viewer` sees; undefined otherwise.
   */
  async countUse(
    viewer: CannedViewer,
    id: string,
  ): Promise<{ id: string; usage_count: number; last_used_at: Date } | undefined> {
    const row = await this.db
      .updateTable('canned_responses as r')
      .set({ usage_count: sql<number>`r.usage_count + 1`, last_used_at: sql<Date>`now()` })
      .where('r.id', '=', id)
      .where(this.visible(viewer))
      .returning(['r.id', 'r.usage_count', 'r.last_used_at'])
      .executeTakeFirst();
    return row ? { id: row.id, usage_count: row.usage_count, last_used_at: row.last_used_at! } : undefined;
  }

  /** A conversation of the account with its customer's name (the customer's, else the contact's). */
  async chatForRender(accountId: string, chatId: string): Promise<ChatForRender | undefined> {
    return this.db
      .selectFrom('chats as c')
      .innerJoin('contacts as ct', 'ct.id', 'c.contact_id')
      .leftJoin('customers as cu', 'cu.id', 'ct.customer_id')
      .select([
        'c.team_id',
        'c.user_id',
        'ct.customer_id',
        sql<string | null>`coalesce(nullif(btrim(cu.name), ''), ct.name)`.as('name'),
      ])
      .where('c.account_id', '=', accountId)
      .where('c.id', '=', chatId)
      .executeTakeFirst();
  }
}
