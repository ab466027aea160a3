import { useEffect, useMemo, useState } from 'react';
import { patch, post } from '../api';
import { Avatar } from '../components';
import { useI18n } from '../i18n';
import { Link } from '../router';
import { useDirectory, useGateway, useMe } from '../session';
import type { RoleName, Team, User, UserStatus } from '../models';
import { SelectField, TextField } from './fields';
import { FormDialog } from './form-dialog';
import { AdminListPage, Badge, type Column } from './list-page';
import { onForm, useList, useSubmit } from './load';

const ROLES: RoleName[] = ['admin', 'supervisor', 'agent'];
const STATUSES: UserStatus[] = ['active', 'onboarding', 'cancelled'];
const STATUS_TONE = { active: 'ok', onboarding: 'info', cancelled: 'neutral' } as const;

function statusTone(status: string) {
  return (STATUS_TONE as Record<string, 'ok' | 'info' | 'neutral'>)[status] ?? 'neutral';
}

/** Users: list with filters, create, and a dialog to change name, role, status or password. */
export function UsersPage() {
  const { t, tr } = useI18n();
  const { me } = useMe();
  const { reloadDirectory } = useDirectory();
  const users = useList<User>('/api/users');
  const teams = useList<Team>('/api/teams');
  const [status, setStatus] = useState('');
  const [text, setText] = useState('');
  const [dialog, setDialog] = useState<{ kind: 'create' } | { kind: 'edit'; user: User } | null>(null);
  // Availability changes live (a user's own choice, or the platform's).
  const { gateway } = useGateway();
  const { setData } = users;
  useEffect(() => {
    if (!gateway) return;
    return gateway.on('user.availability', (e) =>
      setData((prev) =>
        prev === null
          ? null
          : prev.map((u) => (u.id === e.data.userId ? { ...u, availability: e.data.availability } : u)),
      ),
    );
  }, [gateway, setData]);

  const teamsOf = useMemo(() => {
    const map = new Map<string, Team[]>();
    for (const team of teams.data ?? [])
      for (const id of team.members) map.set(id, [...(map.get(id) ?? []), team]);
    return map;
  }, [teams.data]);

  const shown = useMemo(() => {
    const q = text.trim().toLowerCase();
    return (users.data ?? []).filter(
      (u) =>
        (!status || u.status === status) &&
        (!q || u.name.toLowerCase().includes(q) || u.email.toLowerCase().includes(q)),
    );
  }, [users.data, status, text]);

  const saved = (user: User) => {
    users.upsert(user);
    void reloadDirectory();
  };

  const columns: Column<User>[] = [
    {
      key: 'name',
      label: t('common.name'),
      render: (u) => (
        <span className="adm-person">
          <Avatar name={u.name} small />
          <span>
            {u.name}
            {u.id === me.user.id && <span className="muted"> ({t('admin.you')})</span>}
          </span>
        </span>
      ),
    },
    { key: 'email', label: t('common.email'), render: (u) => <span className="adm-break">{u.email}</span> },
    { key: 'role', label: t('users.role'), render: (u) => tr(`role.${u.role.name}`) },
    {
      key: 'status',
      label: t('common.status'),
      render: (u) => <Badge tone={statusTone(u.status)}>{tr(`ustatus.${u.status}`)}</Badge>,
    },
    {
      key: 'availability',
      label: t('availability.label'),
      render: (u) => (
        <Badge tone={u.availability === 'online' ? 'ok' : 'neutral'}>
          {t(`availability.${u.availability}`)}
        </Badge>
      ),
    },
    {
      key: 'teams',
      label: t('users.teams'),
      render: (u) => {
        const list = teamsOf.get(u.id) ?? [];
        return list.length ? list.map((team) => team.name).join(', ') : <span className="muted">—</span>;
      },
    },
    {
      key: 'actions',
      label: t('common.actions'),
      className: 'adm-cell-actions',
      render: (u) => (
        <button
          type="button"
          className="btn small"
          onClick={() => setDialog({ kind: 'edit', user: u })}
          aria-label={t('users.edit', { name: u.name })}
        >
          {t('common.edit')}
        </button>
      ),
    },
  ];

  return (
    <AdminListPage
      title={t('users.title')}
      newLabel={t('users.new')}
      onNew={() => setDialog({ kind: 'create' })}
      list={users}
      rows={shown}
      filters={
        <form className="adm-filters" role="search" onSubmit={onForm(() => undefined)}>
          <TextField
            label={t('admin.filterText')}
            type="search"
            placeholder={t('admin.filterTextHint')}
            value={text}
            onChange={setText}
          />
          <SelectField
            label={t('users.statusFilter')}
            value={status}
            onChange={setStatus}
            options={[
              { value: '', label: t('common.all') },
              ...STATUSES.map((s) => ({ value: s, label: t(`ustatus.${s}`) })),
            ]}
          />
        </form>
      }
      count={
        <p className="muted adm-count">
          {shown.length === 1 ? t('users.countOne') : t('users.count', { n: shown.length })}
        </p>
      }
      columns={columns}
      rowKey={(u) => u.id}
      rowClass={(u) => (u.status === 'cancelled' ? 'adm-dim' : undefined)}
      empty={t('admin.noResults')}
      testId="users-table"
    >
      {dialog?.kind === 'create' && <CreateUserDialog onClose={() => setDialog(null)} onSaved={saved} />}
      {dialog?.kind === 'edit' && (
        <EditUserDialog
          user={dialog.user}
          teams={teamsOf.get(dialog.user.id) ?? []}
          onClose={() => setDialog(null)}
          onSaved={saved}
        />
      )}
    </AdminListPage>
  );
}

/** A user's role and status, side by side. */
function RoleAndStatus(props: {
  role: string;
  setRole: (v: string) => void;
  status: string;
  setStatus: (v: string) => void;
  errors: Record<string, string[]>;
}) {
  const { t } = useI18n();
  return (
    <div className="adm-row">
      <SelectField
        label={t('users.role')}
        name="role"
        value={props.role}
        onChange={props.setRole}
        options={ROLES.map((r) => ({ value: r, label: t(`role.${r}`) }))}
        errors={props.errors.role}
      />
      <SelectField
        label={t('common.status')}
        name="status"
        value={props.status}
        onChange={props.setStatus}
        options={STATUSES.map((s) => ({ value: s, label: t(`ustatus.${s}`) }))}
        errors={props.errors.status}
      />
    </div>
  );
}

function CreateUserDialog(props: { onClose: () => void; onSaved: (u: User) => void }) {
  const { t } = useI18n();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [role, setRole] = useState<string>('agent');
  const [status, setStatus] = useState<string>('active');
  const submit = useSubmit(['name', 'email', 'password', 'role', 'status']);
  const { byField } = submit.errors;

  const save = () =>
    submit.run(async () => {
      const user = await post<User>('/api/users', {
        name: name.trim(),
        email: email.trim(),
        password,
        role,
        status,
      });
      props.onSaved(user);
      props.onClose();
    });

  return (
    <FormDialog
      title={t('users.new')}
      onClose={props.onClose}
      submit={submit}
      onSubmit={save}
      submitLabel={t('common.create')}
    >
      <TextField
        label={t('common.name')}
        name="name"
        value={name}
        onChange={setName}
        autoFocus
        autoComplete="off"
        errors={byField.name}
      />
      <TextField
        label={t('common.email')}
        name="email"
        type="email"
        value={email}
        onChange={setEmail}
        autoComplete="off"
        errors={byField.email}
      />
      <TextField
        label={t('users.password')}
        name="password"
        type="password"
        value={password}
        onChange={setPassword}
        autoComplete="new-password"
        hint={t('users.passwordHint')}
        errors={byField.password}
      />
      <RoleAndStatus role={role} setRole={setRole} status={status} setStatus={setStatus} errors={byField} />
    </FormDialog>
  );
}

function EditUserDialog(props: {
  user: User;
  teams: Team[];
  onClose: () => void;
  onSaved: (u: User) => void;
}) {
  const { t } = useI18n();
  const { can } = useMe();
  const u = props.user;
  const [name, setName] = useState(u.name);
  const [role, setRole] = useState(u.role.name);
  const [status, setStatus] = useState(u.status);
  const [password, setPassword] = useState('');
  const submit = useSubmit(['name', 'role', 'status', 'password']);
  const { byField } = submit.errors;

  const save = () =>
    submit.run(async () => {
      // Only what changed: a PATCH of the same values would still count as a change elsewhere.
      const body: Record<string, string> = {};
      if (name.trim() !== u.name) body.name = name.trim();
      if (role !== u.role.name) body.role = role;
      if (status !== u.status) body.status = status;
      if (password) body.password = password;
      if (Object.keys(body).length > 0) props.onSaved(await patch<User>(`/api/users/${u.id}`, body));
      props.onClose();
    });

  return (
    <FormDialog
      title={t('users.edit', { name: u.name })}
      onClose={props.onClose}
      submit={submit}
      onSubmit={save}
      submitLabel={t('common.save')}
    >
      <p className="muted adm-break">{u.email}</p>
      <TextField
        label={t('common.name')}
        name="name"
        value={name}
        onChange={setName}
        autoFocus
        errors={byField.name}
      />
      <RoleAndStatus role={role} setRole={setRole} status={status} setStatus={setStatus} errors={byField} />
      <TextField
        label={t('users.newPassword')}
        name="password"
        type="password"
        value={password}
        onChange={setPassword}
        autoComplete="new-password"
        hint={t('users.newPasswordHint')}
        errors={byField.password}
      />
      <section className="adm-subsection" aria-label={t('users.teams')}>
        <h3>{t('users.teams')}</h3>
        {props.teams.length === 0 ? (
          <p className="muted">{t('users.noTeams')}</p>
        ) : (
          <ul className="adm-chips">
            {props.teams.map((team) => (
              <li key={team.id} className={team.status === 'active' ? 'adm-chip' : 'adm-chip adm-dim'}>
                {team.name}
              </li>
            ))}
          </ul>
        )}
        {can('teams:manage') && (
          <Link href="/admin/teams" className="adm-link">
            {t('users.manageTeams')}
          </Link>
        )}
      </section>
    </FormDialog>
  );
}
