import { useEffect, useState } from 'react';
import { get, put } from '../api';
import { useI18n } from '../i18n';
import type { Team, TeamSla, TeamSlaBody } from '../models';
import { TextField } from './fields';
import { FormDialog } from './form-dialog';
import { useSubmit } from './load';
import { useTeamSettings } from './team-settings';

// A team's SLA targets on the teams page, next to its business hours: a summary per team (getTeamSla)
// and the editor that sets them (updateTeamSla). Targets are minutes of the team's business hours.

/** Every team's targets, kept live by `team.sla`. */
export function useTeamsSla(teams: Team[] | null) {
  const { byTeam, saved } = useTeamSettings(
    teams,
    (id) => `/api/teams/${id}/sla`,
    'team.sla',
    (e) => e.data.sla,
  );
  return { slas: byTeam, saved };
}

/** Minutes as the console writes durations: `45 min`, `2 h`, `1 h 30 min`. */
export function useMinutesText() {
  const { t } = useI18n();
  return (minutes: number) => {
    const h = Math.floor(minutes / 60);
    const m = minutes % 60;
    if (h === 0) return t('sla.minutes', { m });
    return m === 0 ? t('sla.hours', { h }) : t('sla.hoursMinutes', { h, m });
  };
}

/** The team's targets in a table cell. */
export function SlaSummary(props: { sla: TeamSla | undefined }) {
  const { t } = useI18n();
  const text = useMinutesText();
  const s = props.sla;
  if (!s) return <span className="muted">…</span>;
  if (s.firstResponseMinutes === null && s.resolutionMinutes === null)
    return (
      <span className="muted" data-testid={`sla-${s.teamId}`}>
        {t('sla.none')}
      </span>
    );
  return (
    <span data-testid={`sla-${s.teamId}`}>
      {s.firstResponseMinutes !== null && (
        <small className="adm-block">
          {t('sla.firstResponseIs', { time: text(s.firstResponseMinutes) })}
        </small>
      )}
      {s.resolutionMinutes !== null && (
        <small className="adm-block">{t('sla.resolutionIs', { time: text(s.resolutionMinutes) })}</small>
      )}
    </span>
  );
}

const FIELDS = ['firstResponseMinutes', 'resolutionMinutes'] as const;

/** Sets a team's two targets; an empty field is no target. */
export function TeamSlaDialog(props: { team: Team; onClose: () => void; onSaved: (sla: TeamSla) => void }) {
  const { t } = useI18n();
  const [loaded, setLoaded] = useState(false);
  const [values, setValues] = useState<Record<(typeof FIELDS)[number], string>>({
    firstResponseMinutes: '',
    resolutionMinutes: '',
  });
  const submit = useSubmit([...FIELDS]);
  const { byField } = submit.errors;

  useEffect(() => {
    let live = true;
    get<TeamSla>(`/api/teams/${props.team.id}/sla`)
      .then((s) => {
        if (!live) return;
        setValues({
          firstResponseMinutes: s.firstResponseMinutes === null ? '' : String(s.firstResponseMinutes),
          resolutionMinutes: s.resolutionMinutes === null ? '' : String(s.resolutionMinutes),
        });
        setLoaded(true);
      })
      .catch(() => live && setLoaded(true));
    return () => {
      live = false;
    };
  }, [props.team.id]);

  const save = () => {
    // Whole minutes are checked here; their range by the server, whose sentence shows under the field.
    const wrong = FIELDS.filter((f) => values[f].trim() !== '' && !/^\d+$/.test(values[f].trim()));
    if (wrong.length > 0) {
      submit.fail(Object.fromEntries(wrong.map((f) => [f, [`${f} ${t('sla.wholeMinutes')}`]])));
      return;
    }
    const minutes = (f: (typeof FIELDS)[number]) =>
      values[f].trim() === '' ? null : Number(values[f].trim());
    return submit.run(async () => {
      const body: TeamSlaBody = {
        firstResponseMinutes: minutes('firstResponseMinutes'),
        resolutionMinutes: minutes('resolutionMinutes'),
      };
      props.onSaved(await put<TeamSla>(`/api/teams/${props.team.id}/sla`, body));
      props.onClose();
    });
  };

  return (
    <FormDialog
      title={t('sla.edit', { name: props.team.name })}
      onClose={props.onClose}
      submit={submit}
      onSubmit={save}
      submitLabel={t('common.save')}
    >
      <p className="adm-hint">{t('sla.intro')}</p>
      <TextField
        label={t('sla.firstResponse')}
        name="firstResponseMinutes"
        inputMode="numeric"
        value={values.firstResponseMinutes}
        onChange={(v) => setValues((prev) => ({ ...prev, firstResponseMinutes: v }))}
        autoComplete="off"
        autoFocus
        disabled={!loaded}
        hint={t('sla.firstResponseHint')}
        errors={byField.firstResponseMinutes}
      />
      <TextField
        label={t('sla.resolution')}
        name="resolutionMinutes"
        inputMode="numeric"
        value={values.resolutionMinutes}
        onChange={(v) => setValues((prev) => ({ ...prev, resolutionMinutes: v }))}
        autoComplete="off"
        disabled={!loaded}
        hint={t('sla.resolutionHint')}
        errors={byField.resolutionMinutes}
      />
    </FormDialog>
  );
}
