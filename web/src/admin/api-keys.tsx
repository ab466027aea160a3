import { useState } from 'react';
import { del, post } from '../api';
import { textOr, useI18n } from '../i18n';
import type { ApiKey, Channel, CreatedApiKey } from '../models';
import { CheckList, TextField } from './fields';
import { ConfirmDialog, FormDialog, SecretDialog } from './form-dialog';
import { AdminListPage, Badge, type Column } from './list-page';
import { useList, useSubmit } from './load';

const SCOPES = ['chats:read', 'chats:write', 'chats:transfer', 'users:read', 'teams:read'] as const;

/** Account API keys for the Channel API: list, create with scopes and channels (token shown once), revoke. */
export function ApiKeysPage() {
  const { t, time } = useI18n();
  const keys = useList<ApiKey>('/api/api-keys');
  const channels = useList<Channel>('/api/channels');
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const channelName = (id: string) => channels.data?.find((c) => c.id === id)?.name ?? id;

  const columns: Column<ApiKey>[] = [
    { key: 'name', label: t('common.name'), render: (k) => <strong className="adm-break">{k.name}</strong> },
    {
      key: 'scopes',
      label: t('keys.scopes'),
      render: (k) => (
        <ul className="adm-chips">
          {k.scopes.map((s) => (
            <li key={s} className="adm-chip" title={textOr(t, `keys.scope.${s}`, s)}>
              <code>{s}</code>
            </li>
          ))}
        </ul>
      ),
    },
    {
      key: 'channels',
      label: t('keys.channels'),
      render: (k) =>
        k.channelIds === null ? t('keys.allChannels') : k.channelIds.map(channelName).join(', '),
    },
    { key: 'created', label: t('common.createdAt'), render: (k) => time(k.createdAt) },
    {
      key: 'lastUsed',
      label: t('keys.lastUsed'),
      render: (k) => (k.lastUsedAt ? time(k.lastUsedAt) : <span className="muted">{t('keys.never')}</span>),
    },
    {
      key: 'status',
      label: t('common.status'),
      render: (k) =>
        k.revokedAt ? (
          <Badge tone="neutral">
            {t('keys.revoked')} · {time(k.revokedAt)}
          </Badge>
        ) : (
          <Badge tone="ok">{t('keys.active')}</Badge>
        ),
    },
    {
      key: 'actions',
      label: t('common.actions'),
      className: 'adm-cell-actions',
      render: (k) =>
        k.revokedAt ? null : (
          <button
            type="button"
            className="btn small danger"
            onClick={() => setRevoking(k)}
            aria-label={`${t('keys.revoke')}: ${k.name}`}
          >
            {t('keys.revoke')}
          </button>
        ),
    },
  ];

  return (
    <AdminListPage
      title={t('keys.title')}
      newLabel={t('keys.new')}
      onNew={() => setCreating(true)}
      list={keys}
      columns={columns}
      rowKey={(k) => k.id}
      rowClass={(k) => (k.revokedAt ? 'adm-dim' : undefined)}
      empty={t('keys.empty')}
      testId="api-keys-table"
    >
      {creating && (
        <CreateKeyDialog
          channels={channels.data ?? []}
          onClose={() => setCreating(false)}
          onCreated={(k) => {
            setCreating(false);
            setCreated(k);
            void keys.reload();
          }}
        />
      )}
      {created && (
        <SecretDialog
          title={t('keys.created')}
          label={t('keys.token')}
          value={created.token}
          notes={[t('keys.usage')]}
          onClose={() => setCreated(null)}
          testId="api-key-token"
        />
      )}
      {revoking && (
        <ConfirmDialog
          title={t('keys.revoke')}
          message={t('keys.revokeConfirm', { name: revoking.name })}
          confirmLabel={t('keys.revoke')}
          danger
          onConfirm={async () => {
            await del(`/api/api-keys/${revoking.id}`);
            await keys.reload();
          }}
          onClose={() => setRevoking(null)}
        />
      )}
    </AdminListPage>
  );
}

function CreateKeyDialog(props: {
  channels: Channel[];
  onClose: () => void;
  onCreated: (k: CreatedApiKey) => void;
}) {
  const { t } = useI18n();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>([]);
  const [limited, setLimited] = useState(false);
  const [channelIds, setChannelIds] = useState<string[]>([]);
  const submit = useSubmit(['name', 'scopes', 'channelIds']);
  const { byField } = submit.errors;

  const save = () => {
    // An empty channel list would be refused with a sentence about array sizes; say what to do instead.
    if (limited && channelIds.length === 0) return submit.fail({ channelIds: [t('keys.pickChannel')] });
    return submit.run(async () => {
      props.onCreated(
        await post<CreatedApiKey>('/api/api-keys', {
          name: name.trim(),
          scopes,
          channelIds: limited ? channelIds : null,
        }),
      );
    });
  };

  return (
    <FormDialog
      title={t('keys.new')}
      onClose={props.onClose}
      submit={submit}
      onSubmit={save}
      submitLabel={t('common.create')}
    >
      <TextField
        label={t('keys.name')}
        name="name"
        value={name}
        onChange={setName}
        autoFocus
        autoComplete="off"
        hint={t('keys.nameHint')}
        errors={byField.name}
      />
      <CheckList
        legend={t('keys.scopes')}
        name="scopes"
        options={SCOPES.map((s) => ({
          value: s,
          label: <code>{s}</code>,
          hint: textOr(t, `keys.scope.${s}`, s),
        }))}
        selected={scopes}
        onChange={setScopes}
        errors={byField.scopes}
      />
      <fieldset className="adm-radios">
        <legend>{t('keys.channels')}</legend>
        <small className="adm-hint">{t('keys.channelsHint')}</small>
        <label className="adm-check">
          <input type="radio" name="channelScope" checked={!limited} onChange={() => setLimited(false)} />
          <span>{t('keys.allChannels')}</span>
        </label>
        <label className="adm-check">
          <input type="radio" name="channelScope" checked={limited} onChange={() => setLimited(true)} />
          <span>{t('keys.selectedChannels')}</span>
        </label>
      </fieldset>
      {limited && (
        <CheckList
          legend={t('keys.selectedChannels')}
          name="channelIds"
          options={props.channels.map((c) => ({ value: c.id, label: c.name }))}
          selected={channelIds}
          onChange={setChannelIds}
          errors={byField.channelIds}
        />
      )}
    </FormDialog>
  );
}
