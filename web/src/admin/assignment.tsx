import { useEffect, useState } from 'react';
import { get, put } from '../api';
import { useI18n } from '../i18n';
import type { Team, TeamAssignment, TeamAssignmentBody, User } from '../models';
import { FieldErrors, TextField } from './fields';
import { FormDialog } from './form-dialog';
import { Badge } from './list-page';
import { useSubmit } from './load';
import { useTeamSettings } from './team-settings';

// A team's automatic assignment on the teams page, beside its business hours: the mode of each team
// (getTeamAssignment) and the editor that sets it (updateTeamAssignment). The server validates: its
// messages show under the field they name.

type Mode = TeamAssignment['mode'];
const MODES: Mode[] = ['off', 'round_robin', 'capacity'];

/** Every team's assignment, kept live by `team.assignment`. */
export function useTeamsAssignment(teams: Team[] | null) {
  const { byTeam, saved } = useTeamSettings(
    teams,
    (id) => `/api/teams/${id}/assignment`,
    'team.assignment',
    (e) => e.data.assignment,
  );
  return { assignment: byTeam, saved };
}

/** The team's mode beside it: off, or round robin / by capacity with the maximum. */
export function AssignmentBadge(props: { assignment: TeamAssignment | undefined }) {
  const { t } = useI18n();
  const a = props.assignment;
  if (!a) return <span className="muted">…</span>;
  return (
    <span data-testid={`assignment-${a.teamId}`}>
      <Badge tone={a.mode === 'off' ? 'neutral' : 'ok'}>
        {a.mode === 'off' ? t('assign.off') : t(`assign.mode.${a.mode}`)}
      </Badge>
      {a.mode !== 'off' && a.maxOpen !== null && (
        <small className="muted adm-block">{t('assign.upTo', { n: a.maxOpen })}</small>
      )}
    </span>
  );
}

/** Sets a team's assignment: mode, the maximum, each member's own maximum, giving back on offline. */
export function AssignmentDialog(props: {
  team: Team;
  users: User[];
  onClose: () => void;
  onSaved: (assignment: TeamAssignment) => void;
}) {
  const { t } = useI18n();
  const [loaded, setLoaded] = useState(false);
  const [mode, setMode] = useState<Mode>('off');
  const [maxOpen, setMaxOpen] = useState('');
  const [overrides, setOverrides] = useState<Record<string, string>>({});
  const [release, setRelease] = useState(true);
  const submit = useSubmit(['mode', 'maxOpen', 'overrides', 'releaseOnOffline']);
  const { byField } = submit.errors;
  const members = props.users.filter((u) => props.team.members.includes(u.id));

  useEffect(() => {
    let live = true;
    get<TeamAssignment>(`/api/teams/${props.team.id}/assignment`)
      .then((a) => {
        if (!live) return;
        setMode(a.mode);
        setMaxOpen(a.maxOpen === null ? '' : String(a.maxOpen));
        setOverrides(Object.fromEntries(a.overrides.map((o) => [o.userId, String(o.maxOpen)])));
        setRelease(a.releaseOnOffline);
        setLoaded(true);
      })
      .catch(() => live && setLoaded(true));
    return () => {
      live = false;
    };
  }, [props.team.id]);

  const save = () =>
    submit.run(async () => {
      const body: TeamAssignmentBody = {
        mode,
        maxOpen: maxOpen.trim() === '' ? null : Number(maxOpen),
        overrides: Object.entries(overrides)
          .filter(([userId, v]) => v.trim() !== '' && props.team.members.includes(userId))
          .map(([userId, v]) => ({ userId, maxOpen: Number(v) })),
        releaseOnOffline: release,
      };
      props.onSaved(await put<TeamAssignment>(`/api/teams/${props.team.id}/assignment`, body));
      props.onClose();
    });

  return (
    <FormDialog
      title={t('assign.edit', { name: props.team.name })}
      onClose={props.onClose}
      submit={submit}
      onSubmit={save}
      submitLabel={t('common.save')}
    >
      <fieldset className="adm-group">
        <legend>{t('assign.mode')}</legend>
        {MODES.map((m, i) => (
          <label key={m} className="adm-check">
            <input
              type="radio"
              name="mode"
              value={m}
              checked={mode === m}
              disabled={!loaded}
              autoFocus={i === 0}
              onChange={() => setMode(m)}
            />
            <span>{t(`assign.mode.${m}`)}</span>
          </label>
        ))}
        <FieldErrors messages={byField.mode ?? []} />
      </fieldset>
      <TextField
        label={t('assign.maxOpen')}
        name="maxOpen"
        type="number"
        min={1}
        max={1000}
        inputMode="numeric"
        value={maxOpen}
        onChange={setMaxOpen}
        disabled={!loaded || mode === 'off'}
        hint={t('assign.maxOpenHint')}
        errors={byField.maxOpen}
      />
      {members.length > 0 && (
        <fieldset className="adm-group">
          <legend>{t('assign.overrides')}</legend>
          <small className="adm-hint">{t('assign.overridesHint')}</small>
          {members.map((u) => (
            <TextField
              key={u.id}
              label={u.name}
              aria-label={t('assign.overrideOf', { name: u.name })}
              type="number"
              min={0}
              max={1000}
              inputMode="numeric"
              value={overrides[u.id] ?? ''}
              onChange={(v) => setOverrides((prev) => ({ ...prev, [u.id]: v }))}
              disabled={!loaded || mode === 'off'}
            />
          ))}
          <FieldErrors messages={byField.overrides ?? []} />
        </fieldset>
      )}
      <label className="adm-check">
        <input
          type="checkbox"
          name="releaseOnOffline"
          checked={release}
          disabled={!loaded}
          onChange={(e) => setRelease(e.target.checked)}
        />
        <span>{t('assign.release')}</span>
      </label>
    </FormDialog>
  );
}
