import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses, IdParams, ObjectIdString } from '../../http/schemas.js';
import { PHONE_PATTERN } from '../outbound/index.js';
import type { InboundService } from '../inbound/index.js';
import { NOT_SANDBOX, type SandboxService } from './sandbox.service.js';

const InboundBody = Type.Object(
  {
    from: Type.String({
      minLength: 1,
      maxLength: 32,
      pattern: PHONE_PATTERN,
      'x-error-message': ['must be a valid phone number', 'deve ser um número de telefone válido'],
      description:
        'Customer phone number, with country and area code (8 to 15 digits, `+`, spaces, dots, dashes, parentheses)',
    }),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    text: Type.String({ minLength: 1, maxLength: 4096 }),
  },
  { additionalProperties: false },
);

const ReadBody = Type.Object(
  { chatId: ObjectIdString({ description: "The customer's conversation on this channel" }) },
  { additionalProperties: false },
);

/** What these routes use of the services. */
export type SandboxRoutesDeps = UserGuardDeps & {
  inbound: InboundService;
  sandbox: SandboxService;
};

export function sandboxRoutes(app: App, services: SandboxRoutesDeps): void {
  app.post(
    '/api/sandbox/channels/:id/inbound',
    {
      onRequest: userGuard(services),
      schema: {
        operationId: 'simulateInboundMessage',
        ...badRequestsWhen(
          [NOT_SANDBOX, 'the channel is not a sandbox channel'],
          [
            'from must be a valid phone number',
            'the number has the right shape but is not a number of its country',
          ],
        ),
        tags: ['Sandbox'],
        summary: 'Play the customer: a message arriving on a sandbox channel',
        description:
          "Opens a chat in the channel's queue for its default team, or appends to the contact's open chat and counts it unread.",
        params: IdParams,
        body: InboundBody,
        response: {
          201: Type.Object({ chatId: Type.String(), messageId: Type.String() }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request, reply) => {
      const { chatId, messageId } = await services.inbound.receiveSandbox(
        userOf(request),
        request.params.id,
        request.body,
      );
      return reply.status(201).send({ chatId, messageId });
    },
  );
  app.post(
    '/api/sandbox/channels/:id/read',
    {
      onRequest: userGuard(services),
      schema: {
        operationId: 'simulateCustomerRead',
        ...badRequestsWhen([NOT_SANDBOX, 'the channel is not a sandbox channel']),
        tags: ['Sandbox'],
        summary: 'Play the customer: they read the messages sent to them',
        description:
          "The conversation's sent and delivered messages (agents', the Channel API's) become `read`, each a " +
          '`message.update`, as a WhatsApp read receipt would make them. Answers how many changed. ' +
          'Only for a user who may see the chat (its attendant, its team, `chats:read_all`); another chat is 404.',
        params: IdParams,
        body: ReadBody,
        response: {
          200: Type.Object({ read: Type.Integer() }),
          ...errorResponses(400, 401, 404),
        },
      },
    },
    async (request) => services.sandbox.customerRead(userOf(request), request.params.id, request.body.chatId),
  );
}
