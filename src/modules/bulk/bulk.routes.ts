import type { App } from '../../http/app-type.js';
import { requestLanguage } from '../../http/language.js';
import { badRequestsWhen, errorResponses } from '../../http/schemas.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { SNOOZE_IN_PAST, SNOOZE_NEEDS_END, SNOOZE_TOO_FAR } from '../chats/index.js';
import { UNKNOWN_LABELS } from '../labels/index.js';
import { BulkBody, BulkResponseSchema, MAX_BULK_CHATS } from './bulk.schemas.js';
import { NO_LABEL_CHANGE, type BulkService } from './bulk.service.js';

/** What these routes use of the services. */
export type BulkRoutesDeps = UserGuardDeps & { bulk: BulkService };

export function bulkRoutes(app: App, services: BulkRoutesDeps): void {
  app.post(
    '/api/chats/bulk',
    {
      onRequest: userGuard(services),
      schema: {
        operationId: 'bulkUpdateChats',
        ...badRequestsWhen(
          [UNKNOWN_LABELS, '`label`: an id of `add` or `remove` is not a label of the account'],
          [NO_LABEL_CHANGE, '`label`: neither `add` nor `remove` names a label'],
          [SNOOZE_NEEDS_END, '`snooze`: neither `until` nor `untilCustomerMessage: true` is given'],
          [SNOOZE_IN_PAST, '`snooze`: `until` is not in the future'],
          [SNOOZE_TOO_FAR, '`snooze`: `until` is more than a year away'],
        ),
        tags: ['Chats'],
        summary: 'Act on a selection of chats',
        description:
          `Assign, transfer, label or close 1 to ${MAX_BULK_CHATS} chats in one request. Each chat goes through the ` +
          'single action’s rules and events (`transferChat`, `addChatLabel`/`removeChatLabel`, `closeChat`) and gets ' +
          'its own result, in the order of `chatIds`: `{chatId, ok: true}`, or `{chatId, ok: false, status, error}` ' +
          'with the status and message the single action would have answered (another account’s or an unseen chat: ' +
          '404). In bulk a user acts only on their own chats and those waiting without attendant in their teams; a ' +
          'supervisor (`chats:supervise_team`) also on every chat of their teams, an admin (`chats:supervise`) on ' +
          'every chat; others → 403 for that chat. The answer is 200 whatever each chat’s outcome.',
        body: BulkBody,
        response: { 200: BulkResponseSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const language = requestLanguage(request);
      const outcomes = await services.bulk.apply(userOf(request), request.body.chatIds, request.body.action);
      return {
        results: outcomes.map((o) =>
          o.ok
            ? { chatId: o.chatId, ok: true }
            : {
                chatId: o.chatId,
                ok: false,
                status: o.error.statusCode,
                error: [o.error.bodyIn(language)].flat().join('; '),
              },
        ),
      };
    },
  );
}
