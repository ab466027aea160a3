import type { ReactNode } from 'react';
import { useI18n, type Translate } from '../i18n';
import { useNow } from '../inbox/template-form';
import type { BoardChannel, BoardTeam, LiveBoard } from '../models';
import { Link } from '../router';
import { useLiveBoard } from './use-board';

// The supervisors' live board (docs/adr/0090-live-board.md): per team and per channel, what waits and
// for how long, what is in attendance, the SLA targets at risk and missed, and each team's agents with
// their availability and load. Every number is a link to the conversation list that it counts (the
// inbox's filter tab, opened with those filters), so Tab and Enter reach everything.

const QUEUE_WAITING = 'Espera';
const QUEUE_ATTENDING = 'Em Atendimento';
const MINUTE = 60_000;

type Where = { teamId?: string; channelId?: string };

/** The inbox with the list filters behind a figure (`listAgentChats`' query, less the defaults). */
export function listHref(where: Where, what: 'waiting' | 'attending' | 'at_risk' | 'breached'): string {
  const q = new URLSearchParams();
  if (what === 'waiting') {
    q.set('queue', QUEUE_WAITING);
    q.set('assignee', 'unassigned');
    q.set('sort', 'longest_waiting');
  } else if (what === 'attending') q.set('queue', QUEUE_ATTENDING);
  else q.set('sla', what);
  if (where.teamId) q.set('teamId', where.teamId);
  if (where.channelId) q.set('channelId', where.channelId);
  return `/inbox?${q.toString()}`;
}

/** How long since `since` (server time): "<1 min", "12 min", "1 h 05 min". */
export function waitText(t: Translate, since: string | null, now: number): string {
  if (since === null) return '—';
  const ms = Math.max(0, now - Date.parse(since));
  if (ms < MINUTE) return t('board.lessThanMinute');
  const h = Math.floor(ms / (60 * MINUTE));
  const m = Math.floor((ms % (60 * MINUTE)) / MINUTE);
  return h > 0 ? t('sla.leftHours', { h, m: String(m).padStart(2, '0') }) : t('sla.leftMinutes', { m });
}

function Figure(props: { n: number; href: string; label: string; testId: string; tone?: string }) {
  return (
    <Link
      href={props.href}
      className={`board-figure${props.n > 0 && props.tone ? ` ${props.tone}` : ''}`}
      aria-label={`${props.label}: ${props.n}`}
      data-testid={props.testId}
    >
      {props.n}
    </Link>
  );
}

/** The five figures of a team or a channel, as table cells. */
function FigureCells(props: {
  id: string;
  row: BoardTeam | BoardChannel;
  where: Where;
  name: string;
  now: number;
}) {
  const { t } = useI18n();
  const { id, row, where, name, now } = props;
  const label = (k: Parameters<Translate>[0]) => `${t(k)} — ${name}`;
  return (
    <>
      <td>
        <Figure
          n={row.waiting}
          href={listHref(where, 'waiting')}
          label={label('board.waiting')}
          testId={`waiting-${id}`}
        />
      </td>
      <td data-testid={`longest-${id}`} title={row.longestWaitingSince ?? undefined}>
        {waitText(t, row.longestWaitingSince, now)}
      </td>
      <td>
        <Figure
          n={row.inAttendance}
          href={listHref(where, 'attending')}
          label={label('board.inAttendance')}
          testId={`attending-${id}`}
        />
      </td>
      <td>
        <Figure
          n={row.slaAtRisk}
          href={listHref(where, 'at_risk')}
          label={label('board.atRisk')}
          testId={`at-risk-${id}`}
          tone="near"
        />
      </td>
      <td>
        <Figure
          n={row.slaBreached}
          href={listHref(where, 'breached')}
          label={label('board.breached')}
          testId={`breached-${id}`}
          tone="breached"
        />
      </td>
    </>
  );
}

function Head(props: { first: string; extra?: ReactNode }) {
  const { t } = useI18n();
  return (
    <thead>
      <tr>
        <th scope="col">{props.first}</th>
        <th scope="col">{t('board.waiting')}</th>
        <th scope="col">{t('board.longest')}</th>
        <th scope="col">{t('board.inAttendance')}</th>
        <th scope="col">{t('board.atRisk')}</th>
        <th scope="col">{t('board.breached')}</th>
        {props.extra}
      </tr>
    </thead>
  );
}

function Agents(props: { team: BoardTeam }) {
  const { t } = useI18n();
  const { team } = props;
  if (team.agents.length === 0) return <p className="muted">{t('board.noAgents')}</p>;
  return (
    <ul className="board-agents" aria-label={t('board.agentsOf', { team: team.name })}>
      {team.agents.map((a) => (
        <li
          key={a.userId}
          data-testid={`agent-${team.teamId}-${a.userId}`}
          data-availability={a.availability}
        >
          <span className={`avail-dot ${a.availability}`} aria-hidden="true" />
          <span className="board-agent-name">{a.name}</span>
          <span className="board-agent-state">{t(`availability.${a.availability}`)}</span>
          <Link
            href={`/inbox?assignee=${a.userId}`}
            className="board-load"
            aria-label={t('board.loadOf', {
              name: a.name,
              load: a.load,
              capacity: a.capacity ?? t('board.noLimit'),
            })}
          >
            {a.capacity === null ? a.load : `${a.load} / ${a.capacity}`}
          </Link>
        </li>
      ))}
    </ul>
  );
}

function Teams(props: { board: LiveBoard; now: number }) {
  const { t } = useI18n();
  return (
    <table className="board-table" data-testid="board-teams">
      <caption>{t('board.byTeam')}</caption>
      <Head first={t('board.team')} extra={<th scope="col">{t('board.agents')}</th>} />
      <tbody>
        {props.board.teams.map((team) => (
          <tr key={team.teamId} data-testid={`team-${team.teamId}`}>
            <th scope="row">{team.name}</th>
            <FigureCells
              id={team.teamId}
              row={team}
              where={{ teamId: team.teamId }}
              name={team.name}
              now={props.now}
            />
            <td>
              <details className="board-team-agents">
                <summary data-testid={`presence-${team.teamId}`}>
                  {t('board.presence', { online: team.online, away: team.away, offline: team.offline })}
                </summary>
                <Agents team={team} />
              </details>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Channels(props: { board: LiveBoard; now: number }) {
  const { t } = useI18n();
  const { board } = props;
  // A supervisor of one team: a channel's figures are that team's there, and so is the list opened.
  const only = board.scope === 'teams' && board.teams.length === 1 ? board.teams[0]!.teamId : undefined;
  return (
    <table className="board-table" data-testid="board-channels">
      <caption>{t('board.byChannel')}</caption>
      <Head first={t('board.channel')} />
      <tbody>
        {board.channels.map((c) => (
          <tr key={c.channelId} data-testid={`channel-${c.channelId}`}>
            <th scope="row">{c.name}</th>
            <FigureCells
              id={c.channelId}
              row={c}
              where={{ channelId: c.channelId, ...(only ? { teamId: only } : {}) }}
              name={c.name}
              now={props.now}
            />
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** `/board`: for supervisors and admins. */
export function BoardPage() {
  const { t, time } = useI18n();
  const { board, failed, skewMs } = useLiveBoard();
  // The wait clocks move between reads; counted from the server's now.
  const now = useNow(15_000) + skewMs;
  return (
    <section className="page board-page" aria-labelledby="board-title">
      <header className="page-head">
        <h1 id="board-title">{t('board.title')}</h1>
        {board && (
          <span className="muted" data-testid="board-at">
            {t('board.at', { time: time(board.at), minutes: board.atRiskMinutes })}
          </span>
        )}
      </header>
      {failed && (
        <p className="error" role="alert">
          {t('common.error')}
        </p>
      )}
      {!board && !failed && <p role="status">{t('common.loading')}</p>}
      {board && board.teams.length === 0 && <p className="muted">{t('board.noTeams')}</p>}
      {board && board.teams.length > 0 && (
        <>
          <Teams board={board} now={now} />
          <Channels board={board} now={now} />
        </>
      )}
    </section>
  );
}
