import { Type, type Static } from '@sinclair/typebox';
import { eventType } from '../../events/catalogue.js';
import { NonBlank, Nullable, ObjectIdString } from '../../http/schemas.js';
import { ActorRefSchema, AgentChatSchema, LabelRefSchema } from '../chats/index.js';

/** Labels: the account's own words for organising conversations and customers, and their events. */

export const LabelSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  color: Type.String({ description: 'CSS colour, `#rrggbb`' }),
  description: Nullable(Type.String()),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
export type LabelT = Static<typeof LabelSchema>;

/** Most labels an account may define: every list and chip set stays bounded. */
export const MAX_LABELS = 200;

const Name = NonBlank({
  maxLength: 50,
  description: 'Unique in the account whatever its letter case; leading and trailing spaces dropped',
});
const Color = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: '`#rrggbb`' });
const Description = Nullable(Type.String({ maxLength: 500 }));

export const CreateLabelBody = Type.Object(
  { name: Name, color: Color, description: Type.Optional(Description) },
  { additionalProperties: false },
);
export type CreateLabelInput = Static<typeof CreateLabelBody>;

export const UpdateLabelBody = Type.Object(
  { name: Type.Optional(Name), color: Type.Optional(Color), description: Type.Optional(Description) },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateLabelInput = Static<typeof UpdateLabelBody>;

export const ItemLabelParams = Type.Object(
  {
    id: ObjectIdString({ description: 'Resource id (ObjectId)' }),
    labelId: ObjectIdString({ description: 'Label id (ObjectId)' }),
  },
  { additionalProperties: false },
);

export const CustomerLabelsSchema = Type.Object({
  customerId: Type.String(),
  labels: Type.Array(LabelRefSchema, { description: "The customer's labels, by name" }),
});
export type CustomerLabelsT = Static<typeof CustomerLabelsSchema>;

const Action = Type.Union([Type.Literal('added'), Type.Literal('removed')]);

export const CHAT_LABELS = eventType(
  'chat.labels',
  Type.Object(
    { chat: AgentChatSchema, label: LabelRefSchema, action: Action, by: Type.Optional(ActorRefSchema) },
    { description: "A label was added to or removed from the chat; `chat.labels` is the chat's new set" },
  ),
);
export const CUSTOMER_LABELS = eventType(
  'customer.labels',
  Type.Object(
    { ...CustomerLabelsSchema.properties, label: LabelRefSchema, action: Action },
    { description: "A label was added to or removed from a customer; `labels` is the customer's new set" },
  ),
);
const label = { label: LabelSchema };
export const LABEL_CREATE = eventType(
  'label.create',
  Type.Object(label, { description: 'An admin defined a label' }),
);
export const LABEL_UPDATE = eventType(
  'label.update',
  Type.Object(label, {
    description: 'A label changed (name, colour or description); chips showing it change with it',
  }),
);
export const LABEL_DELETE = eventType(
  'label.delete',
  Type.Object(label, {
    description: 'A label was deleted: it left every chat and customer it was on (no `chat.labels` for each)',
  }),
);
