import { Type } from '@sinclair/typebox';
import { NotificationSchema } from './notifications.schemas.js';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { errorResponses, IdParams } from '../../http/schemas.js';
import type { NotificationsService } from './notifications.service.js';
import { NotificationPreferencesBody, NotificationPreferencesSchema } from './preferences.schemas.js';
import type { NotificationPreferencesService } from './preferences.service.js';

const ListQuery = Type.Object(
  {
    unreadOnly: Type.Optional(Type.Boolean({ default: false })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  },
  { additionalProperties: false },
);

/** What these routes use of the services. */
export type NotificationsRoutesDeps = UserGuardDeps & {
  notifications: NotificationsService;
  notificationPreferences: NotificationPreferencesService;
};

export function notificationsRoutes(app: App, services: NotificationsRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Notifications'] };
  app.get(
    '/api/notifications',
    {
      onRequest,
      schema: {
        operationId: 'listNotifications',
        ...common,
        summary: 'Your notifications, newest first',
        description: 'Each one was also sent live as `notification.new` to your user room.',
        querystring: ListQuery,
        response: {
          200: Type.Object({
            notifications: Type.Array(NotificationSchema),
            unread: Type.Integer({ description: 'How many are unread in all' }),
          }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => services.notifications.list(userOf(request), request.query),
  );
  app.post(
    '/api/notifications/:id/read',
    {
      onRequest,
      schema: {
        operationId: 'markNotificationRead',
        ...common,
        summary: 'Mark a notification read',
        params: IdParams,
        response: { 200: NotificationSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.notifications.markRead(userOf(request), request.params.id),
  );
  app.get(
    '/api/me/notification-preferences',
    {
      onRequest,
      schema: {
        operationId: 'getNotificationPreferences',
        ...common,
        summary: 'Your notification preferences',
        description:
          'Which moments the console announces with a sound and with a desktop notification. Every event is sent live whatever they say; the console applies them.',
        response: { 200: NotificationPreferencesSchema, ...errorResponses(401) },
      },
    },
    async (request) => services.notificationPreferences.get(userOf(request)),
  );
  app.put(
    '/api/me/notification-preferences',
    {
      onRequest,
      schema: {
        operationId: 'updateNotificationPreferences',
        ...common,
        summary: 'Change your notification preferences',
        description: 'Replaces them: every moment, both ways.',
        body: NotificationPreferencesBody,
        response: { 200: NotificationPreferencesSchema, ...errorResponses(400, 401) },
      },
    },
    async (request) => services.notificationPreferences.put(userOf(request), request.body),
  );
}
