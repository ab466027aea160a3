import { Type } from '@sinclair/typebox';
import type { App } from '../../http/app-type.js';
import { userGuard, userOf, type UserGuardDeps } from '../../access/request-actor.js';
import {
  badRequestsWhen,
  errorResponses,
  exactlyOneOf,
  IdParams,
  ObjectIdString,
} from '../../http/schemas.js';
import { AgentChatPageSchema, AgentChatSchema, type ChatT } from './chats.schemas.js';
import type { UserActor } from '../../access/actors.js';
import { AgentListChatsQuery } from './chats.schemas.js';
import type { ChatMovesService } from './chat-moves.service.js';
import { NO_ATTENDANT_FOR_QUEUE } from './chat-moves.messages.js';
import {
  SNOOZE_IN_PAST,
  SNOOZE_NEEDS_END,
  SNOOZE_TOO_FAR,
  type ChatSnoozeService,
} from './chat-snooze.service.js';
import type { ChatsService } from './chats.service.js';
import { USER_NOT_FOUND } from '../users/index.js';
import { TEAM_NOT_FOUND } from '../teams/index.js';

const QueueBody = Type.Object(
  { queue: Type.String({ minLength: 1, maxLength: 100, description: 'e.g. Observação, Automação, Espera' }) },
  { additionalProperties: false },
);

const TransferBody = Type.Object(
  {
    teamId: Type.Optional(ObjectIdString()),
    userId: Type.Optional(ObjectIdString()),
    reasonCode: Type.Optional(Type.String({ maxLength: 64 })),
    reason: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false, oneOf: exactlyOneOf('teamId', 'userId') },
);

const SnoozeBody = Type.Object(
  {
    until: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'When it comes back by itself: in the future, at most a year away',
      }),
    ),
    untilCustomerMessage: Type.Optional(
      Type.Boolean({
        description:
          "`true` with no `until`: back only at the customer's next message (or when an agent ends the snooze)",
      }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "At least one of `until` and `untilCustomerMessage: true`. The customer's next message always brings the chat " +
      'back, whichever comes first.',
  },
);

/** What these routes use of the services. */
export type ChatsRoutesDeps = UserGuardDeps & {
  chats: ChatsService;
  chatMoves: ChatMovesService;
  chatSnooze: ChatSnoozeService;
};

export function chatsRoutes(app: App, services: ChatsRoutesDeps): void {
  const onRequest = userGuard(services);
  const common = { tags: ['Chats'] };
  app.get(
    '/api/chats',
    {
      onRequest,
      schema: {
        operationId: 'listAgentChats',
        ...common,
        summary: 'List chats the user may see',
        description:
          'Same filters as the Channel API (`label` included), plus `status` (default `open`; `pending`: open with ' +
          'no attendant), `assignee`, the search `q` and `sort`; `total` is exact. Users with ' +
          '`chats:read_all` (supervisors, admins) list every chat of the account; others the chats of their ' +
          'teams and those they attend. `Observação` is left out unless asked for by `queue`.',
        querystring: AgentListChatsQuery,
        response: { 200: AgentChatPageSchema, ...errorResponses(400, 401, 403) },
      },
    },
    async (request) => services.chats.listForUser(userOf(request), request.query),
  );
  app.get(
    '/api/chats/:id',
    {
      onRequest,
      schema: {
        operationId: 'getChat',
        ...common,
        summary: 'Get a chat',
        params: IdParams,
        response: { 200: AgentChatSchema, ...errorResponses(400, 401, 404) },
      },
    },
    async (request) => services.chats.getForUser(userOf(request), request.params.id),
  );
  app.post(
    '/api/chats/:id/queue',
    {
      onRequest,
      schema: {
        operationId: 'moveChatToQueue',
        ...badRequestsWhen([
          NO_ATTENDANT_FOR_QUEUE,
          '`queue` is `Em Atendimento` and the chat has no attendant',
        ]),
        ...common,
        summary: 'Move a chat to another queue',
        params: IdParams,
        body: QueueBody,
        response: { 200: AgentChatSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => services.chatMoves.moveToQueue(userOf(request), request.params.id, request.body.queue),
  );
  app.post(
    '/api/chats/:id/transfer',
    {
      onRequest,
      schema: {
        operationId: 'transferChat',
        ...badRequestsWhen(
          [TEAM_NOT_FOUND, '`teamId` is not an active team of the account'],
          [USER_NOT_FOUND, '`userId` is not a user of the account, or is cancelled'],
        ),
        ...common,
        summary: 'Transfer a chat to a team or a user',
        description: 'Exactly one of `teamId` or `userId`; the same rules as the Channel API transfers.',
        params: IdParams,
        body: TransferBody,
        response: { 200: AgentChatSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      // The schema lets exactly one of teamId and userId through.
      const { teamId, userId, ...reason } = request.body;
      const actor = userOf(request);
      return teamId !== undefined
        ? services.chatMoves.transferToTeam(actor, request.params.id, { teamId, ...reason })
        : services.chatMoves.transferToUser(actor, request.params.id, {
            userId: userId as string,
            ...reason,
          });
    },
  );
  app.post(
    '/api/chats/:id/snooze',
    {
      onRequest,
      schema: {
        operationId: 'snoozeChat',
        ...badRequestsWhen(
          [SNOOZE_NEEDS_END, 'neither `until` nor `untilCustomerMessage: true` is given'],
          [SNOOZE_IN_PAST, '`until` is not in the future'],
          [SNOOZE_TOO_FAR, '`until` is more than a year away'],
        ),
        ...common,
        summary: 'Snooze a chat',
        description:
          'The open chat leaves the open lists (and their totals) until `until` or the customer’s next message, ' +
          'whichever comes first; meanwhile it is listed by `status=pending` and `status=snoozed`. It comes back ' +
          'with `chat.unsnoozed` and a `chat.unsnoozed` notification to its attendant (or, without one, to its ' +
          "team's members). For its attendant, anyone who may see it while it has no attendant, or a user with " +
          '`chats:read_all` (`chats:attend` needed; someone else’s chat → 403). A snoozed chat is snoozed again ' +
          'with the new end. Closed → 409; held by another operation → 409 after a short wait. Event `chat.snoozed`.',
        params: IdParams,
        body: SnoozeBody,
        response: { 200: AgentChatSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => services.chatSnooze.snooze(userOf(request), request.params.id, request.body),
  );
  app.delete(
    '/api/chats/:id/snooze',
    {
      onRequest,
      schema: {
        operationId: 'unsnoozeChat',
        ...common,
        summary: 'End a chat’s snooze',
        description:
          'The snoozed chat comes back to the lists now (`chat.unsnoozed`, reason `manual`), for whoever may snooze ' +
          'it. A chat that is not snoozed, or closed → 409.',
        params: IdParams,
        response: { 200: AgentChatSchema, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => services.chatSnooze.unsnooze(userOf(request), request.params.id),
  );
  const change = (
    path: 'capture' | 'close' | 'read' | 'reopen' | 'takeover',
    operationId: string,
    summary: string,
    description: string,
    run: (actor: UserActor, id: string) => Promise<ChatT>,
  ) =>
    app.post(
      `/api/chats/:id/${path}`,
      {
        onRequest,
        schema: {
          ...common,
          operationId,
          summary,
          description,
          params: IdParams,
          response: { 200: AgentChatSchema, ...errorResponses(400, 401, 403, 404, 409) },
        },
      },
      async (request) => run(userOf(request), request.params.id),
    );
  change(
    'capture',
    'captureChat',
    'Capture a waiting chat',
    'A chat in `Espera` (or held by the channel’s flow in `Automação`, which stops it) of one of your teams ' +
      'moves to `Em Atendimento` with you as attendant (`chats:attend`). ' +
      'Already captured, closed or in another queue → 409; held by another operation → 409 at once.',
    (actor, id) => services.chatMoves.capture(actor, id),
  );
  change(
    'close',
    'closeChat',
    'Close a chat',
    'By its attendant, or by a user with `chats:read_all`. An already closed chat → 409.',
    (actor, id) => services.chatMoves.close(actor, id),
  );
  change(
    'reopen',
    'reopenChat',
    'Reopen a closed chat',
    'For a user with `chats:attend` who may see the chat: it opens again in `Em Atendimento` of its team with ' +
      'the caller as attendant (event `chat.reopen`). The 24-hour window is unchanged: outside it only a template ' +
      'reaches the customer. An open chat → 409; a customer with another open chat on the channel → 409.',
    (actor, id) => services.chatMoves.reopen(actor, id),
  );
  change(
    'takeover',
    'takeOverChat',
    'Take a conversation over',
    'For a supervisor of the chat’s team (`chats:supervise_team`) or an admin (`chats:supervise`): the open chat is ' +
      'transferred to the caller (`Em Atendimento`, reason code `takeover`; event `chat.transfer`, which the agent ' +
      'who had it receives). Not a supervisor of its team → 403; already yours, or held by another operation → 409.',
    (actor, id) => services.chatMoves.takeOver(actor, id),
  );
  change(
    'read',
    'markChatRead',
    'Mark a chat read',
    'Sets `unreadMessages` to 0; for anyone who may see the chat.',
    (actor, id) => services.chatMoves.markRead(actor, id),
  );
}
