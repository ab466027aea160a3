import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import {
  AttributeDefinitionSchema,
  CreateAttributeBody,
  LIST_NEEDS_OPTIONS,
  OPTIONS_ONLY_FOR_LISTS,
  UpdateAttributeBody,
  type CustomerAttributesService,
} from './customer-attributes.js';
import {
  NOT_NOTE_AUTHOR,
  NoteBody,
  NoteEditSchema,
  NotePageSchema,
  NoteParams,
  NoteSchema,
  NotesQuery,
  type CustomerNotesService,
} from './customer-notes.js';
import {
  CustomerPageSchema,
  CustomerSchema,
  ListCustomersQuery,
  MergeBody,
  UpdateCustomerBody,
} from './customers.schemas.js';
import { MERGE_SELF, MERGE_UNKNOWN, type CustomersService } from './customers.service.js';

/** What these routes use of the services. */
export type CustomersRoutesDeps = UserGuardDeps & {
  customers: CustomersService;
  customerAttributes: CustomerAttributesService;
  customerNotes: CustomerNotesService;
};

const VISIBILITY =
  'Users with `chats:read_all` (supervisors, admins) see every customer of the account; others the ' +
  'customers with a conversation they may see (of one of their teams, or one they attend); any other → 404.';
const ATTRIBUTE_PROBLEMS = badRequestsWhen(
  ['attributes.<key> is not a defined attribute', 'no attribute of the account has this key'],
  ['attributes.<key> must be a number', 'the value does not fit its type (number, date, list, text)'],
);

export function customersRoutes(app: App, services: CustomersRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Customers'] };
  app.get(
    '/api/customers',
    {
      onRequest,
      schema: {
        operationId: 'listContacts',
        ...common,
        summary: 'List and search customers (the contacts page)',
        description: `Newest first. ${VISIBILITY} Filters: \`q\`, \`label\`, and \`attr.<key>=<value>\` (up to 5).`,
        querystring: ListCustomersQuery,
        ...ATTRIBUTE_PROBLEMS,
        response: { 200: CustomerPageSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => services.customers.list(userOf(request), request.query),
  );
  app.get(
    '/api/customers/:id',
    {
      onRequest,
      schema: {
        operationId: 'getContact',
        ...common,
        summary: 'Get a customer: identities per channel, attributes, labels',
        description: VISIBILITY,
        params: IdParams,
        response: { 200: CustomerSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.customers.get(userOf(request), request.params.id),
  );
  app.patch(
    '/api/customers/:id',
    {
      onRequest,
      schema: {
        operationId: 'updateContact',
        ...common,
        summary: "Change a customer's name or attribute values",
        description:
          'Anyone who may see the customer. `attributes` sets the values given (null removes one) and ' +
          'keeps the others. Sends `customer.update`.',
        params: IdParams,
        body: UpdateCustomerBody,
        ...ATTRIBUTE_PROBLEMS,
        response: { 200: CustomerSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.customers.update(userOf(request), request.params.id, request.body),
  );
  app.post(
    '/api/customers/:id/merge',
    {
      onRequest,
      schema: {
        operationId: 'mergeContacts',
        ...common,
        summary: 'Merge another customer into this one (admin)',
        description:
          'Needs `customers:manage`. Every contact, conversation, label and note of `customerId` becomes ' +
          "this customer's; its attribute values fill those this one lacks; the merge is recorded and " +
          '`customerId` ceases to exist. Sends `customer.merge`.',
        params: IdParams,
        body: MergeBody,
        ...badRequestsWhen(
          [MERGE_SELF, '`customerId` is this customer'],
          [MERGE_UNKNOWN, '`customerId` is not a customer of the account'],
        ),
        response: { 200: CustomerSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.customers.merge(userOf(request), request.params.id, request.body.customerId),
  );

  const attrs = { tags: ['Customers'] };
  app.get(
    '/api/customer-attributes',
    {
      onRequest,
      schema: {
        operationId: 'listCustomerAttributes',
        ...attrs,
        summary: "The account's custom attributes of customers",
        response: { 200: Type.Array(AttributeDefinitionSchema), ...errorResponses(401) },
      },
    },
    async (request) => services.customerAttributes.list(userOf(request)),
  );
  app.post(
    '/api/customer-attributes',
    {
      onRequest,
      schema: {
        operationId: 'createCustomerAttribute',
        ...attrs,
        summary: 'Define a custom attribute (admin)',
        description: `Needs \`customers:manage\`. At most 50 per account; a key already used → 409.`,
        body: CreateAttributeBody,
        ...badRequestsWhen(
          [LIST_NEEDS_OPTIONS, 'a `list` attribute without options (or with blank or repeated ones)'],
          [OPTIONS_ONLY_FOR_LISTS, 'options given for another type'],
        ),
        response: { 201: AttributeDefinitionSchema, ...errorResponses(400, 401, 403, 409) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await services.customerAttributes.create(userOf(request), request.body)),
  );
  app.patch(
    '/api/customer-attributes/:id',
    {
      onRequest,
      schema: {
        operationId: 'updateCustomerAttribute',
        ...attrs,
        summary: "Change an attribute's label, description or options (admin)",
        description: 'Its key and type stay; values already stored are kept.',
        params: IdParams,
        body: UpdateAttributeBody,
        ...badRequestsWhen(
          [LIST_NEEDS_OPTIONS, 'empty, blank or repeated options of a list'],
          [OPTIONS_ONLY_FOR_LISTS, 'options given for another type'],
        ),
        response: { 200: AttributeDefinitionSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.customerAttributes.update(userOf(request), request.params.id, request.body),
  );
  app.delete(
    '/api/customer-attributes/:id',
    {
      onRequest,
      schema: {
        operationId: 'deleteCustomerAttribute',
        ...attrs,
        summary: 'Remove an attribute and its values from every customer (admin)',
        params: IdParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await services.customerAttributes.delete(userOf(request), request.params.id);
      return reply.status(204).send(null);
    },
  );

  app.get(
    '/api/customers/:id/notes',
    {
      onRequest,
      schema: {
        operationId: 'listContactNotes',
        ...common,
        summary: 'Notes about a customer, newest first',
        params: IdParams,
        querystring: NotesQuery,
        response: { 200: NotePageSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.customerNotes.list(userOf(request), request.params.id, request.query),
  );
  app.post(
    '/api/customers/:id/notes',
    {
      onRequest,
      schema: {
        operationId: 'createContactNote',
        ...common,
        summary: 'Write a note about a customer',
        description: 'Anyone who may see the customer. Sends `customer.note`.',
        params: IdParams,
        body: NoteBody,
        response: { 201: NoteSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await services.customerNotes.create(userOf(request), request.params.id, request.body.body)),
  );
  app.patch(
    '/api/customers/:id/notes/:noteId',
    {
      onRequest,
      schema: {
        operationId: 'updateContactNote',
        ...common,
        summary: 'Edit a note (its author only)',
        description: `The text replaced is kept (\`GET …/edits\`) and \`editedAt\` set. Another user → 403 (\`${NOT_NOTE_AUTHOR.toString()}\`).`,
        params: NoteParams,
        body: NoteBody,
        response: { 200: NoteSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) =>
      services.customerNotes.update(
        userOf(request),
        request.params.id,
        request.params.noteId,
        request.body.body,
      ),
  );
  app.delete(
    '/api/customers/:id/notes/:noteId',
    {
      onRequest,
      schema: {
        operationId: 'deleteContactNote',
        ...common,
        summary: 'Delete a note (its author, or an admin)',
        params: NoteParams,
        response: { 204: Type.Null(), ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request, reply) => {
      await services.customerNotes.delete(userOf(request), request.params.id, request.params.noteId);
      return reply.status(204).send(null);
    },
  );
  app.get(
    '/api/customers/:id/notes/:noteId/edits',
    {
      onRequest,
      schema: {
        operationId: 'listContactNoteEdits',
        ...common,
        summary: "A note's edits, newest first, each with the text it replaced",
        params: NoteParams,
        response: { 200: Type.Array(NoteEditSchema), ...errorResponses(400, 401, 404) },
      },
    },
    async (request) =>
      services.customerNotes.edits(userOf(request), request.params.id, request.params.noteId),
  );
}
