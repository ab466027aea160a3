import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { errorResponses } from '../../http/schemas.js';
import { LiveBoardSchema } from './board.schemas.js';
import type { BoardService } from './board.service.js';

/** What these routes use of the services. */
export type BoardRoutesDeps = UserGuardDeps & { board: BoardService };

export function boardRoutes(app: App, services: BoardRoutesDeps): void {
  app.get(
    '/api/board',
    {
      onRequest: userGuard(services),
      schema: {
        operationId: 'getLiveBoard',
        tags: ['Board'],
        summary: 'The supervisors’ live board',
        description:
          'What the teams’ queues look like now, per team and per channel: conversations waiting in `Espera` ' +
          'and since when the longest-waiting customer waits, conversations in attendance, SLA targets at risk ' +
          '(due within `atRiskMinutes`) and breached, and each team’s agents with their availability, load ' +
          'and capacity. Admins (`chats:supervise`) see every active team; supervisors ' +
          '(`chats:supervise_team`) the teams they belong to; anyone else → 403. Snoozed conversations are ' +
          'counted in no figure but the agents’ loads. Read in one statement over the open conversations ' +
          'only. Not pushed: the console reads it again, at most about three times a second, after the ' +
          'gateway events that change it (`chat.*`, `sla.breached`, `user.availability`, `team.assignment`).',
        response: { 200: LiveBoardSchema, ...errorResponses(401, 403) },
      },
    },
    async (request) => services.board.get(userOf(request)),
  );
}
