import { Type, type Static } from '@sinclair/typebox';
import { Nullable, ObjectIdString, pageOf, PaginationQuery } from '../../http/schemas.js';
import { LastMessageSchema } from '../chats/index.js';

/** A customer's conversations, as the history above a conversation and the contact panel list them. */

export const ConversationSummarySchema = Type.Object(
  {
    id: Type.String(),
    channelId: Type.String(),
    status: Type.String({ description: '`open` or `closed`' }),
    queue: Type.String(),
    teamId: Type.String(),
    userId: Nullable(Type.String({ description: 'Its attendant now, or when it ended' })),
    contact: Type.Object(
      { id: Type.String(), name: Type.String(), value: Type.String() },
      { description: "The customer's address on the conversation's channel" },
    ),
    createdAt: Type.String({ format: 'date-time' }),
    closedAt: Nullable(Type.String({ format: 'date-time' })),
    closedBy: Nullable(
      Type.String({
        description:
          'The user who closed it; null while open, or when the Channel API (or an earlier version) closed it',
      }),
    ),
    attendants: Type.Array(Type.String(), {
      description: 'Users who attended it: given it by a transfer, and its attendant now or at the end',
    }),
    transfers: Type.Integer({ description: 'How many times it was transferred' }),
    lastMessage: Nullable(LastMessageSchema),
  },
  { description: 'One conversation of a customer, as its history shows it' },
);
export type ConversationSummaryT = Static<typeof ConversationSummarySchema>;

export const ConversationSummaryPageSchema = pageOf('chats', ConversationSummarySchema);

/** Deep pages are bounded: a customer with more conversations than this is read through search. */
export const MAX_HISTORY_PAGE = 1000;

export const CustomerChatsQuery = Type.Object(
  {
    ...PaginationQuery,
    page: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_HISTORY_PAGE, default: 1, description: 'Page number, from 1' }),
    ),
  },
  { additionalProperties: false },
);
export type CustomerChatsQueryT = Static<typeof CustomerChatsQuery>;

export const CustomerParams = Type.Object(
  { id: ObjectIdString({ description: 'Customer id' }) },
  { additionalProperties: false },
);
