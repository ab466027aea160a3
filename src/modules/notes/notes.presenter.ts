import type { NoteRow } from './notes.repo.js';
import type { NoteT } from './notes.schemas.js';

/** A note row as the API and its events show it. */
export function toNote(row: NoteRow): NoteT {
  return {
    id: row.id,
    chatId: row.chat_id,
    userId: row.user_id,
    text: row.text,
    mentions: row.mentions,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
