import { useMemo, type ReactNode } from 'react';
import { useI18n } from '../i18n';
import { useDirectory, useLabels, useMe } from '../session';
import {
  addDays,
  daysIn,
  GROUP_BYS,
  MAX_HOUR_DAYS,
  todayIn,
  type Granularity,
  type GroupBy,
  type ReportKind,
  type ReportQuery,
} from './query';

// The report's controls: which report, the range (presets or two dates) in a time zone, the buckets,
// the breakdown and the filters. Every change applies at once; plain form controls, so the keyboard
// works as everywhere.

function timeZones(current: string): string[] {
  const zones = Intl.supportedValuesOf('timeZone');
  return zones.includes(current) ? zones : [current, ...zones];
}

function Select(props: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  children: ReactNode;
  name: string;
}) {
  return (
    <label className="field report-field">
      <span>{props.label}</span>
      <select name={props.name} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        {props.children}
      </select>
    </label>
  );
}

export function ReportFilters(props: { query: ReportQuery; onChange: (q: ReportQuery) => void }) {
  const { t } = useI18n();
  const { me, can } = useMe();
  const { teams, users, channels } = useDirectory();
  const { labels } = useLabels();
  const { query: q, onChange } = props;
  const set = (patch: Partial<ReportQuery>) => onChange({ ...q, ...patch });
  const zones = useMemo(() => timeZones(q.timeZone), [q.timeZone]);
  // Supervisors report on their own teams; admins on all of them.
  const all = can('chats:supervise');
  const myTeams = teams.filter((tm) => all || tm.members.includes(me.user.id));
  const members = new Set(myTeams.flatMap((tm) => tm.members));
  const agents = all ? users : users.filter((u) => members.has(u.id));
  const today = todayIn(q.timeZone);
  const preset = (from: string, to: string) =>
    set({
      from,
      to,
      granularity: daysIn(from, to) > MAX_HOUR_DAYS ? 'day' : from === to ? 'hour' : q.granularity,
    });
  const hourAllowed = daysIn(q.from, q.to) <= MAX_HOUR_DAYS;

  return (
    <form
      className="report-filters"
      role="search"
      aria-label={t('reports.filters')}
      onSubmit={(e) => e.preventDefault()}
    >
      <div className="report-presets" role="group" aria-label={t('reports.period')}>
        <button type="button" className="btn small" onClick={() => preset(today, today)}>
          {t('reports.preset.today')}
        </button>
        <button type="button" className="btn small" onClick={() => preset(addDays(today, -6), today)}>
          {t('reports.preset.last7')}
        </button>
        <button type="button" className="btn small" onClick={() => preset(addDays(today, -29), today)}>
          {t('reports.preset.last30')}
        </button>
        <button type="button" className="btn small" onClick={() => preset(`${today.slice(0, 8)}01`, today)}>
          {t('reports.preset.month')}
        </button>
      </div>
      <div className="report-fields">
        <Select
          name="report"
          label={t('reports.kind')}
          value={q.report}
          onChange={(v) => set({ report: v as ReportKind })}
        >
          <option value="conversations">{t('reports.kind.conversations')}</option>
          <option value="agents">{t('reports.kind.agents')}</option>
        </Select>
        <label className="field report-field">
          <span>{t('reports.from')}</span>
          <input
            type="date"
            name="from"
            value={q.from}
            max={q.to}
            required
            onChange={(e) => set({ from: e.target.value })}
          />
        </label>
        <label className="field report-field">
          <span>{t('reports.to')}</span>
          <input
            type="date"
            name="to"
            value={q.to}
            min={q.from}
            required
            onChange={(e) => set({ to: e.target.value })}
          />
        </label>
        <Select
          name="timeZone"
          label={t('reports.timeZone')}
          value={q.timeZone}
          onChange={(v) => set({ timeZone: v })}
        >
          {zones.map((z) => (
            <option key={z} value={z}>
              {z}
            </option>
          ))}
        </Select>
        <Select
          name="granularity"
          label={t('reports.granularity')}
          value={q.granularity}
          onChange={(v) => set({ granularity: v as Granularity })}
        >
          <option value="day">{t('reports.granularity.day')}</option>
          <option value="hour" disabled={!hourAllowed}>
            {t('reports.granularity.hour')}
          </option>
        </Select>
        {q.report === 'conversations' && (
          <Select
            name="groupBy"
            label={t('reports.groupBy')}
            value={q.groupBy}
            onChange={(v) => set({ groupBy: v as GroupBy })}
          >
            {GROUP_BYS.map((g) => (
              <option key={g} value={g}>
                {t(`reports.groupBy.${g}`)}
              </option>
            ))}
          </Select>
        )}
        <Select name="teamId" label={t('reports.team')} value={q.teamId} onChange={(v) => set({ teamId: v })}>
          <option value="">{t('reports.all')}</option>
          {myTeams.map((tm) => (
            <option key={tm.id} value={tm.id}>
              {tm.name}
            </option>
          ))}
        </Select>
        <Select
          name="channelId"
          label={t('reports.channel')}
          value={q.channelId}
          onChange={(v) => set({ channelId: v })}
        >
          <option value="">{t('reports.all')}</option>
          {channels.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </Select>
        <Select
          name="agentId"
          label={t('reports.agent')}
          value={q.agentId}
          onChange={(v) => set({ agentId: v })}
        >
          <option value="">{t('reports.all')}</option>
          {agents.map((u) => (
            <option key={u.id} value={u.id}>
              {u.name}
            </option>
          ))}
        </Select>
        <Select
          name="labelId"
          label={t('reports.label')}
          value={q.labelId}
          onChange={(v) => set({ labelId: v })}
        >
          <option value="">{t('reports.all')}</option>
          {labels.map((l) => (
            <option key={l.id} value={l.id}>
              {l.name}
            </option>
          ))}
        </Select>
      </div>
    </form>
  );
}
