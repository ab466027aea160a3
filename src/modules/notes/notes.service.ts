import type { Tx } from '../../db/index.js';
import type { EventBuffer, EventsService } from '../../events/events.service.js';
import { targets } from '../../events/rooms.js';
import { badRequest, forbidden, notFound } from '../../http/errors.js';
import { pt } from '../../http/language.js';
import { newId } from '../../lib/ids.js';
import type { UserActor } from '../../access/actors.js';
import { requirePermission } from '../../access/guards.js';
import type { ChatT } from '../chats/index.js';
import type { NotificationsService } from '../notifications/index.js';
import { toNote } from './notes.presenter.js';
import type { NotesRepo } from './notes.repo.js';
import {
  NOTE_DELETE,
  NOTE_NEW,
  NOTE_UPDATE,
  type CreateNoteInput,
  type MentionT,
  type NoteT,
  type UpdateNoteInput,
} from './notes.schemas.js';

export const MENTION_NOT_ALLOWED = pt(
  'Só é possível mencionar usuários ativos que podem ver esta conversa',
  'Only active users who may see this conversation can be mentioned',
);
export const NOTE_NOT_YOURS = pt(
  'Somente quem escreveu a nota pode alterá-la ou apagá-la',
  'Only the author of a note can edit or delete it',
);
export const UNKNOWN_NOTE_CURSOR = pt(
  'before deve ser o id de uma nota desta conversa',
  'before must be the id of a note of this chat',
);

/** How much of a note a mention's notification carries. */
const EXCERPT_LENGTH = 140;

/**
 * Private notes in a conversation: written, edited and deleted by their author, read by everyone who
 * may see the chat, and the users they mention told (a `note.mention` notification) and listed under
 * their mentions. A note is never a message: nothing that sends or publishes messages reads it.
 */
export class NotesService {
  constructor(
    private readonly repo: NotesRepo,
    /** The chat as its reader may see it (404 otherwise). */
    private readonly chats: { getForUser(actor: UserActor, chatId: string): Promise<ChatT> },
    private readonly events: EventsService,
    private readonly notifications: NotificationsService,
  ) {}

  async list(actor: UserActor, chatId: string, query: { before?: string; limit?: number }) {
    await this.chats.getForUser(actor, chatId);
    let before = null;
    if (query.before !== undefined) {
      before = (await this.repo.find(actor.accountId, chatId, query.before)) ?? null;
      if (!before) throw badRequest(UNKNOWN_NOTE_CURSOR);
    }
    const limit = query.limit ?? 100;
    const rows = await this.repo.list(chatId, before, limit + 1);
    const page = rows.slice(0, limit);
    return {
      notes: page.map(toNote),
      nextBefore: rows.length > limit ? (page.at(-1)?.id ?? null) : null,
    };
  }

  async create(actor: UserActor, chatId: string, input: CreateNoteInput): Promise<NoteT> {
    requirePermission(actor, 'chats:attend');
    const chat = await this.chats.getForUser(actor, chatId);
    const mentions = input.mentions ?? [];
    return this.events.transaction(async (tx, events) => {
      await this.checkMentions(tx, actor, chat, mentions);
      const row = await this.repo.insert(tx, {
        id: newId(),
        account_id: actor.accountId,
        chat_id: chat.id,
        user_id: actor.userId,
        text: input.text.trim(),
        mentions,
      });
      const note = toNote(row);
      events.add(actor.accountId, NOTE_NEW, { note }, targets.note(chat));
      await this.mention(tx, events, actor, chat, note, mentions);
      return note;
    });
  }

  /**
   * The author changes the text and, when given, whom it mentions: users added are told, users
   * removed lose the mention (their notification stays, as what happened).
   */
  async update(actor: UserActor, chatId: string, noteId: string, input: UpdateNoteInput): Promise<NoteT> {
    const chat = await this.chats.getForUser(actor, chatId);
    return this.events.transaction(async (tx, events) => {
      const before = await this.repo.lock(tx, actor.accountId, chat.id, noteId);
      if (!before) throw notFound();
      if (before.user_id !== actor.userId) throw forbidden(NOTE_NOT_YOURS);
      const mentions = input.mentions ?? before.mentions;
      const added = mentions.filter((id) => !before.mentions.includes(id));
      const removed = before.mentions.filter((id) => !mentions.includes(id));
      await this.checkMentions(tx, actor, chat, added);
      const note = toNote(await this.repo.update(tx, before.id, input.text.trim(), mentions));
      await this.repo.deleteMentions(tx, note.id, removed);
      events.add(actor.accountId, NOTE_UPDATE, { note }, targets.note(chat));
      await this.mention(tx, events, actor, chat, note, added);
      return note;
    });
  }

  async delete(actor: UserActor, chatId: string, noteId: string): Promise<void> {
    const chat = await this.chats.getForUser(actor, chatId);
    await this.events.transaction(async (tx, events) => {
      const note = await this.repo.lock(tx, actor.accountId, chat.id, noteId);
      if (!note) throw notFound();
      if (note.user_id !== actor.userId) throw forbidden(NOTE_NOT_YOURS);
      await this.repo.delete(tx, note.id);
      events.add(actor.accountId, NOTE_DELETE, { chatId: chat.id, noteId: note.id }, targets.note(chat));
    });
  }

  /** Users who may be mentioned in the chat (the composer's `@` picker). */
  async mentionable(actor: UserActor, chatId: string, query: { q?: string; limit?: number }) {
    const chat = await this.chats.getForUser(actor, chatId);
    const users = await this.repo.searchMentionable(
      actor.accountId,
      { teamId: chat.teamId, userId: chat.userId },
      query.q ?? '',
      query.limit ?? 20,
    );
    return { users };
  }

  /** The user's mentions ("Menções"), newest first, in the chats they may see. */
  async mentions(
    actor: UserActor,
    query: { unreadOnly?: boolean; limit?: number },
  ): Promise<{ mentions: MentionT[]; unread: number }> {
    const readAll = actor.permissions.has('chats:read_all');
    const [rows, unread] = await Promise.all([
      this.repo.mentions(actor.userId, {
        unreadOnly: query.unreadOnly ?? false,
        limit: query.limit ?? 50,
        readAll,
      }),
      this.repo.unreadMentions(actor.userId, readAll),
    ]);
    return {
      mentions: rows.map((r) => ({
        note: toNote(r.note),
        notificationId: r.notification_id,
        readAt: r.read_at?.toISOString() ?? null,
        createdAt: r.created_at.toISOString(),
        contact: { name: r.contact_name, value: r.contact_value },
      })),
      unread,
    };
  }

  /** 400 unless every user is active and may see the chat now. */
  private async checkMentions(tx: Tx, actor: UserActor, chat: ChatT, ids: readonly string[]) {
    if (ids.length === 0) return;
    const allowed = await this.repo.mayMention(
      tx,
      actor.accountId,
      { teamId: chat.teamId, userId: chat.userId },
      ids,
    );
    if (allowed.length !== new Set(ids).size) throw badRequest(MENTION_NOT_ALLOWED);
  }

  /** Tells each user mentioned (but the author) and records their mention with its notification. */
  private async mention(
    tx: Tx,
    events: EventBuffer,
    actor: UserActor,
    chat: ChatT,
    note: NoteT,
    userIds: readonly string[],
  ): Promise<void> {
    const others = userIds.filter((id) => id !== actor.userId);
    if (others.length === 0) return;
    const sent = await this.notifications.notify(tx, events, actor.accountId, others, 'note.mention', {
      chatId: chat.id,
      noteId: note.id,
      by: { type: 'user', id: actor.userId },
      byName: actor.name,
      contact: { name: chat.contact.name, value: chat.contact.value },
      excerpt: note.text.slice(0, EXCERPT_LENGTH),
    });
    await this.repo.insertMentions(
      tx,
      sent.map((n) => ({
        note_id: note.id,
        user_id: n.userId,
        account_id: actor.accountId,
        chat_id: chat.id,
        notification_id: n.id,
      })),
    );
  }
}
