import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import { MENTION_NOT_ALLOWED, UNKNOWN_NOTE_CURSOR, type NotesService } from './notes.service.js';
import {
  CreateNoteBody,
  MentionableQuery,
  MentionableSchema,
  MentionListQuery,
  MentionPageSchema,
  NoteListQuery,
  NotePageSchema,
  NoteParams,
  NoteSchema,
  UpdateNoteBody,
} from './notes.schemas.js';

/** What these routes use of the services. */
export type NotesRoutesDeps = UserGuardDeps & {
  notes: NotesService;
};

const mentionRule = badRequestsWhen([
  MENTION_NOT_ALLOWED,
  '`mentions` names a user who is not an active user of the account able to see the chat',
]);

/** Private notes in a conversation, the users they may mention, and the user's own mentions. */
export function notesRoutes(app: App, services: NotesRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Notes'] };
  app.get(
    '/api/chats/:id/notes',
    {
      onRequest,
      schema: {
        operationId: 'listChatNotes',
        ...badRequestsWhen([UNKNOWN_NOTE_CURSOR, '`before` is not the id of a note of this chat']),
        ...common,
        summary: "A chat's private notes, newest first",
        description:
          'For anyone who may see the chat. `before` (a note id of this chat) lists older notes; `nextBefore` is ' +
          'the cursor of the next page, null at the end.',
        params: IdParams,
        querystring: NoteListQuery,
        response: { 200: NotePageSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.notes.list(userOf(request), request.params.id, request.query),
  );
  app.post(
    '/api/chats/:id/notes',
    {
      onRequest,
      schema: {
        operationId: 'createChatNote',
        ...mentionRule,
        ...common,
        summary: 'Write a private note in a chat',
        description:
          'A note is never sent to the customer: it is not a message (no send, no `message.*` event or webhook, ' +
          "not the chat's last message). Anyone who may see the chat writes one (`chats:attend`), open or " +
          'closed. Each user in `mentions` is notified (`notification.new`, kind `note.mention`) and finds it in ' +
          '`listMentions`; mentioning yourself notifies nobody. Watchers of the chat receive `note.new`.',
        params: IdParams,
        body: CreateNoteBody,
        response: { 201: NoteSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await services.notes.create(userOf(request), request.params.id, request.body)),
  );
  app.patch(
    '/api/chats/:id/notes/:noteId',
    {
      onRequest,
      schema: {
        operationId: 'updateChatNote',
        ...mentionRule,
        ...common,
        summary: 'Edit a private note (its author only)',
        description:
          'Replaces the text and, when `mentions` is given, whom it mentions: users added are notified, users ' +
          'removed lose the mention. Another user → 403. Watchers receive `note.update`.',
        params: NoteParams,
        body: UpdateNoteBody,
        response: { 200: NoteSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      services.notes.update(userOf(request), request.params.id, request.params.noteId, request.body),
  );
  app.delete(
    '/api/chats/:id/notes/:noteId',
    {
      onRequest,
      schema: {
        operationId: 'deleteChatNote',
        ...common,
        summary: 'Delete a private note (its author only)',
        description: 'Another user → 403. Watchers receive `note.delete`; its mentions go with it.',
        params: NoteParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await services.notes.delete(userOf(request), request.params.id, request.params.noteId);
      return reply.status(204).send(null);
    },
  );
  app.get(
    '/api/chats/:id/mentionable-users',
    {
      onRequest,
      schema: {
        operationId: 'listMentionableUsers',
        ...common,
        summary: 'Users who may be mentioned in a chat',
        description:
          'Active users who may see the chat (its attendant, its team, users with `chats:read_all`), by name; ' +
          '`q` narrows them by name or e-mail. What the `@` picker of the note box offers.',
        params: IdParams,
        querystring: MentionableQuery,
        response: { 200: MentionableSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.notes.mentionable(userOf(request), request.params.id, request.query),
  );
  app.get(
    '/api/mentions',
    {
      onRequest,
      schema: {
        operationId: 'listMentions',
        ...common,
        summary: 'Notes that mention you, newest first',
        description:
          'In the chats you may see now. Read state is the mention’s notification’s: mark it read with ' +
          '`markNotificationRead` (`notificationId`).',
        querystring: MentionListQuery,
        response: { 200: MentionPageSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => services.notes.mentions(userOf(request), request.query),
  );
}
