import { Type, type Static } from '@sinclair/typebox';
import { eventType } from '../../events/catalogue.js';
import { NonBlank, Nullable, ObjectIdString } from '../../http/schemas.js';

/** Private notes: what an agent writes in a conversation for colleagues, never for the customer. */

/** How many users one note may mention. */
export const MAX_MENTIONS = 20;
/** The longest note, as long as the longest reply. */
export const MAX_NOTE_LENGTH = 4096;

export const NoteSchema = Type.Object(
  {
    id: Type.String(),
    chatId: Type.String(),
    userId: Nullable(Type.String({ description: 'The author; null once their user is deleted' })),
    text: Type.String(),
    mentions: Type.Array(Type.String(), { description: 'Ids of the users the note mentions' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { description: 'A private note: shown to the agents who may see the chat, never sent to the customer' },
);
export type NoteT = Static<typeof NoteSchema>;

const mentions = Type.Array(ObjectIdString(), {
  maxItems: MAX_MENTIONS,
  uniqueItems: true,
  description:
    'Users to notify: each must be an active user who may see the chat (its attendant, a member of its team, ' +
    'or a user with `chats:read_all`). The console writes `@Name` in the text for each.',
});

export const CreateNoteBody = Type.Object(
  { text: NonBlank({ maxLength: MAX_NOTE_LENGTH }), mentions: Type.Optional(mentions) },
  { additionalProperties: false },
);
export type CreateNoteInput = Static<typeof CreateNoteBody>;

export const UpdateNoteBody = Type.Object(
  { text: NonBlank({ maxLength: MAX_NOTE_LENGTH }), mentions: Type.Optional(mentions) },
  { additionalProperties: false },
);
export type UpdateNoteInput = Static<typeof UpdateNoteBody>;

export const NoteListQuery = Type.Object(
  {
    before: Type.Optional(
      ObjectIdString({ description: 'A note id of this chat: lists the notes written before it' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 100 })),
  },
  { additionalProperties: false },
);

export const NotePageSchema = Type.Object({
  notes: Type.Array(NoteSchema, { description: 'Newest first' }),
  nextBefore: Nullable(Type.String({ description: 'Cursor of the next (older) page; null at the end' })),
});

export const NoteParams = Type.Object(
  { id: ObjectIdString({ description: 'Chat id' }), noteId: ObjectIdString({ description: 'Note id' }) },
  { additionalProperties: false },
);

export const MentionableQuery = Type.Object(
  {
    q: Type.Optional(Type.String({ maxLength: 100, description: 'Part of the name or e-mail' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 20 })),
  },
  { additionalProperties: false },
);

export const MentionableSchema = Type.Object({
  users: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), email: Type.String() }), {
    description: 'Active users who may see the chat, by name',
  }),
});

export const MentionSchema = Type.Object({
  note: NoteSchema,
  notificationId: Type.String({ description: 'Mark it read with `markNotificationRead`' }),
  readAt: Nullable(Type.String({ format: 'date-time' })),
  createdAt: Type.String({ format: 'date-time', description: 'When you were mentioned' }),
  contact: Type.Object({ name: Type.String(), value: Type.String() }),
});
export type MentionT = Static<typeof MentionSchema>;

export const MentionListQuery = Type.Object(
  {
    unreadOnly: Type.Optional(Type.Boolean({ default: false })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  },
  { additionalProperties: false },
);

export const MentionPageSchema = Type.Object({
  mentions: Type.Array(MentionSchema, { description: 'Newest first' }),
  unread: Type.Integer({ description: 'How many of your mentions are unread in all' }),
});

/** The note events (src/events/catalogue.ts); their rooms are in src/events/rooms.ts (`targets.note`). */
export const NOTE_NEW = eventType(
  'note.new',
  Type.Object({ note: NoteSchema }, { description: 'A private note was written in a conversation' }),
);
export const NOTE_UPDATE = eventType(
  'note.update',
  Type.Object({ note: NoteSchema }, { description: 'Its author edited a private note' }),
);
export const NOTE_DELETE = eventType(
  'note.delete',
  Type.Object(
    { chatId: Type.String(), noteId: Type.String() },
    { description: 'Its author deleted a private note' },
  ),
);
