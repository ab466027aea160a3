import { Type } from '@sinclair/typebox';
import { DraftSchema } from './drafts.schemas.js';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { errorResponses, IdParams } from '../../http/schemas.js';
import type { DraftsService } from './drafts.service.js';

const DraftBody = Type.Object(
  { text: Type.String({ maxLength: 4096, description: 'The unsent text; empty clears the draft' }) },
  { additionalProperties: false },
);

/** What these routes use of the services. */
export type DraftsRoutesDeps = UserGuardDeps & {
  drafts: DraftsService;
};

export function draftsRoutes(app: App, services: DraftsRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Chats'] };
  app.put(
    '/api/chats/:id/draft',
    {
      onRequest,
      schema: {
        operationId: 'saveChatDraft',
        ...common,
        summary: 'Save your draft of a chat',
        description:
          'For a chat you may see. Sent as `draft.update` to your user room, so your other connections follow.',
        params: IdParams,
        body: DraftBody,
        response: { 200: DraftSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.drafts.put(userOf(request), request.params.id, request.body.text),
  );
  app.get(
    '/api/drafts',
    {
      onRequest,
      schema: {
        operationId: 'listDrafts',
        ...common,
        summary: 'Your drafts on open chats, most recent first',
        response: { 200: Type.Array(DraftSchema), ...errorResponses(401) },
      },
    },
    async (request) => services.drafts.list(userOf(request)),
  );
}
