import { Type, type Static } from '@sinclair/typebox';
import { eventType } from '../../events/catalogue.js';
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

/** A label as a chat (or a customer) carries it; the label itself is the labels module's. */
export const LabelRefSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  color: Type.String({ description: 'CSS colour, `#rrggbb`' }),
});
export type LabelRefT = Static<typeof LabelRefSchema>;

/** A conversation's SLA clocks (docs/adr/0088-slas.md). */
export const ChatSlaSchema = Type.Object(
  {
    startedAt: Type.String({
      format: 'date-time',
      description: "The customer's first message of the conversation: when both clocks started",
    }),
    firstResponseDueAt: Nullable(
      Type.String({
        format: 'date-time',
        description:
          "When a person's first reply is due (the team's target in its business hours); null: no target",
      }),
    ),
    firstRespondedAt: Nullable(
      Type.String({
        format: 'date-time',
        description: 'When a person (an agent, or the Channel API) first replied; null: not yet',
      }),
    ),
    firstResponseBreached: Type.Boolean({
      description: 'The first reply did not come by its due time (`sla.breached` was raised)',
    }),
    resolutionDueAt: Nullable(
      Type.String({ format: 'date-time', description: 'When the close is due; null: no target' }),
    ),
    resolutionBreached: Type.Boolean({
      description: 'The conversation was still open at its due time (`sla.breached` was raised)',
    }),
  },
  {
    description:
      "The conversation's SLA (additive to the contract's Chat): its team's targets as due instants, fixed when the customer first wrote; time left is the due instant minus now. " +
      'null: the team had no target then, or the customer has not written yet',
  },
);
export type ChatSlaT = Static<typeof ChatSlaSchema>;

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
  labels: Type.Array(LabelRefSchema, {
    description: "The chat's labels, by name (additive to the contract's Chat)",
  }),
  // Absent from events recorded before SLAs existed.
  sla: Type.Optional(Nullable(ChatSlaSchema)),
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
 * customer-service window and the customer the contact belongs to. The Channel API answers with `ChatSchema`, whose serializer leaves
 * `window` and `customerId` out, so its Chat stays exactly the contract's.
 */
/** A snoozed chat's snooze (docs/adr/0078-snooze.md). */
export const ChatSnoozeSchema = Type.Object(
  {
    since: Type.String({ format: 'date-time', description: 'When it was snoozed' }),
    until: Nullable(
      Type.String({
        format: 'date-time',
        description:
          'When it comes back by itself; null: only when the customer writes (or an agent ends it)',
      }),
    ),
    by: Nullable(Type.String({ description: 'The user who snoozed it' })),
  },
  {
    description:
      'Set while the conversation is snoozed: out of the open lists, in the pending view, back at `until` or at the ' +
      "customer's next message, whichever comes first",
  },
);
export type ChatSnoozeT = Static<typeof ChatSnoozeSchema>;

export const AgentChatSchema = Type.Object({
  ...ChatSchema.properties,
  // Absent from events recorded before snoozing existed; null when the chat is not snoozed.
  snooze: Type.Optional(Nullable(ChatSnoozeSchema)),
  // Absent from events recorded before bots existed.
  botId: Type.Optional(
    Nullable(
      Type.String({
        description:
          'The bot holding the conversation (queue `Automação`): it receives its events and answers; null otherwise',
      }),
    ),
  ),
  customerId: Type.String({
    description: "The customer behind the chat's contact: their conversations on every channel",
  }),
  window: ChatWindowSchema,
});
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
    label: Type.Optional(
      ObjectIdString({
        description: 'Only chats carrying this label (its id); another account’s matches none',
      }),
    ),
    ...PaginationQuery,
  },
  { additionalProperties: false },
);
export type ListChatsQueryT = Static<typeof ListChatsQuery>;

/** What the agent API's list adds to the Channel API's filters; a saved view stores these (less the page). */
export const AgentListFilters = {
  status: Type.Optional(
    Type.Union(
      [Type.Literal('open'), Type.Literal('pending'), Type.Literal('closed'), Type.Literal('snoozed')],
      {
        description:
          '`open` (default; snoozed chats left out), `pending` (open, waiting in a queue with no attendant, and the ' +
          'snoozed chats meanwhile), `closed`, or `snoozed` (only the snoozed ones)',
      },
    ),
  ),
  assignee: Type.Optional(
    Type.Union([Type.Literal('mine'), Type.Literal('unassigned'), ObjectIdString()], {
      description:
        '`mine`, `unassigned`, or a user id: another user’s chats only for users with `chats:read_all` (else 403)',
    }),
  ),
  sort: Type.Optional(
    Type.Union(
      [Type.Literal('newest'), Type.Literal('longest_waiting'), Type.Literal('last_customer_message')],
      {
        description:
          '`newest` (default: latest created first), `longest_waiting` (the customer waiting longest for an answer first; answered chats last) or `last_customer_message` (latest customer message first)',
      },
    ),
  ),
  sla: Type.Optional(
    Type.Union([Type.Literal('at_risk'), Type.Literal('breached')], {
      description:
        '`at_risk`: a target not yet missed is due within 15 minutes; `breached`: a target was missed (marked, or ' +
        'past due). The live board’s SLA figures; its total is counted from the chats, as a search’s',
    }),
  ),
  q: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        "Search by the customer: digits (spaces, `+`, `-`, `()` allowed) find them anywhere in the contact's number; " +
        'other text finds the name, accents and case ignored, or the address.',
    }),
  ),
};

export const AgentListChatsQuery = Type.Composite([ListChatsQuery, Type.Object(AgentListFilters)], {
  additionalProperties: false,
});
export type AgentListQueryT = Static<typeof AgentListChatsQuery>;

/** The chat events (src/events/catalogue.ts); their rooms are in src/events/rooms.ts. */
const TeamUser = Type.Object({ teamId: Type.String(), userId: Nullable(Type.String()) });
const chat = { chat: AgentChatSchema };

/** Who made a change: an agent, or an account API key (the Channel API). */
export const ActorRefSchema = Type.Object(
  { type: Type.Union([Type.Literal('user'), Type.Literal('api_key')]), id: Type.String() },
  { description: 'Who made the change: a user, or an account API key (Channel API)' },
);
export type ActorRefT = Static<typeof ActorRefSchema>;
/** Absent from events recorded before it was added, and from changes nobody made (automatic routing). */
const by = { by: Type.Optional(ActorRefSchema) };

export const CHAT_NEW = eventType(
  'chat.new',
  Type.Object(chat, { description: "A conversation entered a team's queue" }),
);
export const CHAT_UPDATE = eventType(
  'chat.update',
  Type.Object(chat, {
    description: 'A list item changed: last message, unread count, queue or attendant',
  }),
);
export const CHAT_QUEUE = eventType(
  'chat.queue',
  Type.Object(
    { ...chat, from: Type.String(), to: Type.String(), ...by },
    {
      description:
        "The chat moved from one queue to another (also when a customer's reply brings a conversation the Channel API opened from `API` to the channel's inbound queue)",
    },
  ),
);
export const CHAT_CAPTURE = eventType(
  'chat.capture',
  Type.Object(
    {
      ...chat,
      ...by,
      assignment: Type.Optional(
        Type.Object(
          { mode: Type.Union([Type.Literal('round_robin'), Type.Literal('capacity')]) },
          {
            description:
              'Present when automatic assignment gave the chat to its attendant (no `by`): the team’s mode',
          },
        ),
      ),
    },
    {
      description:
        'An agent took the chat from the queue, or automatic assignment gave it to one (`assignment`)',
    },
  ),
);
export const CHAT_TRANSFER = eventType(
  'chat.transfer',
  Type.Object(
    {
      ...chat,
      from: TeamUser,
      to: TeamUser,
      reasonCode: Nullable(Type.String()),
      reason: Nullable(Type.String()),
      ...by,
    },
    { description: 'The chat was transferred to a team or a user' },
  ),
);
export const CHAT_CLOSE = eventType(
  'chat.close',
  Type.Object({ ...chat, ...by }, { description: 'The conversation ended' }),
);
export const CHAT_REOPEN = eventType(
  'chat.reopen',
  Type.Object(
    { ...chat, by: Type.String({ description: 'The user who reopened it (now its attendant)' }) },
    { description: 'A closed conversation was opened again by an agent, who now attends it' },
  ),
);
export const CHAT_SPLIT = eventType(
  'chat.split',
  Type.Object(
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
);

export const SNOOZE_REASONS = ['time', 'customer_message', 'manual'] as const;
export type SnoozeReason = (typeof SNOOZE_REASONS)[number];

export const CHAT_SNOOZED = eventType(
  'chat.snoozed',
  Type.Object(
    {
      ...chat,
      until: Nullable(Type.String({ format: 'date-time', description: 'When it comes back by itself' })),
      untilCustomerMessage: Type.Boolean({
        description: 'True when no time was given: only the customer’s message (or an agent) brings it back',
      }),
      ...by,
    },
    {
      description:
        "The conversation was snoozed: it left the open lists (the pending view shows it) until `until` or the customer's next message",
    },
  ),
);
export const CHAT_UNSNOOZED = eventType(
  'chat.unsnoozed',
  Type.Object(
    {
      ...chat,
      reason: Type.Union(
        SNOOZE_REASONS.map((r) => Type.Literal(r)),
        {
          description:
            '`time` (its time came), `customer_message` (the customer wrote) or `manual` (an agent ended it; `by`)',
        },
      ),
      ...by,
    },
    { description: 'A snoozed conversation came back to the lists' },
  ),
);

/** A bot's hold on a conversation ended (docs/adr/0087-bots.md). */
export const BOT_RELEASE_REASONS = ['handoff', 'agent', 'timeout', 'failing', 'closed', 'deleted'] as const;
export type BotReleaseReason = (typeof BOT_RELEASE_REASONS)[number];

export const CHAT_BOT_RELEASED = eventType(
  'chat.bot_released',
  Type.Object(
    {
      ...chat,
      botId: Type.String({ description: 'The bot that held the conversation' }),
      reason: Type.Union(
        BOT_RELEASE_REASONS.map((r) => Type.Literal(r)),
        {
          description:
            '`handoff` (the bot transferred it), `agent` (a person took it over, transferred or moved it), `timeout` (the bot did not answer the customer in time), `failing` (its endpoint was failing), `closed`, `deleted` (the bot was deleted)',
        },
      ),
      by: Type.Optional(ActorRefSchema),
    },
    {
      description:
        'A bot no longer holds the conversation; the bot receives it (its last event of the conversation)',
    },
  ),
);

export const SLA_KINDS = ['first_response', 'resolution'] as const;
export type SlaKind = (typeof SLA_KINDS)[number];

export const SLA_BREACHED = eventType(
  'sla.breached',
  Type.Object(
    {
      ...chat,
      kind: Type.Union(
        SLA_KINDS.map((k) => Type.Literal(k)),
        {
          description:
            '`first_response` (no person replied by the due time) or `resolution` (still open at the due time)',
        },
      ),
      dueAt: Type.String({ format: 'date-time', description: 'The due instant that passed' }),
    },
    {
      description:
        "A conversation missed its team's SLA target; raised once per conversation and kind. The team's supervisors are notified",
    },
  ),
);
