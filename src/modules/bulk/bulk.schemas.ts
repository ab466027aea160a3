import { Type, type Static, type TUnion } from '@sinclair/typebox';
import { ObjectIdString } from '../../http/schemas.js';

/** Most conversations one bulk request acts on: a list selection, bounded so one request stays short. */
export const MAX_BULK_CHATS = 500;
/** Most labels one bulk `label` action puts on or takes off. */
export const MAX_BULK_LABELS = 20;

const branch = (title: string) => ({ title, additionalProperties: false });
const ReasonCode = Type.String({ maxLength: 64 });
const Reason = Type.String({ maxLength: 1000 });
const LabelIds = Type.Array(ObjectIdString(), { maxItems: MAX_BULK_LABELS, uniqueItems: true });

const AssignAction = Type.Object(
  {
    type: Type.Literal('assign'),
    userId: ObjectIdString({ description: 'The agent who attends each chat from now on' }),
    reasonCode: Type.Optional(ReasonCode),
    reason: Type.Optional(Reason),
  },
  branch('BulkAssignAction'),
);
const TransferAction = Type.Object(
  {
    type: Type.Literal('transfer'),
    teamId: ObjectIdString({
      description: "Each chat goes to this team's `Espera` queue, without attendant",
    }),
    reasonCode: Type.Optional(ReasonCode),
    reason: Type.Optional(Reason),
  },
  branch('BulkTransferAction'),
);
const LabelAction = Type.Object(
  {
    type: Type.Literal('label'),
    add: Type.Optional(LabelIds),
    remove: Type.Optional(LabelIds),
  },
  branch('BulkLabelAction'),
);
const CloseAction = Type.Object({ type: Type.Literal('close') }, branch('BulkCloseAction'));
const SnoozeAction = Type.Object(
  {
    type: Type.Literal('snooze'),
    until: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'When each chat comes back by itself: in the future, at most a year away',
      }),
    ),
    untilCustomerMessage: Type.Optional(
      Type.Boolean({ description: "`true` with no `until`: back only at the customer's next message" }),
    ),
  },
  branch('BulkSnoozeAction'),
);

const ACTION_TYPES = ['assign', 'transfer', 'label', 'close', 'snooze'] as const;
const ActionBranches = [AssignAction, TransferAction, LabelAction, CloseAction, SnoozeAction];

/** What to do with every chat of the selection, named by `type` (OpenAPI's discriminator). */
export const BulkAction = Type.Unsafe<
  Static<
    TUnion<
      [
        typeof AssignAction,
        typeof TransferAction,
        typeof LabelAction,
        typeof CloseAction,
        typeof SnoozeAction,
      ]
    >
  >
>({
  type: 'object',
  required: ['type'],
  properties: { type: Type.Union(ACTION_TYPES.map((t) => Type.Literal(t))) },
  discriminator: { propertyName: 'type' },
  oneOf: ActionBranches,
  description:
    '`assign` (transfer to a user), `transfer` (to a team), `label` (`add` and/or `remove` label ids), `close`, ' +
    '`snooze` (`until` and/or `untilCustomerMessage`, as `snoozeChat`)',
});
export type BulkActionT = Static<typeof BulkAction>;

export const BulkBody = Type.Object(
  {
    chatIds: Type.Array(ObjectIdString(), {
      minItems: 1,
      maxItems: MAX_BULK_CHATS,
      uniqueItems: true,
      description: `The selection: 1 to ${MAX_BULK_CHATS} distinct chat ids`,
    }),
    action: BulkAction,
  },
  { additionalProperties: false },
);
export type BulkBodyT = Static<typeof BulkBody>;

export const BulkResultSchema = Type.Object(
  {
    chatId: Type.String(),
    ok: Type.Boolean(),
    status: Type.Optional(
      Type.Integer({ description: 'When not ok: the status the single action would have answered' }),
    ),
    error: Type.Optional(Type.String({ description: 'When not ok: why, in the request’s language' })),
  },
  { description: 'One chat’s outcome: `{chatId, ok: true}` or `{chatId, ok: false, status, error}`' },
);

export const BulkResponseSchema = Type.Object({
  results: Type.Array(BulkResultSchema, { description: 'One per chat id, in the order of `chatIds`' }),
});
