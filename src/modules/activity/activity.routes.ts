import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { errorResponses, IdParams } from '../../http/schemas.js';
import { ActivityPageSchema, ActivityQuery } from './activity.schemas.js';
import type { ActivityService } from './activity.service.js';

/** What these routes use of the services. */
export type ActivityRoutesDeps = UserGuardDeps & {
  activity: ActivityService;
};

export function activityRoutes(app: App, services: ActivityRoutesDeps): void {
  app.get(
    '/api/chats/:id/activity',
    {
      onRequest: userGuard(services),
      schema: {
        operationId: 'listChatActivity',
        tags: ['Chats'],
        summary: "A chat's activity, newest first",
        description:
          'The lines of the conversation’s timeline that are not messages — captured, transferred to a team or a ' +
          'user (by whom, with the reason), moved to a queue, closed — read from the event log, for anyone who may ' +
          'see the chat. They are kept `ATENDE_ACTIVITY_RETENTION_DAYS` (365). Live, each arrives as its event ' +
          '(`chat.capture`, `chat.transfer`, `chat.queue`, `chat.close`…).',
        params: IdParams,
        querystring: ActivityQuery,
        response: { 200: ActivityPageSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.activity.page(userOf(request), request.params.id, request.query),
  );
}
