import { Type, type Static } from '@sinclair/typebox';
import { Nullable, ObjectIdString, pageOf, PaginationQuery } from '../../http/schemas.js';

/** The chat as the Channel API and the agent API show it, and the queries of chat lists. */

export const LastMessageSchema = Type.Object({
  id: Type.String(),
  origin: Type.String({ description: 'contact, user, api or system' }),
  type: Type.String(),
  content: Type.String({ description: 'Text of the message, or a summary such as [image] for media' }),
  createdAt: Type.String({ format: 'date-time' }),
  userId: Type.Optional(Type.String({ description: 'The agent who wrote it, for `user` messages' })),
});

export const ChatSchema = Type.Object({
  id: Type.String(),
  status: Type.String({ description: '`open` or `closed`' }),
  queue: Type.String(),
  channelId: Type.String(),
  teamId: Type.String(),
  userId: Nullable(Type.String()),
  contact: Type.Object({ id: Type.String(), name: Type.String(), value: Type.String() }),
  unreadMessages: Type.Integer(),
  lastMessage: Nullable(LastMessageSchema),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const ChatWindowSchema = Type.Object(
  {
    open: Type.Boolean({
      description:
        'Whether free text and media may be sent now; when false only a template reaches the customer',
    }),
    expiresAt: Nullable(
      Type.String({
        format: 'date-time',
        description: "24 hours after the customer's last message; null when the customer never wrote",
      }),
    ),
  },
  { description: "The 24-hour customer-service window, opened by each of the customer's messages" },
);

/**
 * The chat as agents (agent API, gateway events, webhooks) see it: the contract's Chat plus the
 * customer-service window. The Channel API answers with `ChatSchema`, whose serializer leaves
 * `window` out, so its Chat stays exactly the contract's.
 */
export const AgentChatSchema = Type.Object({ ...ChatSchema.properties, window: ChatWindowSchema });
export type ChatT = Static<typeof AgentChatSchema>;
export type ChatWindowT = Static<typeof ChatWindowSchema>;

export const ChatPageSchema = pageOf('chats', ChatSchema);
export const AgentChatPageSchema = pageOf('chats', AgentChatSchema);

/** The filters of a chat list (Channel API; the agent API adds its own). */
export const ListChatsQuery = Type.Object(
  {
    channelId: Type.Optional(ObjectIdString({ description: 'Only chats of this channel' })),
    queue: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'Queue name, e.g. Espera' }),
    ),
    teamId: Type.Optional(ObjectIdString({ description: 'Only chats of this team' })),
    userId: Type.Optional(ObjectIdString({ description: 'Only chats attended by this user' })),
    ...PaginationQuery,
  },
  { additionalProperties: false },
);
export type ListChatsQueryT = Static<typeof ListChatsQuery>;
