import { Type, type Static } from '@sinclair/typebox';
import { eventType } from '../../events/catalogue.js';
import { Nullable, ObjectIdString, pageOf, PaginationQuery } from '../../http/schemas.js';

/** The customer (the person behind a channel's contacts) as the agent API shows it, and its events. */

/** How an attribute's key is written: lower case, digits and `_`, starting with a letter. */
export const ATTRIBUTE_KEY_PATTERN = '^[a-z][a-z0-9_]{0,39}$';
/** Longest text value of an attribute. */
export const MAX_TEXT_VALUE = 1000;
/** Most attributes an account may define. */
export const MAX_ATTRIBUTES = 50;
/** Most `attr.<key>` filters of one list. */
export const MAX_ATTRIBUTE_FILTERS = 5;

export const AttributeValueSchema = Type.Unsafe<string | number>({
  type: ['string', 'number'],
  description: 'text, list and date (`YYYY-MM-DD`) values are strings; number values are numbers',
});

export const IdentitySchema = Type.Object({
  contactId: Type.String(),
  channelId: Type.String(),
  channelName: Type.String(),
  provider: Type.String({ description: '`whatsapp-cloud` or `sandbox`' }),
  type: Type.String({ description: '`phone`, `email` or `user_id`' }),
  value: Type.String({ description: 'The number (E.164 digits), e-mail or provider user id' }),
});

export const CustomerLabelSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  color: Type.String(),
});

export const CustomerSchema = Type.Object({
  id: Type.String(),
  name: Type.String({ description: 'The name given, or the first contact’s value when none is known' }),
  createdAt: Type.String({ format: 'date-time' }),
  lastSeenAt: Nullable(
    Type.String({ format: 'date-time', description: 'When the customer last wrote, on any channel' }),
  ),
  identities: Type.Array(IdentitySchema, { description: 'The customer’s contacts, one per channel address' }),
  attributes: Type.Record(Type.String(), AttributeValueSchema, {
    description: 'Custom attribute values by key (`/api/customer-attributes`)',
  }),
  labels: Type.Array(CustomerLabelSchema),
});
export type CustomerT = Static<typeof CustomerSchema>;

export const CustomerPageSchema = pageOf('customers', CustomerSchema);

export const UpdateCustomerBody = Type.Object(
  {
    name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    attributes: Type.Optional(
      Type.Record(
        Type.String({ pattern: ATTRIBUTE_KEY_PATTERN }),
        Type.Unsafe<string | number | null>({
          type: ['string', 'number', 'null'],
          maxLength: MAX_TEXT_VALUE,
          description: 'null removes the value',
        }),
        { maxProperties: MAX_ATTRIBUTES },
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateCustomerInput = Static<typeof UpdateCustomerBody>;

/** The filters of the contacts page (and its export). */
const listFilters = {
  q: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        'Digits (spaces, `+`, `-`, `()` allowed) find them anywhere in a number; other text finds the ' +
        'name (accents and case ignored) or an address such as an e-mail',
    }),
  ),
  label: Type.Optional(ObjectIdString({ description: 'Only customers with this label' })),
};
const attributeFilters = (known: number) => ({
  additionalProperties: false,
  patternProperties: { '^attr\\.[a-z][a-z0-9_]{0,39}$': Type.String({ maxLength: MAX_TEXT_VALUE }) },
  maxProperties: known + MAX_ATTRIBUTE_FILTERS,
  description: '`attr.<key>=<value>`: only customers whose attribute has this value (at most 5)',
});
export const ListCustomersQuery = Type.Object({ ...listFilters, ...PaginationQuery }, attributeFilters(4));
export const ExportCustomersQuery = Type.Object(listFilters, attributeFilters(2));
export type ListCustomersQueryT = Static<typeof ListCustomersQuery> & Record<string, unknown>;

export const ImportQuery = Type.Object(
  { channelId: ObjectIdString({ description: 'The channel new numbers and e-mails are added on' }) },
  { additionalProperties: false },
);

export const ImportReportSchema = Type.Object({
  created: Type.Integer({ description: 'Customers created' }),
  updated: Type.Integer({ description: 'Customers updated' }),
  failed: Type.Integer({ description: 'Lines not imported' }),
  errors: Type.Array(Type.Object({ line: Type.Integer(), message: Type.String() }), {
    description: 'Why each line failed (the first 100), by line number (1 is the header)',
  }),
  errorsTruncated: Type.Boolean({ description: 'More lines failed than `errors` lists' }),
});

export const MergeBody = Type.Object(
  { customerId: ObjectIdString({ description: 'The customer merged into this one (it ceases to exist)' }) },
  { additionalProperties: false },
);

/** The customer events (src/events/catalogue.ts); rooms in src/events/rooms.ts (`targets.customer`). */
export const CUSTOMER_UPDATE = eventType(
  'customer.update',
  Type.Object(
    { customer: CustomerSchema },
    { description: 'A customer changed: name, attributes (an agent, an admin or an import)' },
  ),
);
export const CUSTOMER_MERGE = eventType(
  'customer.merge',
  Type.Object(
    {
      customer: CustomerSchema,
      mergedCustomerId: Type.String({ description: 'The customer merged into `customer`, now gone' }),
    },
    { description: 'An admin merged two customers: every contact and conversation of one is the other’s' },
  ),
);
