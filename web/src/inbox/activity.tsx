import { queueLabel, useI18n } from '../i18n';
import type { ActivityLine } from '../models';
import { useDirectory, useMe } from '../session';
import { useShortTime } from './format';
import { useBotName } from './bot-names';

type T = ReturnType<typeof useI18n>['t'];

/** Names the line's text needs: who acted, a team, a user. */
interface Names {
  by: string;
  team(id: string | null | undefined): string;
  user(id: string | null | undefined): string;
  time(iso: string): string;
  bot(id: string | null | undefined): string;
}

/** Why a bot's hold ended, in words (`chat.bot_released`'s reason). */
const botReleasedKey = (reason: string | null) =>
  reason === 'handoff'
    ? 'activity.botHandoff'
    : reason === 'timeout'
      ? 'activity.botTimeout'
      : reason === 'failing'
        ? 'activity.botFailing'
        : reason === 'deleted'
          ? 'activity.botDeleted'
          : 'activity.botReleased';

/**
 * What each kind of line says, one entry per kind the server reads from the event log
 * (`ACTIVITY_LINES` on the server): a new kind is one entry here and its strings in the locales.
 */
const ACTIVITY_TEXT: Record<string, (t: T, l: ActivityLine, n: Names) => string> = {
  capture: (t, _l, n) => t('activity.capture', { by: n.by }),
  'assign.auto': (t, l, n) => t('activity.autoAssigned', { user: n.user(l.to?.userId) }),
  'transfer.team': (t, l, n) => t('activity.transferTeam', { by: n.by, team: n.team(l.to?.teamId) }),
  'transfer.user': (t, l, n) => t('activity.transferUser', { by: n.by, user: n.user(l.to?.userId) }),
  takeover: (t, _l, n) => t('activity.takeover', { by: n.by }),
  queue: (t, l, n) => t('activity.queue', { by: n.by, queue: queueLabel(t, l.to?.queue ?? '') }),
  close: (t, _l, n) => t('activity.close', { by: n.by }),
  reopen: (t, _l, n) => t('activity.reopen', { by: n.by }),
  'label.added': (t, l, n) => t('activity.labelAdded', { by: n.by, label: l.label?.name ?? '' }),
  'label.removed': (t, l, n) => t('activity.labelRemoved', { by: n.by, label: l.label?.name ?? '' }),
  split: (t) => t('activity.split'),
  snoozed: (t, l, n) =>
    l.until
      ? t('activity.snoozed', { by: n.by, time: n.time(l.until) })
      : t('activity.snoozedReply', { by: n.by }),
  'bot.released': (t, l, n) => t(botReleasedKey(l.reasonCode), { bot: n.bot(l.from?.botId), by: n.by }),
  unsnoozed: (t, l, n) =>
    l.reasonCode === 'time'
      ? t('activity.unsnoozedTime')
      : l.reasonCode === 'customer_message'
        ? t('activity.unsnoozedReply')
        : t('activity.unsnoozedManual', { by: n.by }),
};

/** One activity line of the timeline: who did what, the reason of a transfer, when. */
export function ActivityItem(props: { line: ActivityLine }) {
  const { t, time } = useI18n();
  const short = useShortTime();
  const { me } = useMe();
  const { teams, users } = useDirectory();
  const { line } = props;
  const botName = useBotName(line.kind === 'bot.released' ? line.from?.botId : null);
  const userName = (id: string | null | undefined) =>
    !id ? t('chat.nobody') : id === me.user.id ? t('chat.you') : (users.find((u) => u.id === id)?.name ?? id);
  const names: Names = {
    by: !line.by
      ? t('activity.system')
      : line.by.type === 'api_key'
        ? t('activity.api')
        : userName(line.by.id),
    team: (id) => teams.find((x) => x.id === id)?.name ?? id ?? '',
    user: userName,
    time,
    bot: (id) => botName ?? id ?? '',
  };
  const text = ACTIVITY_TEXT[line.kind]?.(t, line, names) ?? line.kind;
  // A take-over's reason code is its kind, already said by the line; a snooze's end says its reason in
  // its text.
  // Automatic assignment's reason code is the team's mode; an agent gone offline reads as a sentence.
  const code =
    line.kind === 'takeover'
      ? null
      : line.kind === 'assign.auto'
        ? t(line.reasonCode === 'round_robin' ? 'assign.mode.round_robin' : 'assign.mode.capacity')
        : line.reasonCode === 'agent_offline'
          ? t('activity.agentOffline')
          : line.reasonCode;
  const reason =
    line.kind === 'unsnoozed' || line.kind === 'bot.released'
      ? ''
      : [code, line.reason].filter(Boolean).join(' — ');
  return (
    <li className="activity-line" data-kind={line.kind} data-testid="activity-line">
      <span className="activity-text">{text}</span>
      {reason && (
        <span className="activity-reason" data-testid="activity-reason">
          {t('activity.reason', { reason })}
        </span>
      )}
      <time dateTime={line.at} title={time(line.at)}>
        {short(line.at)}
      </time>
    </li>
  );
}
