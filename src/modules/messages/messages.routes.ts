import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../http/auth.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import {
  AgentReplyBody,
  MessageHistoryQuery,
  MessageHistorySchema,
  MessageSchema,
} from './messages.schemas.js';
import { messageRulesJudgedOnSend, SEND_BODY_LIMIT_BYTES } from '../outbound/send.schemas.js';
import { UNKNOWN_CURSOR, type MessagesService } from './messages.service.js';

/** What these routes use of the services. */
export type MessagesRoutesDeps = UserGuardDeps & {
  messages: MessagesService;
};

/** A chat's messages in the agent API: history, and the attendant's replies. */
export function messagesRoutes(app: App, services: MessagesRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Chats'] };
  app.get(
    '/api/chats/:id/messages',
    {
      onRequest,
      schema: {
        operationId: 'listChatMessages',
        ...badRequestsWhen([UNKNOWN_CURSOR, '`before` is not the id of a message of this chat']),
        ...common,
        summary: "A chat's messages, newest first",
        description:
          'For anyone who may see the chat. `before` (a message id of this chat; another id → 400) lists older ' +
          'messages; `nextBefore` is the cursor of the next page, null at the end.',
        params: IdParams,
        querystring: MessageHistoryQuery,
        response: { 200: MessageHistorySchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.messages.history(userOf(request), request.params.id, request.query),
  );
  app.post(
    '/api/chats/:id/messages',
    {
      onRequest,
      // Room for the largest media a provider takes, as on the Channel API's send.
      bodyLimit: SEND_BODY_LIMIT_BYTES,
      schema: {
        operationId: 'replyToChat',
        ...badRequestsWhen(...messageRulesJudgedOnSend('')),
        ...common,
        summary: 'Reply on a chat (queued)',
        description:
          'Exactly one of `text` or `media`, checked with the Channel API send rules. Only the attendant of an open ' +
          'chat replies (`chats:attend`): others → 403, a closed chat → 409. Answers 201 with the message `queued`; ' +
          "it is sent through the channel's provider in the background and its `status` follows.",
        params: IdParams,
        body: AgentReplyBody,
        response: { 201: MessageSchema, ...errorResponses(400, 401, 403, 404, 409, 413) },
      },
    },
    async (request, reply) =>
      reply.status(201).send(await services.messages.reply(userOf(request), request.params.id, request.body)),
  );
}
