import { Type, type Static } from '@sinclair/typebox';
import { AvailabilitySchema } from '../assignment/index.js';
import { SLA_AT_RISK_MINUTES } from '../chats/index.js';
import { Nullable } from '../../http/schemas.js';

/** The supervisors' live board (docs/adr/0090-live-board.md): what `getLiveBoard` answers. */

/** A running SLA target is at risk when it is due within this long (the lists' "near" marker, ADR 88). */
export const AT_RISK_MINUTES = SLA_AT_RISK_MINUTES;

/** What the board counts of a set of open conversations (a team's, a channel's). */
const figures = {
  waiting: Type.Integer({
    minimum: 0,
    description:
      'Open conversations in `Espera` nobody attends, not snoozed (the list: `status=open&queue=Espera&assignee=unassigned`)',
  }),
  longestWaitingSince: Nullable(
    Type.String({
      format: 'date-time',
      description:
        'Since when the customer of the longest-waiting of those conversations waits for an answer (their ' +
        '`waitingSince`, the list’s `sort=longest_waiting`); null when none waits for an answer',
    }),
  ),
  inAttendance: Type.Integer({
    minimum: 0,
    description: 'Open conversations in `Em Atendimento`, not snoozed (`status=open&queue=Em Atendimento`)',
  }),
  slaAtRisk: Type.Integer({
    minimum: 0,
    description: `Open conversations, not snoozed, with a target not yet breached and due within ${AT_RISK_MINUTES} minutes`,
  }),
  slaBreached: Type.Integer({
    minimum: 0,
    description:
      'Open conversations, not snoozed, that missed a target: marked breached, or past a due instant not yet marked',
  }),
};

export const BoardFiguresSchema = Type.Object(figures);
export type BoardFiguresT = Static<typeof BoardFiguresSchema>;

export const BoardAgentSchema = Type.Object({
  userId: Type.String(),
  name: Type.String(),
  availability: AvailabilitySchema,
  load: Type.Integer({
    minimum: 0,
    description:
      'Open conversations they attend, in any team and snoozed ones included: what automatic assignment compares with the capacity',
  }),
  capacity: Nullable(
    Type.Integer({
      minimum: 0,
      description:
        'The most open conversations assignment gives them in this team (their override, else the team’s `maxOpen`); null: no limit, or assignment off',
    }),
  ),
});
export type BoardAgentT = Static<typeof BoardAgentSchema>;

export const BoardTeamSchema = Type.Object({
  teamId: Type.String(),
  name: Type.String(),
  ...figures,
  assignmentMode: Type.Union([Type.Literal('off'), Type.Literal('round_robin'), Type.Literal('capacity')]),
  online: Type.Integer({ minimum: 0, description: 'Members online' }),
  away: Type.Integer({ minimum: 0, description: 'Members away' }),
  offline: Type.Integer({ minimum: 0, description: 'Members offline' }),
  agents: Type.Array(BoardAgentSchema, {
    description: 'The active members who attend (`chats:attend`), online first, then by name',
  }),
});
export type BoardTeamT = Static<typeof BoardTeamSchema>;

export const BoardChannelSchema = Type.Object({
  channelId: Type.String(),
  name: Type.String(),
  ...figures,
});
export type BoardChannelT = Static<typeof BoardChannelSchema>;

export const LiveBoardSchema = Type.Object({
  at: Type.String({ format: 'date-time', description: 'The instant the figures were read at' }),
  atRiskMinutes: Type.Integer({ description: 'How close to its due instant a target is at risk' }),
  scope: Type.Union([Type.Literal('account'), Type.Literal('teams')], {
    description: '`account` (an admin: every team) or `teams` (a supervisor: the teams they belong to)',
  }),
  teams: Type.Array(BoardTeamSchema, { description: 'Active teams in scope, by name' }),
  channels: Type.Array(BoardChannelSchema, {
    description:
      'Every channel of the account, by name, counting only the conversations of the teams in scope',
  }),
});
export type LiveBoardT = Static<typeof LiveBoardSchema>;
