import { sql, type Selectable } from 'kysely';
import type { Db, Tx } from '../../db/index.js';
import type { ChatNotesTable } from '../../db/types.js';

export type NoteRow = Selectable<ChatNotesTable>;

/** Where a chat is, as who may see it depends on: its team and attendant. */
export interface ChatReach {
  teamId: string;
  userId: string | null;
}

const noteColumns = [
  'id',
  'account_id',
  'chat_id',
  'user_id',
  'text',
  'mentions',
  'created_at',
  'updated_at',
] as const;

/** A mention as listed: the note, its notification's read state, the conversation's customer. */
export interface MentionRow {
  note: NoteRow;
  notification_id: string;
  read_at: Date | null;
  created_at: Date;
  contact_name: string;
  contact_value: string;
}

const likeEscaped = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export class NotesRepo {
  constructor(private readonly db: Db) {}

  async insert(tx: Tx, row: Omit<NoteRow, 'created_at' | 'updated_at'>): Promise<NoteRow> {
    return tx.insertInto('chat_notes').values(row).returning(noteColumns).executeTakeFirstOrThrow();
  }

  async find(accountId: string, chatId: string, id: string, db: Db | Tx = this.db) {
    return db
      .selectFrom('chat_notes')
      .select(noteColumns)
      .where('account_id', '=', accountId)
      .where('chat_id', '=', chatId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** The note locked for its edit or deletion. */
  async lock(tx: Tx, accountId: string, chatId: string, id: string): Promise<NoteRow | undefined> {
    return tx
      .selectFrom('chat_notes')
      .select(noteColumns)
      .where('account_id', '=', accountId)
      .where('chat_id', '=', chatId)
      .where('id', '=', id)
      .forUpdate()
      .executeTakeFirst();
  }

  async update(tx: Tx, id: string, text: string, mentions: string[]): Promise<NoteRow> {
    return tx
      .updateTable('chat_notes')
      .set({ text, mentions, updated_at: sql`now()` })
      .where('id', '=', id)
      .returning(noteColumns)
      .executeTakeFirstOrThrow();
  }

  async delete(tx: Tx, id: string): Promise<void> {
    await tx.deleteFrom('chat_notes').where('id', '=', id).execute();
  }

  /** A chat's notes, newest first, before the note `before` (its time and id) when given. */
  async list(chatId: string, before: { created_at: Date; id: string } | null, limit: number) {
    let q = this.db.selectFrom('chat_notes').select(noteColumns).where('chat_id', '=', chatId);
    if (before) {
      q = q.where(sql<boolean>`(created_at, id) < (${before.created_at}, ${before.id})`);
    }
    return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  }

  /**
   * The users among `ids` who may see a chat where it is now: active users of the account who attend
   * it, belong to its team or hold `chats:read_all` (as ChatsService.canSee).
   */
  async mayMention(
    db: Db | Tx,
    accountId: string,
    chat: ChatReach,
    ids: readonly string[],
  ): Promise<{ id: string; name: string }[]> {
    if (ids.length === 0) return [];
    return this.mayMentionQuery(db, accountId, chat)
      .where('u.id', 'in', ids)
      .select(['u.id', 'u.name'])
      .execute();
  }

  /** Users who may see the chat, whose name or e-mail contains `q`, by name. */
  async searchMentionable(accountId: string, chat: ChatReach, q: string, limit: number) {
    let query = this.mayMentionQuery(this.db, accountId, chat);
    const term = q.trim();
    if (term !== '') {
      const like = `%${likeEscaped(term.toLowerCase())}%`;
      query = query.where((eb) =>
        eb.or([eb(sql`lower(u.name)`, 'like', like), eb(sql`lower(u.email)`, 'like', like)]),
      );
    }
    return query
      .select(['u.id', 'u.name', 'u.email'])
      .orderBy('u.name')
      .orderBy('u.id')
      .limit(limit)
      .execute();
  }

  private mayMentionQuery(db: Db | Tx, accountId: string, chat: ChatReach) {
    return db
      .selectFrom('users as u')
      .innerJoin('roles as r', 'r.id', 'u.role_id')
      .where('u.account_id', '=', accountId)
      .where('u.status', '<>', 'cancelled')
      .where((eb) =>
        eb.or([
          eb('u.id', '=', chat.userId ?? ''),
          eb(sql<string>`'chats:read_all'`, '=', sql<string>`ANY(r.permissions)`),
          eb.exists(
            eb
              .selectFrom('team_members as tm')
              .select(sql`1`.as('one'))
              .where('tm.team_id', '=', chat.teamId)
              .whereRef('tm.user_id', '=', 'u.id'),
          ),
        ]),
      );
  }

  async insertMentions(
    tx: Tx,
    rows: {
      note_id: string;
      user_id: string;
      account_id: string;
      chat_id: string;
      notification_id: string;
    }[],
  ): Promise<void> {
    if (rows.length === 0) return;
    await tx.insertInto('note_mentions').values(rows).execute();
  }

  async deleteMentions(tx: Tx, noteId: string, userIds: readonly string[]): Promise<void> {
    if (userIds.length === 0) return;
    await tx
      .deleteFrom('note_mentions')
      .where('note_id', '=', noteId)
      .where('user_id', 'in', userIds)
      .execute();
  }

  /** A user's mentions in the chats they may still see (`readAll`: every chat of the account). */
  private mentionsOf(userId: string, readAll: boolean) {
    const q = this.db
      .selectFrom('note_mentions as m')
      .innerJoin('notifications as x', 'x.id', 'm.notification_id')
      .innerJoin('chats as c', 'c.id', 'm.chat_id')
      .where('m.user_id', '=', userId);
    if (readAll) return q;
    return q.where((eb) =>
      eb.or([
        eb('c.user_id', '=', userId),
        eb.exists(
          eb
            .selectFrom('team_members as tm')
            .select(sql`1`.as('one'))
            .whereRef('tm.team_id', '=', 'c.team_id')
            .where('tm.user_id', '=', userId),
        ),
      ]),
    );
  }

  /** The user's mentions, newest first, with their notes, read state and the chat's customer. */
  async mentions(
    userId: string,
    opts: { unreadOnly: boolean; limit: number; readAll: boolean },
  ): Promise<MentionRow[]> {
    let q = this.mentionsOf(userId, opts.readAll)
      .innerJoin('chat_notes as n', 'n.id', 'm.note_id')
      .innerJoin('contacts as ct', 'ct.id', 'c.contact_id');
    if (opts.unreadOnly) q = q.where('x.read_at', 'is', null);
    const rows = await q
      .select([
        'n.id',
        'n.account_id',
        'n.chat_id',
        'n.user_id',
        'n.text',
        'n.mentions',
        'n.created_at',
        'n.updated_at',
        'm.notification_id',
        'x.read_at',
        'm.created_at as mentioned_at',
        'ct.name as contact_name',
        'ct.value as contact_value',
      ])
      .orderBy('m.created_at', 'desc')
      .orderBy('m.note_id', 'desc')
      .limit(opts.limit)
      .execute();
    return rows.map((r) => ({
      note: {
        id: r.id,
        account_id: r.account_id,
        chat_id: r.chat_id,
        user_id: r.user_id,
        text: r.text,
        mentions: r.mentions,
        created_at: r.created_at,
        updated_at: r.updated_at,
      },
      notification_id: r.notification_id,
      read_at: r.read_at,
      created_at: r.mentioned_at,
      contact_name: r.contact_name ?? '',
      contact_value: r.contact_value,
    }));
  }

  async unreadMentions(userId: string, readAll: boolean): Promise<number> {
    const row = await this.mentionsOf(userId, readAll)
      .select(sql<number>`count(*)::int`.as('n'))
      .where('x.read_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
