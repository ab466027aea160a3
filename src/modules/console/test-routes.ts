import { Type } from '@sinclair/typebox';
import type { Server } from 'socket.io';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import { errorResponses } from '../../http/schemas.js';
import { requirePermission } from '../../access/guards.js';

const DisconnectBody = Type.Object(
  {
    userId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    mode: Type.Optional(
      Type.Union([Type.Literal('disconnect'), Type.Literal('transport')], {
        description:
          '`disconnect` (default): the server ends the session, nothing to recover. `transport`: the connection ' +
          'drops as on a network failure, and the session waits for the client within the recovery window.',
      }),
    ),
  },
  { additionalProperties: false },
);

/** What these routes use of the services. */
export type TestRoutesDeps = UserGuardDeps;

/**
 * Test-only routes, registered only with `ATENDE_TEST_ROUTES=1` (the browser tests' server): the
 * server ends the gateway connections of the caller's account — the session with them, as a node
 * going away would, or only the transport, as a network failure would — so a test sees the console
 * reconnect and catch up.
 */
export function testRoutes(app: App, services: TestRoutesDeps, io: Server | null): void {
  app.post(
    '/api/test/gateway/disconnect',
    {
      onRequest: userGuard(services),
      schema: {
        hide: true,
        body: DisconnectBody,
        response: { 200: Type.Object({ disconnected: Type.Integer() }), ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => {
      const actor = userOf(request);
      requirePermission(actor, 'users:manage');
      if (!io) return { disconnected: 0 };
      const { userId, mode = 'disconnect' } = request.body;
      let disconnected = 0;
      // This node's own connections: the browser tests run one node.
      for (const socket of io.of('/').sockets.values()) {
        const user = (socket.data as { user?: { userId: string; accountId: string } | null }).user;
        if (!user || user.accountId !== actor.accountId) continue;
        if (userId !== undefined && user.userId !== userId) continue;
        if (mode === 'transport') socket.conn.close();
        else socket.disconnect(true);
        disconnected++;
      }
      return { disconnected };
    },
  );
}
