import { useEffect, useId, useMemo, useState } from 'react';
import { get, put } from '../api';
import { useI18n, type MessageKey } from '../i18n';
import type { Team, TeamBusinessHours, TeamBusinessHoursBody } from '../models';
import { FieldErrors, TextField } from './fields';
import { FormDialog } from './form-dialog';
import { Badge } from './list-page';
import { useSubmit } from './load';
import { useTeamSettings } from './team-settings';

// A team's business hours on the teams page: whether each team is open now (getTeamBusinessHours), and
// the editor that sets them (updateTeamBusinessHours). The server validates: its messages show under
// the field they name.

export type Interval = { start: string; end: string };
const DAYS = [0, 1, 2, 3, 4, 5, 6] as const;
const MAX_INTERVALS = 4;
const DEFAULT_DAY: Interval[] = [{ start: '09:00', end: '18:00' }];
/** Longest a browser timer may wait (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

const dayKey = (d: number) => `hours.day.${d}` as MessageKey;

/**
 * Every team's hours, read one team at a time, read again when a team's `nextChange` comes (so "open
 * now" turns to "closed" at closing time without a reload), and kept live by `team.business_hours`.
 */
export function useTeamsHours(teams: Team[] | null) {
  const {
    byTeam: hours,
    saved,
    loadOne,
  } = useTeamSettings(
    teams,
    (id) => `/api/teams/${id}/business-hours`,
    'team.business_hours',
    (e) => e.data.businessHours,
  );
  useEffect(() => {
    const next = Object.values(hours)
      .map((h) => (h.nextChange ? Date.parse(h.nextChange) : Infinity))
      .reduce((a, b) => Math.min(a, b), Infinity);
    if (!Number.isFinite(next)) return;
    const timer = setTimeout(
      () => {
        for (const h of Object.values(hours))
          if (h.nextChange && Date.parse(h.nextChange) <= Date.now()) void loadOne(h.teamId);
      },
      Math.min(MAX_TIMER_MS, Math.max(0, next - Date.now()) + 1000),
    );
    return () => clearTimeout(timer);
  }, [hours, loadOne]);
  return { hours, saved };
}

/** "Open now" / "Closed" beside a team, with when that changes in the team's time zone. */
export function OpenBadge(props: { hours: TeamBusinessHours | undefined }) {
  const { t, lang } = useI18n();
  const h = props.hours;
  if (!h) return <span className="muted">…</span>;
  let when = '';
  if (h.nextChange) {
    const time = new Intl.DateTimeFormat(lang, {
      timeZone: h.timeZone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
    }).format(new Date(h.nextChange));
    when = h.openNow ? t('hours.until', { time }) : t('hours.opens', { time });
  }
  return (
    <span data-testid={`hours-${h.teamId}`}>
      <Badge tone={h.openNow ? 'ok' : 'neutral'}>{h.openNow ? t('hours.openNow') : t('hours.closed')}</Badge>
      {!h.configured && <small className="muted adm-block">{t('hours.notSet')}</small>}
      {when && <small className="muted adm-block">{when}</small>}
    </span>
  );
}

/** The time zones this browser knows, offered as suggestions; the server decides what is valid. */
function knownTimeZones(): string[] {
  const intl = Intl as { supportedValuesOf?: (key: 'timeZone') => string[] };
  try {
    return intl.supportedValuesOf?.('timeZone') ?? [];
  } catch {
    return [];
  }
}

/** Sets a team's hours: time zone, up to four intervals per day, holidays. */
export function BusinessHoursDialog(props: {
  team: Team;
  onClose: () => void;
  onSaved: (hours: TeamBusinessHours) => void;
}) {
  const { t } = useI18n();
  const [loaded, setLoaded] = useState(false);
  const [timeZone, setTimeZone] = useState('America/Sao_Paulo');
  const [noWeekly, setNoWeekly] = useState(false);
  const [weekly, setWeekly] = useState<Interval[][]>(() =>
    DAYS.map((d) => (d >= 1 && d <= 5 ? DEFAULT_DAY : [])),
  );
  const [holidays, setHolidays] = useState('');
  const submit = useSubmit(['timeZone', 'weekly', 'holidays']);
  const { byField } = submit.errors;
  const zones = useMemo(knownTimeZones, []);
  const zonesId = useId();
  const holidaysId = useId();

  useEffect(() => {
    let live = true;
    get<TeamBusinessHours>(`/api/teams/${props.team.id}/business-hours`)
      .then((h) => {
        if (!live) return;
        if (h.configured) {
          setTimeZone(h.timeZone);
          setNoWeekly(h.weekly === null);
          if (h.weekly) setWeekly(h.weekly);
          setHolidays(h.holidays.join('\n'));
        }
        setLoaded(true);
      })
      .catch(() => live && setLoaded(true));
    return () => {
      live = false;
    };
  }, [props.team.id]);

  const save = () =>
    submit.run(async () => {
      const body: TeamBusinessHoursBody = {
        timeZone: timeZone.trim(),
        weekly: noWeekly ? null : weekly,
        holidays: holidays
          .split(/[\s,;]+/)
          .map((x) => x.trim())
          .filter(Boolean),
      };
      props.onSaved(await put<TeamBusinessHours>(`/api/teams/${props.team.id}/business-hours`, body));
      props.onClose();
    });

  return (
    <FormDialog
      title={t('hours.edit', { name: props.team.name })}
      onClose={props.onClose}
      submit={submit}
      onSubmit={save}
      submitLabel={t('common.save')}
    >
      <TextField
        label={t('hours.timeZone')}
        name="timeZone"
        value={timeZone}
        onChange={setTimeZone}
        list={zones.length > 0 ? zonesId : undefined}
        autoComplete="off"
        autoFocus
        disabled={!loaded}
        hint={t('hours.timeZoneHint')}
        errors={byField.timeZone}
      />
      {zones.length > 0 && (
        <datalist id={zonesId}>
          {zones.map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>
      )}
      <label className="adm-check">
        <input
          type="checkbox"
          name="noWeekly"
          checked={noWeekly}
          disabled={!loaded}
          onChange={(e) => setNoWeekly(e.target.checked)}
        />
        <span>{t('hours.noWeekly')}</span>
      </label>
      {!noWeekly && (
        <WeeklyFields weekly={weekly} onChange={setWeekly} disabled={!loaded} errors={byField.weekly ?? []} />
      )}
      <div className="field adm-field">
        <label htmlFor={holidaysId}>{t('hours.holidays')}</label>
        <textarea
          id={holidaysId}
          name="holidays"
          rows={4}
          value={holidays}
          disabled={!loaded}
          placeholder="2026-12-25"
          onChange={(e) => setHolidays(e.target.value)}
          aria-describedby={`${holidaysId}-hint${byField.holidays ? ` ${holidaysId}-err` : ''}`}
          aria-invalid={byField.holidays ? true : undefined}
        />
        <small id={`${holidaysId}-hint`} className="adm-hint">
          {t('hours.holidaysHint')}
        </small>
        {byField.holidays && <FieldErrors id={`${holidaysId}-err`} messages={byField.holidays} />}
      </div>
    </FormDialog>
  );
}

/**
 * The weekly intervals of business hours' rules (Sunday first, up to four a day): a team's hours, and
 * the hours a channel's bot takes conversations. `errors` are the API's messages about `prefix`
 * (`weekly`, or `hours.weekly`), shown under the day they name.
 */
export function WeeklyFields(props: {
  weekly: Interval[][];
  onChange: (weekly: Interval[][]) => void;
  disabled?: boolean;
  errors: string[];
  prefix?: string;
}) {
  const { t } = useI18n();
  const { weekly } = props;
  const prefix = props.prefix ?? 'weekly';
  const setDay = (d: number, intervals: Interval[]) =>
    props.onChange(weekly.map((day, i) => (i === d ? intervals : day)));
  const setTime = (d: number, i: number, field: keyof Interval, value: string) =>
    setDay(
      d,
      (weekly[d] ?? []).map((iv, j) => (j === i ? { ...iv, [field]: value.trim() } : iv)),
    );
  const weeklyErrors = (d: number) =>
    props.errors.filter((m) => m.startsWith(`${prefix}.${d} `) || m.startsWith(`${prefix}.${d}.`));
  const otherWeeklyErrors = props.errors.filter(
    (m) => !m.startsWith(`${prefix}.`) || !/^\d/.test(m.slice(prefix.length + 1)),
  );
  return (
    <fieldset className="adm-group">
      <legend>{t('hours.weekly')}</legend>
      <small className="adm-hint">{t('hours.weeklyHint')}</small>
      <FieldErrors messages={otherWeeklyErrors} />
      {DAYS.map((d) => {
        const day = t(dayKey(d));
        const intervals = weekly[d] ?? [];
        const errors = weeklyErrors(d);
        return (
          <div key={d} className="adm-hours-day" role="group" aria-label={day}>
            <strong className="adm-hours-name">{day}</strong>
            <div className="adm-hours-intervals">
              {intervals.length === 0 && <span className="muted">{t('hours.closed')}</span>}
              {intervals.map((iv, i) => (
                <span key={i} className="adm-hours-interval">
                  <input
                    type="text"
                    inputMode="numeric"
                    placeholder="09:00"
                    size={5}
                    maxLength={5}
                    value={iv.start}
                    disabled={props.disabled}
                    aria-label={t('hours.start', { day, n: i + 1 })}
                    aria-invalid={errors.length > 0 ? true : undefined}
                    onChange={(e) => setTime(d, i, 'start', e.target.value)}
                  />
                  <span aria-hidden="true">{t('hours.to')}</span>
                  <input
                    type="text"
                    inputMode="numeric"
                    placeholder="18:00"
                    size={5}
                    maxLength={5}
                    value={iv.end}
                    disabled={props.disabled}
                    aria-label={t('hours.end', { day, n: i + 1 })}
                    aria-invalid={errors.length > 0 ? true : undefined}
                    onChange={(e) => setTime(d, i, 'end', e.target.value)}
                  />
                  <button
                    type="button"
                    className="btn small"
                    aria-label={t('hours.removeFrom', { day, n: i + 1 })}
                    onClick={() =>
                      setDay(
                        d,
                        intervals.filter((_, j) => j !== i),
                      )
                    }
                  >
                    {t('hours.remove')}
                  </button>
                </span>
              ))}
              {intervals.length < MAX_INTERVALS && (
                <button
                  type="button"
                  className="btn small"
                  disabled={props.disabled}
                  aria-label={t('hours.addTo', { day })}
                  onClick={() =>
                    setDay(d, [
                      ...intervals,
                      intervals.length === 0 ? { start: '09:00', end: '18:00' } : { start: '', end: '' },
                    ])
                  }
                >
                  {t('hours.add')}
                </button>
              )}
              <FieldErrors messages={errors} />
            </div>
          </div>
        );
      })}
    </fieldset>
  );
}

/** Weekdays 09:00–18:00, the editor's starting point. */
export const DEFAULT_WEEKLY = (): Interval[][] => DAYS.map((d) => (d >= 1 && d <= 5 ? DEFAULT_DAY : []));
