import type { BoardCell, BoardSnapshot } from './board.repo.js';
import { AT_RISK_MINUTES, type BoardAgentT, type BoardFiguresT, type LiveBoardT } from './board.schemas.js';

/** Which teams a board shows: every active team (an admin), or these (a supervisor's own). */
export type BoardScope = 'account' | ReadonlySet<string>;

const iso = (t: string | null) => (t === null ? null : new Date(t).toISOString());

const ZERO = (): Acc => ({ waiting: 0, longest: null, attending: 0, atRisk: 0, breached: 0 });
interface Acc {
  waiting: number;
  longest: string | null;
  attending: number;
  atRisk: number;
  breached: number;
}

function add(acc: Acc, c: BoardCell): void {
  acc.waiting += c.waiting;
  acc.attending += c.attending;
  acc.atRisk += c.at_risk;
  acc.breached += c.breached;
  const longest = iso(c.longest);
  if (longest !== null && (acc.longest === null || longest < acc.longest)) acc.longest = longest;
}

const figures = (a: Acc): BoardFiguresT => ({
  waiting: a.waiting,
  longestWaitingSince: a.longest,
  inAttendance: a.attending,
  slaAtRisk: a.atRisk,
  slaBreached: a.breached,
});

const AVAILABILITY_ORDER = { online: 0, away: 1, offline: 2 } as const;

/**
 * The board of one scope from the account's snapshot: per team and per channel, summed from the
 * (team, channel) cells of the teams in scope. Pure, so one snapshot serves every supervisor of the
 * account (docs/adr/0090-live-board.md).
 */
export function buildBoard(snap: BoardSnapshot, scope: BoardScope): LiveBoardT {
  const inScope = (teamId: string) => scope === 'account' || scope.has(teamId);
  const teams = snap.teams.filter((t) => inScope(t.id));
  const shown = new Set(teams.map((t) => t.id));
  const byTeam = new Map(teams.map((t) => [t.id, ZERO()]));
  const byChannel = new Map(snap.channels.map((c) => [c.id, ZERO()]));
  for (const cell of snap.cells) {
    // A team out of scope or inactive is not on the board, nor are its conversations in the channels.
    const team = byTeam.get(cell.team_id);
    if (!team) continue;
    add(team, cell);
    const channel = byChannel.get(cell.channel_id);
    if (channel) add(channel, cell);
  }
  const loads = new Map(snap.loads.map((l) => [l.user_id, l.n]));
  const members = new Map<string, BoardAgentT[]>();
  for (const m of snap.members) {
    if (!shown.has(m.team_id)) continue;
    const list = members.get(m.team_id) ?? [];
    list.push({
      userId: m.user_id,
      name: m.name,
      availability: m.availability,
      load: loads.get(m.user_id) ?? 0,
      capacity: null,
    });
    members.set(m.team_id, list);
  }
  return {
    at: new Date(snap.at).toISOString(),
    atRiskMinutes: AT_RISK_MINUTES,
    scope: scope === 'account' ? 'account' : 'teams',
    teams: teams.map((t) => {
      const agents = (members.get(t.id) ?? []).map((a) => ({ ...a, capacity: capacityOf(t, a.userId) }));
      agents.sort(
        (a, b) =>
          AVAILABILITY_ORDER[a.availability] - AVAILABILITY_ORDER[b.availability] ||
          a.name.localeCompare(b.name) ||
          a.userId.localeCompare(b.userId),
      );
      const count = (x: BoardAgentT['availability']) => agents.filter((a) => a.availability === x).length;
      return {
        teamId: t.id,
        name: t.name,
        ...figures(byTeam.get(t.id) ?? ZERO()),
        assignmentMode: t.mode,
        online: count('online'),
        away: count('away'),
        offline: count('offline'),
        agents,
      };
    }),
    channels: snap.channels.map((c) => ({
      channelId: c.id,
      name: c.name,
      ...figures(byChannel.get(c.id) ?? ZERO()),
    })),
  };
}

/**
 * An agent's capacity in a team, as automatic assignment reads it (ADR 85): their override, else the
 * team's maximum; none when the team does not assign.
 */
export function capacityOf(
  team: { mode: string; max_open: number | null; overrides: Record<string, number> },
  userId: string,
): number | null {
  if (team.mode === 'off') return null;
  return team.overrides[userId] ?? team.max_open;
}
