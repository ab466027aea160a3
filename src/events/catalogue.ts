import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Nullable } from '../http/schemas.js';
import { AgentChatSchema } from '../modules/chats/chats.schemas.js';
import { MessageSchema } from '../modules/messages/messages.schemas.js';

/**
 * The event vocabulary (contract v1): names, the `data` schema of each event, the rooms it goes to and
 * the envelope. The code that records events, the gateway and `/docs/events.json` all read this file,
 * so the published catalogue cannot drift from what is emitted. A breaking change is a new event name;
 * additive changes (new optional fields, new events) keep `schemaVersion` 1.
 */
export const SCHEMA_VERSION = 1;

export const NotificationSchema = Type.Object({
  id: Type.String(),
  kind: Type.String({
    description:
      "`chat.assigned` (a chat was transferred or assigned to you), `webhook.disabled` (an outgoing webhook endpoint was disabled after failing), `channel.unhealthy` (the provider refused a channel's access token; to users with `channels:manage`) or `contact.split` (`atende doctor` found other customers' messages in a contact and gave them contacts of their own; to users with `channels:manage`)",
  }),
  data: Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    additionalProperties: true,
    description:
      '`{chatId, by, contact: {name, value}, reasonCode, reason}` for chat.assigned; `{webhookId, url}` for webhook.disabled; `{channelId, name, reason: {code, message, details?}}` for channel.unhealthy; `{channelId, channelName, contact: {id, name, value}, customers: [{contactId, name, value, messages, chatIds}]}` for contact.split',
  }),
  readAt: Nullable(Type.String({ format: 'date-time' })),
  createdAt: Type.String({ format: 'date-time' }),
});
export type NotificationT = Static<typeof NotificationSchema>;

export const DraftSchema = Type.Object({
  chatId: Type.String(),
  text: Type.String({ description: 'Empty when the draft was cleared' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type DraftT = Static<typeof DraftSchema>;

const TeamUser = Type.Object({ teamId: Type.String(), userId: Nullable(Type.String()) });

const chat = { chat: AgentChatSchema };
const message = { chatId: Type.String(), message: MessageSchema };

/** Every event of the log, with its `data` schema. */
export const EVENT_DATA = {
  'message.upsert': Type.Object(message, { description: 'A message was stored (inbound, agent, API)' }),
  'message.update': Type.Object(message, {
    description:
      'A message changed: its status (sent, delivered, read, failed), what the provider reported with a status (`delivery`: pricing, conversation, callback data, errors; also on a status that moves nothing), or the customer edited, deleted or reacted to it',
  }),
  'chat.new': Type.Object(chat, { description: "A conversation entered a team's queue" }),
  'chat.update': Type.Object(chat, {
    description: 'A list item changed: last message, unread count, queue or attendant',
  }),
  'chat.queue': Type.Object(
    { ...chat, from: Type.String(), to: Type.String() },
    {
      description:
        "The chat moved from one queue to another (also when a customer's reply brings a conversation the Channel API opened from `API` to the channel's inbound queue)",
    },
  ),
  'chat.capture': Type.Object(chat, { description: 'An agent took the chat from the queue' }),
  'chat.transfer': Type.Object(
    {
      ...chat,
      from: TeamUser,
      to: TeamUser,
      reasonCode: Nullable(Type.String()),
      reason: Nullable(Type.String()),
    },
    { description: 'The chat was transferred to a team or a user' },
  ),
  'chat.close': Type.Object(chat, { description: 'The conversation ended' }),
  'chat.split': Type.Object(
    {
      ...chat,
      into: AgentChatSchema,
      messageIds: Type.Array(Type.String()),
    },
    {
      description:
        "Messages of the chat were another customer's (two customers once shared one contact): they moved to `into`, that customer's own chat (`atende doctor`)",
    },
  ),
  'notification.new': Type.Object(
    { notification: NotificationSchema },
    { description: "Something needs the user's attention" },
  ),
  'draft.update': Type.Object(
    { draft: DraftSchema },
    { description: "One of the user's drafts changed (on another device)" },
  ),
} satisfies Record<string, TSchema>;

export type EventName = keyof typeof EVENT_DATA;
export const EVENT_NAMES = Object.keys(EVENT_DATA) as EventName[];
export type EventData<E extends EventName> = Static<(typeof EVENT_DATA)[E]>;

/**
 * An entry of the log for the gateway only, not an event of the catalogue: some users' access
 * changed (cancelled, new role, removed from a team), so their connections must leave the rooms they
 * may no longer see. It goes to no room, has no audience (never in `GET /api/events`) and no webhook
 * receives it; it rides the log so that every gateway node acts on it once committed, whichever node
 * made the change and whether Redis is up (src/gateway/revoke.ts).
 */
export const ACCESS_CHANGE = 'gateway.access';
export interface AccessChangeData {
  userIds: string[];
}

/** Which rooms each event goes to (docs/gateway.md "Events"); the events service builds the actual room names. */
export const EVENT_ROOMS: Record<EventName, string> = {
  'message.upsert': 'attendance:<chatId>',
  'message.update': 'attendance:<chatId>',
  'chat.new': 'team:<teamId>, and user:<userId> when assigned',
  'chat.update': 'chat:<chatId>',
  'chat.queue': 'team:<old team>, team:<new team>, chat:<chatId>',
  'chat.capture': 'team:<teamId>, chat:<chatId>, user:<attendant>',
  'chat.transfer': 'team: and user: rooms of the source and the target, chat:<chatId>',
  'chat.close': 'team:<teamId>, chat:<chatId>, user:<attendant>',
  'chat.split': 'chat:<chatId>, attendance:<chatId>',
  'notification.new': 'user:<userId>',
  'draft.update': 'user:<userId>',
};

export const envelopeSchema = <T extends TSchema>(event: string, data: T) =>
  Type.Object({
    id: Type.String({ format: 'uuid', description: 'Unique id of the event' }),
    event: Type.Literal(event),
    schemaVersion: Type.Literal(SCHEMA_VERSION),
    seq: Type.Integer({
      minimum: 1,
      description: 'Position in the account’s event log; increases in commit order within an account',
    }),
    occurredAt: Type.String({ format: 'date-time' }),
    accountId: Type.String(),
    data,
  });

export interface Envelope<E extends EventName = EventName> {
  id: string;
  event: E;
  schemaVersion: typeof SCHEMA_VERSION;
  seq: number;
  occurredAt: string;
  accountId: string;
  data: EventData<E>;
}

/** Any envelope of the log, as `GET /api/events` answers it. */
export const AnyEnvelopeSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  event: Type.String({ description: EVENT_NAMES.join(', ') }),
  schemaVersion: Type.Integer(),
  seq: Type.Integer(),
  occurredAt: Type.String({ format: 'date-time' }),
  accountId: Type.String(),
  data: Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true }),
});

/**
 * Sent by the gateway to each connection right after it is established (recovered or not): the
 * identity the handshake gave and the account's current `seq`, the point to resume `GET /api/events`
 * from. It is not an event of the log, has no envelope, and gives the connection a recovery offset.
 */
export const SessionReadySchema = Type.Object({
  userId: Nullable(Type.String()),
  accountId: Nullable(Type.String()),
  seq: Nullable(Type.Integer({ description: 'Last seq of the account’s log; null when anonymous' })),
  recovered: Type.Boolean({ description: 'Whether Socket.IO restored the session (rooms, missed events)' }),
});
export type SessionReadyT = Static<typeof SessionReadySchema>;
export const SESSION_READY = 'session.ready';

/** Client events: argument and what the acknowledgement answers. */
export const CLIENT_EVENTS = {
  user_logged_in: {
    argument: Type.String({ description: 'userId of the logged-in user; must be the token’s user' }),
    ack: 'Joins user:<userId>. `{ok: true, userId}`',
  },
  user_join_team: {
    argument: Type.Array(Type.String(), { description: 'team ids' }),
    ack: 'Joins team:<id> for the teams the user belongs to (any team with chats:read_all). `{ok: true, joined, refused}`',
  },
  user_start_watch_chats: {
    argument: Type.Array(Type.String(), { description: 'ids of the chats shown in the list' }),
    ack: 'Replaces the watched set: joins chat:<id> for the chats the user may see. `{ok: true, watching, refused}`',
  },
  user_start_attendance: {
    argument: Type.String({ description: 'chatId of the opened conversation' }),
    ack: 'Leaves the previous attendance room and joins attendance:<chatId>. `{ok: true, chatId}`',
  },
} as const;

export const AckErrorSchema = Type.Object({
  ok: Type.Literal(false),
  error: Type.Union(
    [
      Type.Literal('unauthenticated'),
      Type.Literal('forbidden'),
      Type.Literal('not_found'),
      Type.Literal('invalid_argument'),
      Type.Literal('internal_error'),
    ],
    { description: 'unauthenticated: connection without a token; forbidden: not your user id' },
  ),
});
export type AckError = Static<typeof AckErrorSchema>['error'];
