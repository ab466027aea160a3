import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { badRequestsWhen, errorResponses, IdParams } from '../../http/schemas.js';
import { MAX_INTERVALS_PER_DAY } from './business-hours.js';
import { BusinessHoursSchema, UpdateBusinessHoursBody } from './business-hours.schemas.js';
import type { BusinessHoursService } from './business-hours.service.js';

/** What these routes use of the services. */
export type BusinessHoursRoutesDeps = UserGuardDeps & { businessHours: BusinessHoursService };

export function businessHoursRoutes(app: App, services: BusinessHoursRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Teams'] };
  app.get(
    '/api/teams/:id/business-hours',
    {
      onRequest,
      schema: {
        operationId: 'getTeamBusinessHours',
        ...common,
        summary: 'Get a team’s business hours',
        description:
          'For any user of the account. A team without business hours is always open (`configured: false`). ' +
          '`openNow` and `nextChange` are as of the answer. Another account’s team → 404.',
        params: IdParams,
        response: { 200: BusinessHoursSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.businessHours.get(userOf(request), request.params.id),
  );
  app.put(
    '/api/teams/:id/business-hours',
    {
      onRequest,
      schema: {
        operationId: 'updateTeamBusinessHours',
        ...badRequestsWhen(
          ['timeZone <zone> is not a known IANA time zone', 'the server’s time zone data has no such zone'],
          ['weekly.<d>.<i> must start before it ends', 'an interval’s start is not before its end'],
          ['weekly.<d>.<i> and weekly.<d>.<j> overlap', 'two intervals of a day overlap'],
          ['holidays.<i> <date> is not a date YYYY-MM-DD', 'a date that does not exist (e.g. 2026-02-30)'],
        ),
        ...common,
        summary: 'Set a team’s business hours',
        description:
          'Needs `teams:manage` (admins and supervisors). Replaces the team’s hours whole: time zone (default ' +
          '`America/Sao_Paulo`), weekly intervals (Sunday first, at most ' +
          `${MAX_INTERVALS_PER_DAY} a day; null: open at any time that is not a holiday) and holidays. ` +
          'Publishes `team.business_hours` to the account.',
        params: IdParams,
        body: UpdateBusinessHoursBody,
        response: { 200: BusinessHoursSchema, ...errorResponses(400, 401, 403, 404) },
      },
    },
    async (request) => services.businessHours.update(userOf(request), request.params.id, request.body),
  );
}
