import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import { streamedBase64Of } from '../../http/json-body.js';
import { traceparentOfRequest } from '../../http/tracing.js';
import {
  RequestIdParams,
  RequestLogPage,
  RequestLogQuery,
  RequestLogSchema,
  SendAccepted,
  SendHeaders,
  SendChatMessageBody,
  SendMessageBody,
  type SendService,
} from '../outbound/index.js';
import { messageRulesJudgedOnSend, SEND_BODY_LIMIT_BYTES, SEND_JSON_BODY } from '../message-content/index.js';
import {
  accountKeyGuard,
  apiChannelOf,
  channelKeyGuard,
  chatReach,
  type AccountKeyGuardDeps,
  type ChannelKeyGuardDeps,
} from './guards.js';
import { apiKeyOf } from '../../access/request-actor.js';
import type { ChatsService } from '../chats/index.js';

/** What these routes use of the services. */
export type SendRoutesDeps = ChannelKeyGuardDeps &
  AccountKeyGuardDeps &
  UserGuardDeps & {
    send: SendService;
    chats: ChatsService;
  };

/**
 * Channel API send-message (channel key), sending into a chat by its id (account key), and the
 * channel's request log (agent JWT).
 */
export function sendRoutes(app: App, services: SendRoutesDeps): void {
  const channelKey = channelKeyGuard(services);

  app.post(
    '/channel-api/messages/send',
    {
      onRequest: channelKey,
      // Large enough for the largest media the provider takes (a 100 MB document, in base64), which is
      // streamed to its decoder as it arrives; the rest of the body has a small bound of its own.
      bodyLimit: SEND_BODY_LIMIT_BYTES,
      config: {
        jsonBody: SEND_JSON_BODY,
      },
      schema: {
        operationId: 'sendMessage',
        ...badRequestsWhen(
          [
            'contact.value must be a valid phone number',
            'the number has the right shape but is not a number of its country (numbering plan)',
          ],
          [
            'contact.value reads as +<international> and as +<national>; write it with + and its country code',
            'a number without + valid as written both as an international number and as a national one of the default country',
          ],
          ['contact.type must be phone on a WhatsApp channel', 'an email contact on a WhatsApp channel'],
          ...messageRulesJudgedOnSend('message.'),
        ),
        tags: ['Channel API'],
        summary: 'Send a message (queued)',
        description:
          'Checks the request, stores and queues it, and answers 201 `{requestId}`; the provider is called in the background. ' +
          '`x-channel-api-key` missing → 400; invalid key or API disabled on the channel → 404 `Invalid API token`. ' +
          '`Idempotency-Key` (≤ 255 characters): the same key on the same channel within 24 h answers the first requestId without queueing again. ' +
          'The body is read as it arrives: `message.media.base64` is decoded a slice at a time; everything else is at most 1 MB (413), ' +
          'nested at most 64 levels and at most 1,000 members per object or array (400), each refused before the rest of the body is read.',
        headers: SendHeaders,
        body: SendMessageBody,
        response: { 201: SendAccepted, ...errorResponses(400, 404, 413) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await services.send.accept(
            apiChannelOf(request),
            request.body,
            request.headers['idempotency-key'],
            streamedBase64Of(request),
            traceparentOfRequest(request),
          ),
        ),
  );

  app.post(
    '/channel-api/chats/:id/messages',
    {
      onRequest: accountKeyGuard(services, 'chats:write'),
      preValidation: chatReach(services),
      bodyLimit: SEND_BODY_LIMIT_BYTES,
      config: {
        jsonBody: SEND_JSON_BODY,
      },
      schema: {
        operationId: 'sendChatMessage',
        ...badRequestsWhen(...messageRulesJudgedOnSend('message.')),
        tags: ['Channel API'],
        summary: 'Send a message into a chat (queued)',
        description:
          "Send-message by the chat's id, with an account API key (`chats:write`): the recipient is the chat's contact on the chat's channel, " +
          'and the request is checked, stored and queued as `POST /channel-api/messages/send` does, answering 201 `{requestId}`. ' +
          'A chat of another account, outside the key’s channels, or closed answers 404. `Idempotency-Key` works per channel as on send-message. ' +
          'The body is read as it arrives, with the bounds of send-message.',
        headers: SendHeaders,
        params: IdParams,
        body: SendChatMessageBody,
        response: { 201: SendAccepted, ...errorResponses(400, 401, 404, 413, 429) },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await services.send.acceptForChat(
            apiKeyOf(request),
            request.params.id,
            request.body,
            request.headers['idempotency-key'],
            streamedBase64Of(request),
            traceparentOfRequest(request),
          ),
        ),
  );

  app.get(
    '/channel-api/messages/requests/:requestId',
    {
      onRequest: channelKey,
      schema: {
        operationId: 'getSendRequest',
        tags: ['Channel API'],
        summary: 'Follow a send request',
        description: "The request's log entry: status, attempts, message id or the provider's error.",
        params: RequestIdParams,
        response: { 200: RequestLogSchema, ...errorResponses(400, 404) },
      },
    },
    async (request) => services.send.getRequest(apiChannelOf(request), request.params.requestId),
  );

  app.get(
    '/api/channels/:id/request-logs',
    {
      onRequest: userGuard(services),
      schema: {
        operationId: 'listChannelRequestLogs',
        tags: ['Channels'],
        summary: "The channel's Channel API request log",
        description: 'Newest first. Filters combine with AND.',
        params: IdParams,
        querystring: RequestLogQuery,
        response: { 200: RequestLogPage, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.send.listRequestLogs(userOf(request), request.params.id, request.query),
  );
}
