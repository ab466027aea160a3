import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { errorResponses } from '../../http/schemas.js';
import {
  ChatSearchPageSchema,
  ContactSearchPageSchema,
  MessageSearchPageSchema,
  SearchQuery,
} from './search.schemas.js';
import type { SearchService } from './search.service.js';

/** What these routes use of the services. */
export type SearchRoutesDeps = UserGuardDeps & { search: SearchService };

const VISIBILITY =
  'Only what the user may open, as `GET /api/chats/{id}`: with `chats:read_all` the whole account, otherwise ' +
  'the conversations of their teams and those they attend. Filters narrow the conversations (channel, team, ' +
  'attendant, label) and the time. `hasNextPage` says whether another page follows; pages stop at 20.';

export function searchRoutes(app: App, services: SearchRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Search'], querystring: SearchQuery };
  app.get(
    '/api/search',
    {
      onRequest,
      schema: {
        operationId: 'searchMessages',
        ...common,
        summary: 'Search messages',
        description:
          'Messages containing every word of `q` — Portuguese stemming, accents and case ignored (`pagamentos` ' +
          'finds `Pagamento`, `acoes` finds `ação`) — in their text or a media caption, newest first, each with ' +
          'its match in `highlight` and the conversation it opens. ' +
          VISIBILITY,
        response: { 200: MessageSearchPageSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => services.search.messages(userOf(request), request.query),
  );
  app.get(
    '/api/search/contacts',
    {
      onRequest,
      schema: {
        operationId: 'searchContacts',
        ...common,
        summary: 'Search contacts',
        description:
          'Contacts by a part of the name (accents and case ignored), of the number (digits typed any way: ' +
          '`+55 (11) 9…`) or of the e-mail, each with the newest conversation the user may open. ' +
          VISIBILITY,
        response: { 200: ContactSearchPageSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => services.search.contacts(userOf(request), request.query),
  );
  app.get(
    '/api/search/chats',
    {
      onRequest,
      schema: {
        operationId: 'searchChats',
        ...common,
        summary: 'Search conversations',
        description:
          'Conversations, open and closed, whose customer matches `q` as in `searchContacts`. ' + VISIBILITY,
        response: { 200: ChatSearchPageSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => services.search.chats(userOf(request), request.query),
  );
}
