import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import { ChannelFlowSchema, ChatCsatAnswerSchema, UpdateChannelFlowBody } from './flows.schemas.js';
import type { FlowSettingsService } from './flow-settings.service.js';

/** What these routes use of the services. */
export type FlowsRoutesDeps = UserGuardDeps & { flowSettings: FlowSettingsService };

export function flowsRoutes(app: App, services: FlowsRoutesDeps): void {
  const onRequest = userGuard(services);
  app.get(
    '/api/channels/:id/flow',
    {
      onRequest,
      schema: {
        operationId: 'getChannelFlow',
        tags: ['Channels'],
        summary: 'Get a channel’s built-in flow',
        description:
          'Needs `channels:manage` (admins). A channel never configured answers the defaults, disabled ' +
          '(`configured: false`). Another account’s channel → 404.',
        params: IdParams,
        response: { 200: ChannelFlowSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.flowSettings.get(userOf(request), request.params.id),
  );
  app.put(
    '/api/channels/:id/flow',
    {
      onRequest,
      schema: {
        operationId: 'updateChannelFlow',
        ...badRequestsWhen(
          [
            'menu.options.<i>.teamId is not an active team of the account',
            'a team of another account, or inactive',
          ],
          ['menu.options.<i>.label repeats option <n>', 'two options with the same label (ignoring case)'],
        ),
        tags: ['Channels'],
        summary: 'Set a channel’s built-in flow',
        description:
          'Needs `channels:manage` (admins). Replaces the flow whole: greeting, numbered menu mapping options ' +
          'to teams (interactive buttons or list on WhatsApp), re-prompt and attempts, timeout to the default ' +
          'team, out-of-hours and away messages, auto-close and the CSAT question. While `enabled`, new ' +
          'conversations of the channel open in queue `Automação`. Publishes `channel.flow` to the account.',
        params: IdParams,
        body: UpdateChannelFlowBody,
        response: { 200: ChannelFlowSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.flowSettings.update(userOf(request), request.params.id, request.body),
  );
  app.get(
    '/api/chats/:id/csat',
    {
      onRequest,
      schema: {
        operationId: 'getChatCsat',
        tags: ['Chats'],
        summary: 'Get a conversation’s customer rating (CSAT)',
        description:
          'The rating (1–5) the customer gave when the conversation closed, with the attendant and team it ' +
          'is about; `csat: null` when none. For whoever may see the chat; another account’s → 404.',
        params: IdParams,
        response: { 200: ChatCsatAnswerSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.flowSettings.getCsat(userOf(request), request.params.id),
  );
}
