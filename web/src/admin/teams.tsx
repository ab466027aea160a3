import { useMemo, useState } from 'react';
import { patch, post } from '../api';
import { Avatar } from '../components';
import { useI18n } from '../i18n';
import { useDirectory } from '../session';
import type { Team, User } from '../models';
import { CheckList, FormErrors, TextField } from './fields';
import { FormDialog } from './form-dialog';
import { AdminListPage, Badge, type Column } from './list-page';
import { BusinessHoursDialog, OpenBadge, useTeamsHours } from './business-hours';
import { SlaSummary, TeamSlaDialog, useTeamsSla } from './team-sla';
import { AssignmentBadge, AssignmentDialog, useTeamsAssignment } from './assignment';
import { useList, useRowAction, useSubmit } from './load';

type DialogState =
  | { kind: 'create' }
  | { kind: 'edit'; team: Team }
  | { kind: 'members'; team: Team }
  | { kind: 'hours'; team: Team }
  | { kind: 'sla'; team: Team }
  | { kind: 'assignment'; team: Team }
  | null;

/**
 * Teams: list, create, rename, activate or deactivate, members (the API takes the whole list), and
 * business hours, with whether each team is open now, and SLA targets.
 */
export function TeamsPage() {
  const { t, tr } = useI18n();
  const { reloadDirectory } = useDirectory();
  const teams = useList<Team>('/api/teams');
  const users = useList<User>('/api/users');
  const [dialog, setDialog] = useState<DialogState>(null);
  const row = useRowAction();
  const hours = useTeamsHours(teams.data);
  const slas = useTeamsSla(teams.data);
  const assignment = useTeamsAssignment(teams.data);

  const userById = useMemo(() => new Map((users.data ?? []).map((u) => [u.id, u])), [users.data]);

  const saved = (team: Team) => {
    teams.upsert(team);
    void reloadDirectory();
  };

  const toggle = (team: Team) =>
    row.run(team.id, async () =>
      saved(
        await patch<Team>(`/api/teams/${team.id}`, {
          status: team.status === 'active' ? 'inactive' : 'active',
        }),
      ),
    );

  const columns: Column<Team>[] = [
    {
      key: 'name',
      label: t('common.name'),
      render: (team) => (
        <span>
          <strong>{team.name}</strong>
          {team.description && <small className="muted adm-block">{team.description}</small>}
        </span>
      ),
    },
    {
      key: 'status',
      label: t('common.status'),
      render: (team) => (
        <Badge tone={team.status === 'active' ? 'ok' : 'neutral'}>{tr(`tstatus.${team.status}`)}</Badge>
      ),
    },
    {
      key: 'hours',
      label: t('hours.column'),
      render: (team) => <OpenBadge hours={hours.hours[team.id]} />,
    },
    {
      key: 'sla',
      label: t('sla.column'),
      render: (team) => <SlaSummary sla={slas.slas[team.id]} />,
    },
    {
      key: 'assignment',
      label: t('assign.column'),
      render: (team) => <AssignmentBadge assignment={assignment.assignment[team.id]} />,
    },
    {
      key: 'members',
      label: t('teams.members'),
      render: (team) =>
        team.members.length === 0 ? (
          <span className="muted">{t('teams.noMembers')}</span>
        ) : (
          <span
            className="adm-avatars"
            title={team.members.map((id) => userById.get(id)?.name ?? id).join(', ')}
          >
            {team.members.slice(0, 5).map((id) => (
              <Avatar key={id} name={userById.get(id)?.name ?? '?'} small />
            ))}
            <span>
              {team.members.length === 1
                ? t('teams.membersOne')
                : t('teams.membersCount', { n: team.members.length })}
            </span>
          </span>
        ),
    },
    {
      key: 'actions',
      label: t('common.actions'),
      className: 'adm-cell-actions',
      render: (team) => (
        <div className="adm-row-actions">
          <button
            type="button"
            className="btn small"
            onClick={() => setDialog({ kind: 'members', team })}
            aria-label={t('teams.editMembers', { name: team.name })}
          >
            {t('teams.members')}
          </button>
          <button
            type="button"
            className="btn small"
            onClick={() => setDialog({ kind: 'hours', team })}
            aria-label={t('hours.edit', { name: team.name })}
          >
            {t('hours.title')}
          </button>
          <button
            type="button"
            className="btn small"
            onClick={() => setDialog({ kind: 'sla', team })}
            aria-label={t('sla.edit', { name: team.name })}
          >
            {t('sla.title')}
          </button>
          <button
            type="button"
            className="btn small"
            onClick={() => setDialog({ kind: 'assignment', team })}
            aria-label={t('assign.edit', { name: team.name })}
          >
            {t('assign.title')}
          </button>
          <button
            type="button"
            className="btn small"
            onClick={() => setDialog({ kind: 'edit', team })}
            aria-label={t('teams.edit', { name: team.name })}
          >
            {t('common.edit')}
          </button>
          <button
            type="button"
            className="btn small"
            disabled={row.busy === team.id}
            onClick={() => void toggle(team)}
          >
            {team.status === 'active' ? t('teams.deactivate') : t('teams.activate')}
          </button>
          <FormErrors messages={row.errorsOf(team.id)} />
        </div>
      ),
    },
  ];

  return (
    <AdminListPage
      title={t('teams.title')}
      newLabel={t('teams.new')}
      onNew={() => setDialog({ kind: 'create' })}
      list={teams}
      columns={columns}
      rowKey={(team) => team.id}
      rowClass={(team) => (team.status === 'active' ? undefined : 'adm-dim')}
      empty={t('teams.empty')}
      testId="teams-table"
    >
      {dialog?.kind === 'create' && (
        <TeamDialog users={users.data ?? []} onClose={() => setDialog(null)} onSaved={saved} />
      )}
      {dialog?.kind === 'edit' && (
        <TeamDialog
          team={dialog.team}
          users={users.data ?? []}
          onClose={() => setDialog(null)}
          onSaved={saved}
        />
      )}
      {dialog?.kind === 'hours' && (
        <BusinessHoursDialog team={dialog.team} onClose={() => setDialog(null)} onSaved={hours.saved} />
      )}
      {dialog?.kind === 'sla' && (
        <TeamSlaDialog team={dialog.team} onClose={() => setDialog(null)} onSaved={slas.saved} />
      )}
      {dialog?.kind === 'assignment' && (
        <AssignmentDialog
          team={dialog.team}
          users={users.data ?? []}
          onClose={() => setDialog(null)}
          onSaved={assignment.saved}
        />
      )}
      {dialog?.kind === 'members' && (
        <MembersDialog
          team={dialog.team}
          users={users.data ?? []}
          onClose={() => setDialog(null)}
          onSaved={saved}
        />
      )}
    </AdminListPage>
  );
}

/** Create (with members) or rename a team. */
function TeamDialog(props: {
  team?: Team;
  users: User[];
  onClose: () => void;
  onSaved: (team: Team) => void;
}) {
  const { t } = useI18n();
  const team = props.team;
  const [name, setName] = useState(team?.name ?? '');
  const [description, setDescription] = useState(team?.description ?? '');
  const [members, setMembers] = useState<string[]>([]);
  const submit = useSubmit(['name', 'description', 'members']);
  const { byField } = submit.errors;

  const save = () =>
    submit.run(async () => {
      const desc = description.trim() === '' ? null : description.trim();
      if (team) {
        const body: Record<string, string | null> = {};
        if (name.trim() !== team.name) body.name = name.trim();
        if (desc !== (team.description ?? null)) body.description = desc;
        if (Object.keys(body).length > 0) props.onSaved(await patch<Team>(`/api/teams/${team.id}`, body));
      } else {
        props.onSaved(await post<Team>('/api/teams', { name: name.trim(), description: desc, members }));
      }
      props.onClose();
    });

  return (
    <FormDialog
      title={team ? t('teams.edit', { name: team.name }) : t('teams.new')}
      onClose={props.onClose}
      submit={submit}
      onSubmit={save}
      submitLabel={team ? t('common.save') : t('common.create')}
    >
      <TextField
        label={t('common.name')}
        name="name"
        value={name}
        onChange={setName}
        autoFocus
        errors={byField.name}
      />
      <TextField
        label={`${t('teams.description')} (${t('admin.optional')})`}
        name="description"
        value={description}
        onChange={setDescription}
        errors={byField.description}
      />
      {!team && (
        <MemberPicker users={props.users} selected={members} onChange={setMembers} errors={byField.members} />
      )}
    </FormDialog>
  );
}

function MembersDialog(props: {
  team: Team;
  users: User[];
  onClose: () => void;
  onSaved: (team: Team) => void;
}) {
  const { t } = useI18n();
  const [members, setMembers] = useState<string[]>(props.team.members);
  const submit = useSubmit(['members']);
  const save = () =>
    submit.run(async () => {
      props.onSaved(await patch<Team>(`/api/teams/${props.team.id}`, { members }));
      props.onClose();
    });
  return (
    <FormDialog
      title={t('teams.editMembers', { name: props.team.name })}
      onClose={props.onClose}
      submit={submit}
      onSubmit={save}
      submitLabel={t('common.save')}
    >
      <MemberPicker
        users={props.users}
        selected={members}
        onChange={setMembers}
        errors={submit.errors.byField.members}
        keep={props.team.members}
      />
    </FormDialog>
  );
}

/**
 * People to check in or out of a team, with a search. Cancelled users are offered only when they are
 * members already (`keep`), so that they can be taken out.
 */
function MemberPicker(props: {
  users: User[];
  selected: string[];
  onChange: (ids: string[]) => void;
  errors?: string[];
  keep?: string[];
}) {
  const { t, tr } = useI18n();
  const [q, setQ] = useState('');
  const keep = new Set(props.keep ?? []);
  const candidates = props.users.filter((u) => u.status !== 'cancelled' || keep.has(u.id));
  const needle = q.trim().toLowerCase();
  const visible = candidates.filter(
    (u) => !needle || u.name.toLowerCase().includes(needle) || u.email.toLowerCase().includes(needle),
  );
  const hidden = props.selected.filter((id) => !visible.some((u) => u.id === id));
  return (
    <CheckList
      legend={t('teams.members')}
      name="members"
      hint={t('teams.selected', { n: props.selected.length })}
      extra={
        candidates.length > 8 ? (
          <TextField label={t('teams.searchUsers')} type="search" value={q} onChange={setQ} />
        ) : undefined
      }
      options={visible.map((u) => ({
        value: u.id,
        label: (
          <span className="adm-person">
            <Avatar name={u.name} small />
            {u.name}
          </span>
        ),
        hint: `${tr(`role.${u.role.name}`)}${u.status === 'active' ? '' : ` · ${tr(`ustatus.${u.status}`)}`}`,
      }))}
      // Members hidden by the search stay selected.
      selected={props.selected}
      onChange={(ids) => props.onChange([...hidden, ...ids])}
      errors={props.errors}
    />
  );
}
