import { useState } from 'react';
import { post } from '../api';
import { useI18n } from '../i18n';
import { Link } from '../router';
import { useDirectory } from '../session';
import type { Channel, Team } from '../models';
import {
  DEFAULT_QUEUE,
  FIELDS,
  PROVIDERS,
  providerLabel,
  ReadReceiptsField,
  TeamAndQueue,
  teamOptions,
  useWhatsAppConfig,
  WhatsAppFields,
} from './channel-fields';
import { TextField } from './fields';
import { FormDialog } from './form-dialog';
import { AdminListPage, Badge, type Column } from './list-page';
import { useList, useSubmit } from './load';

/** Channels: list and create; each channel opens on its own page (general settings and API tab). */
export function ChannelsPage() {
  const { t } = useI18n();
  const { reloadDirectory } = useDirectory();
  const channels = useList<Channel>('/api/channels');
  const teams = useList<Team>('/api/teams');
  const [creating, setCreating] = useState(false);
  const teamName = (id: string) => teams.data?.find((x) => x.id === id)?.name ?? id;

  const columns: Column<Channel>[] = [
    {
      key: 'name',
      label: t('common.name'),
      render: (c) => (
        <Link href={`/admin/channels/${c.id}`} className="adm-link">
          <strong>{c.name}</strong>
        </Link>
      ),
    },
    { key: 'provider', label: t('channels.provider'), render: (c) => providerLabel(t, c.provider) },
    { key: 'team', label: t('channels.defaultTeam'), render: (c) => teamName(c.defaultTeamId) },
    { key: 'queue', label: t('channels.queue'), render: (c) => c.queue },
    {
      key: 'health',
      label: t('channels.health'),
      render: (c) => (
        <Badge tone={c.health === 'ok' ? 'ok' : 'bad'}>
          {c.health === 'ok' ? t('channels.healthOk') : t('channels.unhealthy')}
        </Badge>
      ),
    },
    {
      key: 'api',
      label: t('channels.apiTab'),
      render: (c) => (
        <Badge tone={c.apiEnabled ? 'ok' : 'neutral'}>
          {c.apiEnabled ? t('channels.apiOn') : t('channels.apiOff')}
        </Badge>
      ),
    },
    {
      key: 'actions',
      label: t('common.actions'),
      className: 'adm-cell-actions',
      render: (c) => (
        <div className="adm-row-actions">
          <Link
            href={`/admin/channels/${c.id}`}
            className="btn small"
            aria-label={`${t('channels.open')}: ${c.name}`}
          >
            {t('channels.open')}
          </Link>
          <Link
            href={`/admin/channels/${c.id}/api`}
            className="btn small"
            aria-label={`${t('channels.apiTab')}: ${c.name}`}
          >
            {t('channels.apiTab')}
          </Link>
        </div>
      ),
    },
  ];

  return (
    <AdminListPage
      title={t('channels.title')}
      newLabel={t('channels.new')}
      onNew={() => setCreating(true)}
      list={channels}
      columns={columns}
      rowKey={(c) => c.id}
      empty={t('channels.empty')}
      testId="channels-table"
    >
      {creating && (
        <CreateChannelDialog
          teams={teams.data ?? []}
          onClose={() => setCreating(false)}
          onSaved={(c) => {
            channels.upsert(c);
            void reloadDirectory();
          }}
        />
      )}
    </AdminListPage>
  );
}

function CreateChannelDialog(props: { teams: Team[]; onClose: () => void; onSaved: (c: Channel) => void }) {
  const { t } = useI18n();
  const options = teamOptions(props.teams);
  const [name, setName] = useState('');
  const [provider, setProvider] = useState<string>('sandbox');
  const [team, setTeam] = useState('');
  // The teams may arrive after the dialog opened: the first one until another is picked.
  const defaultTeamId = team || (options[0]?.value ?? '');
  const [queue, setQueue] = useState(DEFAULT_QUEUE);
  const [apiEnabled, setApiEnabled] = useState(false);
  const [sendReadReceipts, setReadReceipts] = useState(false);
  const whatsapp = useWhatsAppConfig();
  const submit = useSubmit(FIELDS);
  const { byField } = submit.errors;

  const save = () =>
    submit.run(async () => {
      const body: Record<string, unknown> = {
        name: name.trim(),
        provider,
        defaultTeamId,
        queue: queue.trim(),
        apiEnabled,
        sendReadReceipts,
      };
      if (provider === 'whatsapp-cloud')
        body.providerConfig = {
          phoneNumberId: whatsapp.phoneNumberId.trim(),
          ...whatsapp.secrets,
          ...(whatsapp.businessAccountId.trim()
            ? { businessAccountId: whatsapp.businessAccountId.trim() }
            : {}),
        };
      const channel = await post<Channel>('/api/channels', body);
      props.onSaved(channel);
      props.onClose();
    });

  return (
    <FormDialog
      title={t('channels.new')}
      onClose={props.onClose}
      submit={submit}
      onSubmit={save}
      submitLabel={t('common.create')}
      intro={options.length === 0 && <p className="notice">{t('channels.needTeam')}</p>}
    >
      <TextField
        label={t('common.name')}
        name="name"
        value={name}
        onChange={setName}
        autoFocus
        errors={byField.name}
      />
      <fieldset className="adm-radios">
        <legend>{t('channels.provider')}</legend>
        {PROVIDERS.map((p) => (
          <label key={p} className="adm-check">
            <input
              type="radio"
              name="provider"
              value={p}
              checked={provider === p}
              onChange={() => setProvider(p)}
            />
            <span>{providerLabel(t, p)}</span>
          </label>
        ))}
        {byField.provider && <small className="adm-field-error">{byField.provider.join('. ')}</small>}
      </fieldset>
      <TeamAndQueue
        teamId={defaultTeamId}
        setTeamId={setTeam}
        queue={queue}
        setQueue={setQueue}
        options={options}
        errors={byField}
      />
      <label className="adm-check">
        <input
          type="checkbox"
          name="apiEnabled"
          checked={apiEnabled}
          onChange={(e) => setApiEnabled(e.target.checked)}
        />
        <span>{t('channels.api.enabled')}</span>
      </label>
      <ReadReceiptsField
        checked={sendReadReceipts}
        onChange={setReadReceipts}
        errors={byField.sendReadReceipts}
      />
      {provider === 'whatsapp-cloud' && (
        <WhatsAppFields config={whatsapp} errors={byField.providerConfig ?? []} />
      )}
    </FormDialog>
  );
}
