import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import {
  AgentReplyBody,
  MessageHistoryQuery,
  MessageHistorySchema,
  MessageSchema,
} from './messages.schemas.js';
import {
  messageRulesJudgedOnSend,
  REPLY_JSON_BODY,
  SEND_BODY_LIMIT_BYTES,
} from '../message-content/index.js';
import {
  ONE_CURSOR,
  UNKNOWN_AFTER,
  UNKNOWN_AROUND,
  UNKNOWN_CURSOR,
  type MessagesService,
} from './messages.service.js';
import { streamedBase64Of } from '../../http/json-body.js';
import { isObjectId } from '../../lib/ids.js';

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
        ...badRequestsWhen(
          [UNKNOWN_CURSOR, '`before` is not the id of a message of this chat'],
          [UNKNOWN_AFTER, '`after` is not the id of a message of this chat'],
          [UNKNOWN_AROUND, '`around` is not the id of a message of this chat'],
          [ONE_CURSOR, 'more than one of `before`, `after` and `around`'],
        ),
        ...common,
        summary: "A chat's messages, newest first",
        description:
          'For anyone who may see the chat, open or closed. `before` (a message id of this chat; another id → 400) ' +
          'lists older messages, `after` newer ones, `around` the page that holds that message (half older, the ' +
          'rest newer: a search result opened there). `nextBefore` is the cursor of the next older page, null at ' +
          'the end; `nextAfter` of the next newer one, null when the page reaches the newest message.',
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
      // Who may not reply is answered before the body is read: an attachment of 100 MB costs nothing
      // then. A malformed id is left to validation (400), as on every route.
      preParsing: async (request, reply) => {
        if (!isObjectId(request.params.id)) return;
        try {
          await services.messages.checkMayReply(userOf(request), request.params.id);
        } catch (err) {
          // The body is never read: the answer closes the connection.
          void reply.header('connection', 'close');
          throw err;
        }
      },
      // Room for the largest media a provider takes, as on the Channel API's send, streamed to its
      // decoder as it arrives.
      bodyLimit: SEND_BODY_LIMIT_BYTES,
      config: { jsonBody: REPLY_JSON_BODY },
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
      reply
        .status(201)
        .send(
          await services.messages.reply(
            userOf(request),
            request.params.id,
            request.body,
            streamedBase64Of(request),
          ),
        ),
  );
}
