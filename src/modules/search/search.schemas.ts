import { Type, type Static } from '@sinclair/typebox';
import { NonBlank, Nullable, ObjectIdString } from '../../http/schemas.js';
import { LastMessageSchema } from '../chats/index.js';

/** The search box: messages, contacts and conversations, with the same filters and pages. */

/** How deep a search pages: past this, a narrower search (a filter, a date range) finds it. */
export const MAX_SEARCH_PAGE = 20;
export const MAX_SEARCH_LIMIT = 50;

export const SearchQuery = Type.Object(
  {
    q: NonBlank({
      maxLength: 200,
      description:
        'Words to find. Messages: every word, Portuguese stemming, accents and case ignored (`"…"` a phrase, ' +
        '`-word` without it). Contacts and conversations: a part of the name, of the number (any form) or of the ' +
        'e-mail.',
    }),
    channelId: Type.Optional(ObjectIdString({ description: 'Only conversations of this channel' })),
    teamId: Type.Optional(ObjectIdString({ description: 'Only conversations of this team' })),
    userId: Type.Optional(
      ObjectIdString({ description: 'Only conversations this agent attends (or attended)' }),
    ),
    labelId: Type.Optional(ObjectIdString({ description: 'Only conversations with this label' })),
    since: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Written (messages) or started (conversations) at or after',
      }),
    ),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'Written or started before' })),
    page: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_SEARCH_PAGE, default: 1, description: 'Page number, from 1' }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_SEARCH_LIMIT, default: 20, description: 'Page size, 1 to 50' }),
    ),
  },
  { additionalProperties: false },
);
export type SearchQueryT = Static<typeof SearchQuery>;

const ContactRef = Type.Object({ id: Type.String(), name: Type.String(), value: Type.String() });

/** The conversation a result opens. */
export const SearchChatSchema = Type.Object({
  id: Type.String(),
  status: Type.String({ description: '`open` or `closed`' }),
  queue: Type.String(),
  channelId: Type.String(),
  teamId: Type.String(),
  userId: Nullable(Type.String()),
  customerId: Type.String(),
  contact: ContactRef,
  createdAt: Type.String({ format: 'date-time' }),
  closedAt: Nullable(Type.String({ format: 'date-time' })),
  lastMessage: Nullable(LastMessageSchema),
});
export type SearchChatT = Static<typeof SearchChatSchema>;

export const HighlightSchema = Type.Array(Type.Object({ text: Type.String(), match: Type.Boolean() }), {
  description:
    'The matched part of the message, in pieces: `match` marks the words found. Plain text, never markup: ' +
    'show each piece as text (a `<b>` in a message is a customer’s `<b>`).',
});

export const MessageHitSchema = Type.Object({
  id: Type.String({
    description: 'The message: open its conversation there (`around` of the messages list)',
  }),
  chatId: Type.String(),
  origin: Type.String(),
  type: Type.String(),
  userId: Nullable(Type.String({ description: 'The agent who wrote it' })),
  createdAt: Type.String({ format: 'date-time' }),
  highlight: HighlightSchema,
  chat: SearchChatSchema,
});
export type MessageHitT = Static<typeof MessageHitSchema>;

export const ContactHitSchema = Type.Object({
  id: Type.String({ description: 'The contact: the customer’s address on one channel' }),
  customerId: Type.String(),
  channelId: Type.String(),
  name: Type.String(),
  value: Type.String(),
  chat: SearchChatSchema,
});
export type ContactHitT = Static<typeof ContactHitSchema>;

const searchPage = <T extends ReturnType<typeof Type.Object>>(item: T, description: string) =>
  Type.Object({
    page: Type.Integer(),
    limit: Type.Integer(),
    hasNextPage: Type.Boolean(),
    nextPage: Nullable(Type.Integer()),
    results: Type.Array(item, { description }),
  });

export const MessageSearchPageSchema = searchPage(
  MessageHitSchema,
  'Messages the user may open, newest first',
);
export const ContactSearchPageSchema = searchPage(
  ContactHitSchema,
  'Contacts with a conversation the user may open, each with the newest such conversation; newest first',
);
export const ChatSearchPageSchema = searchPage(
  SearchChatSchema,
  'Conversations (open and closed) the user may open, newest first',
);
