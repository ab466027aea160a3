import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.js';
import { ActorRefSchema } from '../chats/index.js';

/** Where a chat was or went: team, attendant, queue (each only when the change concerns it). */
const Place = Type.Object({
  teamId: Type.Optional(Nullable(Type.String())),
  userId: Type.Optional(Nullable(Type.String())),
  queue: Type.Optional(Type.String()),
  botId: Type.Optional(Type.String({ description: 'For `bot.released`: the bot that held it' })),
});

export const ActivitySchema = Type.Object(
  {
    id: Type.String({ description: 'The id of the event the line is read from' }),
    seq: Type.Integer({ description: "The event's seq in the account's log" }),
    at: Type.String({ format: 'date-time' }),
    kind: Type.String({
      description:
        '`capture` (an agent took the chat from the queue), `assign.auto` (automatic assignment gave it to ' +
        '`to.userId`; `reasonCode`: the team’s mode, `round_robin` or `capacity`), `transfer.team` (also when ' +
        'its agent went offline without answering: `reasonCode` `agent_offline`), `transfer.user`, `takeover` (a ' +
        'supervisor or admin took the conversation over: a transfer to themself), `queue` (moved to ' +
        'another queue), `close`, `reopen`, `label.added`, `label.removed`, `split` (another customer’s messages ' +
        'moved out), `snoozed` (`until`), `unsnoozed` (`reasonCode`: `time`, `customer_message` or `manual`), ' +
        '`bot.released` (`from.botId`; `reasonCode`: `handoff`, `agent`, `timeout`, `failing`, `closed`, `deleted`); ' +
        'more kinds may be added',
    }),
    by: Nullable(ActorRefSchema),
    from: Nullable(Place),
    to: Nullable(Place),
    reasonCode: Nullable(Type.String()),
    reason: Nullable(Type.String()),
    until: Type.Optional(
      Nullable(
        Type.String({
          format: 'date-time',
          description: 'For `snoozed`: when it comes back by itself; null: at the customer’s next message',
        }),
      ),
    ),
    label: Type.Optional(
      Type.Object(
        { id: Type.String(), name: Type.String(), color: Type.String() },
        { description: 'The label put on or taken off, for `label.added` and `label.removed`' },
      ),
    ),
  },
  {
    description:
      'A line of the conversation’s activity, read from its event in the log. `by` is null when nobody acted ' +
      '(automatic routing) or the event predates the field.',
  },
);
export type ActivityT = Static<typeof ActivitySchema>;

export const ActivityQuery = Type.Object(
  {
    beforeSeq: Type.Optional(
      Type.Integer({ minimum: 1, description: 'The `nextBeforeSeq` of an earlier page: lines before it' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 100 })),
  },
  { additionalProperties: false },
);

export const ActivityPageSchema = Type.Object({
  activity: Type.Array(ActivitySchema, { description: 'Newest first' }),
  nextBeforeSeq: Nullable(
    Type.Integer({ description: 'Pass as `beforeSeq` for older lines; null at the end' }),
  ),
});
