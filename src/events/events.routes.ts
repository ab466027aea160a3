import { Type } from '@sinclair/typebox';
import type { App } from '../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../access/request-actor.js';
import { errorResponses } from '../http/schemas.js';
import { asyncApiDocument } from './asyncapi.js';
import { AnyEnvelopeSchema, type EventCatalogue } from './catalogue.js';
import type { EventsService } from './events.service.js';

const EventsQuery = Type.Object(
  {
    after: Type.Optional(
      Type.Integer({ minimum: 0, default: 0, description: 'Last seq already seen; events after it' }),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  },
  { additionalProperties: false },
);

const EventsPage = Type.Object({
  events: Type.Array(AnyEnvelopeSchema),
  nextAfter: Type.Integer({ description: 'Pass as `after` next time' }),
  hasMore: Type.Boolean({ description: 'More of the log is left: call again with `nextAfter` now' }),
});

/** What these routes use of the services. */
export type EventsRoutesDeps = UserGuardDeps & {
  events: EventsService;
  /** What `/docs/events.json` publishes (src/event-catalogue.ts). */
  eventCatalogue: EventCatalogue;
};

export function eventsRoutes(app: App, services: EventsRoutesDeps): void {
  app.get(
    '/api/events',
    {
      onRequest: userGuard(services),
      schema: {
        operationId: 'listEvents',
        tags: ['Events'],
        summary: 'The event log after a seq (resync)',
        description:
          'Envelopes with `seq > after`, in seq order, that the user may see: their own user room, their teams ' +
          '(every team with `chats:read_all`) and the chats they could see when the event happened. For a ' +
          'client that missed the gateway’s 2-minute recovery window. Events are kept 7 days (configurable). ' +
          'An empty page with `hasMore` means the scanned part of the log held nothing for this user.',
        querystring: EventsQuery,
        response: { 200: EventsPage, ...errorResponses(400, 401) },
      },
    },
    async (request) =>
      services.events.page(userOf(request), request.query.after ?? 0, request.query.limit ?? 100),
  );

  const catalogue = asyncApiDocument(services.eventCatalogue);
  app.get(
    '/docs/events.json',
    {
      schema: {
        operationId: 'getEventCatalogue',
        tags: ['Events'],
        summary: 'Event catalogue (AsyncAPI 3)',
        description: 'Every gateway event: name, rooms, envelope and `data` schema; the client events.',
        response: {
          200: Type.Object({}, { additionalProperties: true, description: 'An AsyncAPI 3.0 document' }),
        },
      },
    },
    async () => catalogue,
  );
}
