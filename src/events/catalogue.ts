import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';
import { Nullable } from '../http/schemas.js';

/**
 * The event vocabulary (contract v1): names, the rooms each event goes to and the envelope; each
 * event's `data` schema is declared by its module (`eventType`). The code that records events, the
 * gateway and `/docs/events.json` all read these, so the published catalogue cannot drift from what
 * is emitted. A breaking change is a new event name;
 * additive changes (new optional fields, new events) keep `schemaVersion` 1.
 */
export const SCHEMA_VERSION = 1;

/** Every event of the log, in the order the catalogue publishes them. */
export const EVENT_NAMES = [
  'message.upsert',
  'message.update',
  'chat.new',
  'chat.update',
  'chat.queue',
  'chat.capture',
  'chat.transfer',
  'chat.close',
  'chat.reopen',
  'chat.split',
  'chat.snoozed',
  'chat.unsnoozed',
  'chat.bot_released',
  'chat.labels',
  'customer.labels',
  'label.create',
  'label.update',
  'label.delete',
  'note.new',
  'note.update',
  'note.delete',
  'notification.new',
  'draft.update',
  'customer.update',
  'customer.merge',
  'customer.note',
  'team.business_hours',
  'bot.update',
  'team.sla',
  'sla.breached',
  'team.assignment',
  'user.availability',
  'channel.flow',
  'chat.csat',
] as const;
export type EventName = (typeof EVENT_NAMES)[number];

/**
 * An event and the schema of its `data`, declared by the module whose resource it carries (chats,
 * messages, notifications, drafts) and recorded with `EventBuffer.add`, which takes its data typed
 * by that schema.
 */
export interface EventType<E extends EventName = EventName, S extends TObject = TObject> {
  readonly name: E;
  readonly data: S;
}

export const eventType = <E extends EventName, S extends TObject>(name: E, data: S): EventType<E, S> => ({
  name,
  data,
});

/** Every event with its data schema (assembled from the modules in src/event-catalogue.ts). */
export type EventCatalogue = { readonly [E in EventName]: EventType<E> };

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
  'chat.reopen': 'team:<teamId>, chat:<chatId>, user:<attendant>',
  'chat.split': 'chat:<chatId>, attendance:<chatId>',
  'chat.snoozed': 'team:<teamId>, chat:<chatId>, user:<attendant>',
  'chat.unsnoozed': 'team:<teamId>, chat:<chatId>, user:<attendant>',
  'chat.bot_released': 'team:<teamId>, chat:<chatId>, attendance:<chatId>, user:<attendant>, bot:<botId>',
  'chat.labels': 'chat:<chatId>, attendance:<chatId>',
  'customer.labels': "chat:<chatId>, attendance:<chatId> of each of the customer's open chats",
  'label.create': 'account:<accountId> (every signed-in user of the account)',
  'label.update': 'account:<accountId>',
  'label.delete': 'account:<accountId>',
  'note.new': 'chat:<chatId>, attendance:<chatId>',
  'note.update': 'chat:<chatId>, attendance:<chatId>',
  'note.delete': 'chat:<chatId>, attendance:<chatId>',
  'notification.new': 'user:<userId>',
  'draft.update': 'user:<userId>',
  'customer.update': "team:<teamId> of each team with one of the customer's chats, user:<attendant> of each",
  'customer.merge': 'as customer.update, for the chats of both customers',
  'customer.note': 'as customer.update',
  'team.business_hours': 'account:<accountId>',
  'bot.update': 'account:<accountId>',
  'team.sla': 'account:<accountId>',
  'sla.breached': 'team:<teamId>, chat:<chatId>, user:<attendant>',
  'team.assignment': 'account:<accountId>',
  'user.availability': 'account:<accountId>',
  'channel.flow': 'account:<accountId>',
  'chat.csat': 'team:<teamId>, chat:<chatId>, user:<attendant>',
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

export interface Envelope {
  id: string;
  event: EventName;
  schemaVersion: typeof SCHEMA_VERSION;
  seq: number;
  occurredAt: string;
  accountId: string;
  data: Record<string, unknown>;
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
