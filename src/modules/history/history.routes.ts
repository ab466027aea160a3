import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { errorResponses } from '../../http/schemas.js';
import { ConversationSummaryPageSchema, CustomerChatsQuery, CustomerParams } from './history.schemas.js';
import type { HistoryService } from './history.service.js';

/** What these routes use of the services. */
export type HistoryRoutesDeps = UserGuardDeps & { history: HistoryService };

export function historyRoutes(app: App, services: HistoryRoutesDeps): void {
  const onRequest = userGuard(services);
  app.get(
    '/api/customers/:id/chats',
    {
      onRequest,
      schema: {
        operationId: 'listContactChats',
        tags: ['Customers'],
        summary: "A customer's conversations on every channel",
        description:
          'Newest first, open and closed, those the user may open (as `GET /api/chats/{id}`): with ' +
          '`chats:read_all` every one, otherwise those of their teams and those they attend. A customer of ' +
          'another account, or none of whose conversations the user may open → 404. Who attended each and ' +
          'how it ended (`closedAt`, `closedBy`, `transfers`) come with it; its messages are ' +
          '`GET /api/chats/{id}/messages`, also when closed.',
        params: CustomerParams,
        querystring: CustomerChatsQuery,
        response: { 200: ConversationSummaryPageSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.history.customerChats(userOf(request), request.params.id, request.query),
  );
}
