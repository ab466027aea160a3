import { useState } from 'react';
import { del, get, post } from '../api';
import { Dialog } from '../components';
import { textOr, useI18n } from '../i18n';
import type { ApiKey, Channel, CreatedApiKey } from '../models';
import {
  Badge,
  CheckList,
  ConfirmDialog,
  DataTable,
  FormErrors,
  LoadState,
  onForm,
  PageHeader,
  SecretDialog,
  TextField,
  useLoad,
  useSubmit,
  type Column,
} from './common';

const SCOPES = ['chats:read', 'chats:transfer', 'users:read', 'teams:read'] as const;

/** Account API keys for the Channel API: list, create with scopes and channels (token shown once), revoke. */
export function ApiKeysPage() {
  const { t, time } = useI18n();
  const keys = useLoad(() => get<ApiKey[]>('/api/api-keys'), 'api-keys');
  const channels = useLoad(() => get<Channel[]>('/api/channels'), 'channels');
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
    <>
      <PageHeader title={t('keys.title')}>
        <button type="button" className="btn primary" onClick={() => setCreating(true)}>
          {t('keys.new')}
        </button>
      </PageHeader>
      <LoadState loading={keys.loading && !keys.data} error={keys.error} onRetry={() => void keys.reload()} />
      {keys.data && (
        <DataTable
          caption={t('keys.title')}
          columns={columns}
          rows={keys.data}
          rowKey={(k) => k.id}
          rowClass={(k) => (k.revokedAt ? 'adm-dim' : undefined)}
          empty={t('keys.empty')}
          testId="api-keys-table"
        />
      )}
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
    </>
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
  const { byField, rest } = submit.errors;

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
    <Dialog title={t('keys.new')} onClose={props.onClose}>
      <form className="adm-dialog-body" noValidate onSubmit={onForm(save)}>
        <FormErrors messages={rest} />
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
        <div className="adm-actions">
          <button type="button" className="btn" onClick={props.onClose}>
            {t('common.cancel')}
          </button>
          <button type="submit" className="btn primary" disabled={submit.pending}>
            {t('common.create')}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
